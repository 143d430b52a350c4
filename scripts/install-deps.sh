#!/usr/bin/env bash
# Installs what building and testing Gregor needs on Debian 12. Idempotent: each step checks
# first and is quick (seconds) when everything is already there.
#
#   scripts/install-deps.sh               build + test dependencies (what `make test` needs)
#   scripts/install-deps.sh --build-only  only the build dependencies (what `make run` needs)
#
# Build (apt):  build-essential cmake pkg-config zlib1g-dev liblz4-dev libzstd-dev
#               libsnappy-dev libssl-dev libpcre2-dev
# Test (apt):   kcat, clang + libclang-rt-14-dev (libFuzzer, sanitizers), clang-format, python3-venv,
#               nodejs + npm, default-jdk-headless + maven (when missing)
# Test (other): npm ci in tests/interop/node (package-lock.json), a Python venv with
#               tests/interop/python/requirements.txt (pinned) under ~/.cache/gregor,
#               Maven resolution of tests/ref (reference Kafka) and tests/interop/java.
# apt needs root (or sudo). Set GR_SKIP_APT=1 to skip apt entirely.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_ONLY=0
for a in "$@"; do
  case "$a" in
    --build-only) BUILD_ONLY=1 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "install-deps: unknown argument $a" >&2; exit 2 ;;
  esac
done

say() { printf 'install-deps: %s\n' "$*" >&2; }
t_start=$(date +%s)

BUILD_PKGS=(build-essential cmake pkg-config zlib1g-dev liblz4-dev libzstd-dev libsnappy-dev libssl-dev libpcre2-dev)
TEST_PKGS=(kcat clang libclang-rt-14-dev clang-format python3-venv)

SUDO=""
if [[ $(id -u) -ne 0 ]]; then command -v sudo >/dev/null && SUDO="sudo"; fi

pkg_installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

APT_UPDATED=0
apt_install() { # apt_install pkg...: installs the ones missing
  local missing=() p
  for p in "$@"; do pkg_installed "$p" || missing+=("$p"); done
  ((${#missing[@]})) || return 0
  if [[ "${GR_SKIP_APT:-0}" == 1 ]]; then say "missing (GR_SKIP_APT=1): ${missing[*]}"; return 0; fi
  say "apt-get install ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  if ((APT_UPDATED == 0)); then
    timeout 600 $SUDO apt-get update -qq || say "apt-get update failed (continuing)"
    APT_UPDATED=1
  fi
  timeout 1200 $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# python3-venv is a Debian package name; a python3 from elsewhere (pyenv) brings venv itself.
if python3 -c 'import venv, ensurepip' 2>/dev/null; then
  TEST_PKGS=("${TEST_PKGS[@]/python3-venv/}")
fi
command -v node >/dev/null && command -v npm >/dev/null || TEST_PKGS+=(nodejs npm)
command -v java >/dev/null || TEST_PKGS+=(default-jdk-headless)
command -v mvn >/dev/null || TEST_PKGS+=(maven)

if ((BUILD_ONLY)); then
  apt_install "${BUILD_PKGS[@]}"
  say "build dependencies present ($(( $(date +%s) - t_start )) s)"
  exit 0
fi
pkgs=()
for p in "${BUILD_PKGS[@]}" "${TEST_PKGS[@]}"; do [[ -n "$p" ]] && pkgs+=("$p"); done
apt_install "${pkgs[@]}"

# --- npm clients (kafkajs) from the lockfile
NODE_DIR="$ROOT/tests/interop/node"
if [[ -f "$NODE_DIR/package-lock.json" ]]; then
  stamp="$NODE_DIR/node_modules/.gregor-stamp"
  want="$(sha256sum "$NODE_DIR/package-lock.json" | cut -d' ' -f1)"
  if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$want" ]]; then
    say "npm ci in tests/interop/node"
    (cd "$NODE_DIR" && timeout 600 npm ci --no-audit --no-fund --loglevel=error >/dev/null)
    echo "$want" >"$stamp"
  fi
fi

# --- Python venv (confluent-kafka); the same path formula is in tests/lib.sh (gr_venv_dir)
REQ="$ROOT/tests/interop/python/requirements.txt"
if [[ -f "$REQ" ]]; then
  h="$(sha256sum "$REQ" | cut -c1-12)"
  pyv="$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
  VENV="${GR_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/gregor/venv-py$pyv-$h}"
  if [[ ! -f "$VENV/.gregor-stamp" ]]; then
    say "python venv $VENV"
    rm -rf "$VENV"
    python3 -m venv "$VENV"
    timeout 600 "$VENV/bin/pip" install -q --disable-pip-version-check -r "$REQ"
    touch "$VENV/.gregor-stamp"
  fi
fi

# --- Maven: reference Kafka jars and the Java interop programs
mvn_stamp_ok() { # mvn_stamp_ok dir stampfile: stamp newer than the pom and every source
  local dir="$1" stamp="$2"
  [[ -f "$stamp" ]] || return 1
  [[ -z "$(find "$dir" -path "$dir/target" -prune -o -type f -newer "$stamp" -print -quit)" ]]
}
if [[ -f "$ROOT/tests/ref/pom.xml" ]]; then
  if ! mvn_stamp_ok "$ROOT/tests/ref" "$ROOT/tests/ref/target/lib/.stamp"; then
    say "maven: reference Kafka (tests/ref)"
    bash "$ROOT/tests/ref/kafka-ref.sh" setup
  fi
fi
JDIR="$ROOT/tests/interop/java"
if [[ -f "$JDIR/pom.xml" ]]; then
  if ! mvn_stamp_ok "$JDIR" "$JDIR/target/.gregor-stamp"; then
    say "maven: Java interop programs (tests/interop/java)"
    (cd "$JDIR" && timeout 900 mvn -B -q -Dstyle.color=never package dependency:copy-dependencies)
    touch "$JDIR/target/.gregor-stamp"
  fi
fi

say "all dependencies present ($(( $(date +%s) - t_start )) s)"
