# shellcheck shell=bash
# Shared helpers for the script tests (tests/integration/test_*.sh, tests/interop/test_*.sh).
#
# Usage in a test:
#   source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
#   gr_init "$@"              # parses --ref / --gregord / --bootstrap H:P / --keep, sets traps
#   start_target              # gregord (default), or the reference Kafka with --ref
#   ... use "$BOOTSTRAP" ...; ok "what"; fail "what"; check "what" cmd args...
#   gr_finish                 # prints "N passed, N failed", exits non-zero on any failure
#
# Targets (GR_TARGET, or the flags above):
#   gregord   $GR_BUILD_DIR/gregord on 127.0.0.1:<free port>, data in a temp dir. A missing
#             binary FAILS the test (it is never skipped).
#   ref       Apache Kafka 4.4.0 via tests/ref/kafka-ref.sh (validates the test itself).
#   external  an already running broker at --bootstrap H:P / GR_BOOTSTRAP (no kill/restart).
#
# Everything started through these helpers is recorded by PID and stopped by the EXIT trap;
# a watchdog (GR_TEST_TIMEOUT seconds, default 600) ends a test that hangs.
# Environment: GR_BUILD_DIR, GR_SOURCE_DIR (set by ctest), GR_TARGET, GR_BOOTSTRAP,
#   GR_KEEP_TMP=1 (keep the temp dir), GR_START_TIMEOUT (gregord start, s, default 20),
#   GR_GREGORD_CONFIG (a server.properties for gregord; default none: Kafka's defaults).

GR_LIB_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
GR_SOURCE_DIR="${GR_SOURCE_DIR:-$(cd "$GR_LIB_DIR/.." && pwd)}"
GR_BUILD_DIR="${GR_BUILD_DIR:-$GR_SOURCE_DIR/build}"
if [[ -z "${GR_TARGET:-}" ]]; then
  if [[ -n "${GR_BOOTSTRAP:-}" ]]; then GR_TARGET=external; else GR_TARGET=gregord; fi
fi
GR_TEST_TIMEOUT="${GR_TEST_TIMEOUT:-600}"
GR_START_TIMEOUT="${GR_START_TIMEOUT:-20}"
GR_TEST_NAME="$(basename "${0%.sh}")"
GR_PASSED=0
GR_FAILED=0
GR_PIDS=()          # background processes to stop at exit
GR_REF_DIRS=()      # reference Kafka dirs to stop at exit
GR_MOUNTS=()        # tmpfs mounts to unmount at exit (after every process is stopped)
GR_GREGORD_PID=""
GR_GREGORD_EXIT=""
BOOTSTRAP="${GR_BOOTSTRAP:-}"

# Python venv with tests/interop/python/requirements.txt (made by scripts/install-deps.sh;
# the same formula is used there).
gr_venv_dir() {
  local req="$GR_SOURCE_DIR/tests/interop/python/requirements.txt" h pyv
  h="$(sha256sum "$req" | cut -c1-12)"
  pyv="$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
  echo "${GR_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/gregor/venv-py$pyv-$h}"
}

log() { printf '[%s %s] %s\n' "$(date +%H:%M:%S)" "$GR_TEST_NAME" "$*" >&2; }
ok() { GR_PASSED=$((GR_PASSED + 1)); printf 'ok   - %s\n' "$*"; }
fail() { GR_FAILED=$((GR_FAILED + 1)); printf 'FAIL - %s\n' "$*"; }
# check "description" cmd args...: ok if the command succeeds, fail otherwise
check() { local d="$1"; shift; if "$@"; then ok "$d"; else fail "$d"; fi; }
# check_eq "description" expected actual
check_eq() {
  if [[ "$2" == "$3" ]]; then ok "$1"; else fail "$1 (expected '$2', got '$3')"; fi
}
# abort: a fatal failure (counted), then summary and exit
die() { fail "$*"; gr_finish; }

gr_require() { # gr_require cmd...: a missing tool fails the test with a hint
  local c
  for c in "$@"; do
    command -v "$c" >/dev/null 2>&1 || die "required tool '$c' not found (run scripts/install-deps.sh)"
  done
}

# gr_timeout SECONDS cmd args...: run with a bound (SIGTERM, then SIGKILL 5 s later)
gr_timeout() { local s="$1"; shift; timeout -k 5 "$s" "$@"; }

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# alive PID: running and not a zombie
alive() { [[ -n "${1:-}" && -e "/proc/$1" ]] && ! grep -q '^[^ ]* ([^)]*) Z' "/proc/$1/stat" 2>/dev/null; }

wait_port() { # wait_port PORT TIMEOUT_S [PID]
  local port="$1" deadline=$(( $(date +%s) + $2 )) pid="${3:-}"
  while ! port_open "$port"; do
    if [[ -n "$pid" ]] && ! alive "$pid"; then return 2; fi
    (( $(date +%s) >= deadline )) && return 1
    sleep 0.05
  done
}

# stop_pid PID [timeout_s]: SIGTERM, wait, SIGKILL after the timeout; reaps our children.
stop_pid() {
  local pid="$1" t="${2:-20}" i
  alive "$pid" || { wait "$pid" 2>/dev/null || true; return 0; }
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < t * 20; i++)); do alive "$pid" || break; sleep 0.05; done
  if alive "$pid"; then
    log "pid $pid ignored SIGTERM for ${t}s: SIGKILL"
    kill -9 "$pid" 2>/dev/null || true
  fi
  wait "$pid" 2>/dev/null || true
}

# gr_bg VAR cmd args...: start a background process, record it for cleanup, PID in VAR
gr_bg() {
  local __var="$1"; shift
  "$@" &
  local pid=$!
  GR_PIDS+=("$pid")
  printf -v "$__var" '%s' "$pid"
}

# gr_mount_tmpfs DIR SIZE: a tmpfs of SIZE (e.g. 16m) at DIR (made if missing), unmounted by the
# EXIT trap after every recorded process has stopped. Returns 1 with the reason in GR_MOUNT_ERR
# where mounting is impossible (not root / no CAP_SYS_ADMIN): the caller prints its SKIP line.
gr_mount_tmpfs() {
  mkdir -p "$1"
  GR_MOUNT_ERR=$(mount -t tmpfs -o "size=$2,mode=0755" tmpfs "$1" 2>&1) || return 1
  GR_MOUNTS+=("$1")
}

# gr_relay_checks NAME OUT RC TIMEOUT_S: count the "ok - " / "FAIL - " lines a helper program wrote
# to OUT as this test's checks ("# " lines are logged, others printed); its exit status RC fails
# the test when it timed out (124) or failed without a FAIL line of its own.
gr_relay_checks() {
  local name="$1" out="$2" rc="$3" t="$4" line
  while IFS= read -r line; do
    case "$line" in
      "ok - "*) ok "${line#ok - }" ;;
      "FAIL - "*) fail "${line#FAIL - }" ;;
      "# "*) log "${line#\# }" ;;
      *) printf '%s\n' "$line" ;;
    esac
  done <"$out"
  if ((rc == 124)); then fail "$name did not finish within ${t}s (a stall?)"
  elif ((rc != 0)) && ! grep -q '^FAIL - ' "$out"; then fail "$name exited with status $rc"
  fi
}

# check_no_sanitizer_report: one check that gregord's log holds no ASan/LSan/UBSan report
# (the ASan build of `make asan` writes them there).
check_no_sanitizer_report() {
  if grep -nE 'AddressSanitizer|LeakSanitizer|runtime error:|SUMMARY: UndefinedBehavior' "$GR_TMP/gregord.log" \
       | head -n 20 >"$GR_TMP/san.txt" && [[ -s "$GR_TMP/san.txt" ]]; then
    fail "sanitizer report in gregord's log:"; cat "$GR_TMP/san.txt"
  else
    ok "no sanitizer report in gregord's log"
  fi
}

# ---------------------------------------------------------------- gregord
# gr_java_interop [CLASS...]: JDIR names the Java interop programs (tests/interop/java), which
# must be built, with each CLASS in the jar; else the test fails saying how to build them.
gr_java_interop() {
  JDIR="$GR_SOURCE_DIR/tests/interop/java"
  [[ -f "$JDIR/target/java-interop-1.jar" && -d "$JDIR/target/lib" ]] ||
    die "Java interop programs not built in $JDIR/target (run scripts/install-deps.sh)"
  local listing c
  listing="$(unzip -Z1 "$JDIR/target/java-interop-1.jar" 2>/dev/null)"
  for c in "$@"; do
    [[ "$listing" == *"$c.class"* ]] || die "java-interop-1.jar predates $c (rebuild it: scripts/install-deps.sh)"
  done
}

gregord_bin() { echo "$GR_BUILD_DIR/gregord"; }

_gregord_launch() {
  local bin cfg=()
  bin="$(gregord_bin)"
  [[ -x "$bin" ]] || die "gregord binary not found at $bin (build it: make)"
  # No config file by default: Kafka's defaults, like the reference broker. GR_GREGORD_CONFIG=FILE to use one.
  [[ -n "${GR_GREGORD_CONFIG:-}" ]] && cfg=(--config "$GR_GREGORD_CONFIG")
  echo "=== start $(date +%T) ${GR_GREGORD_ARGS[*]}" >>"$GR_TMP/gregord.log"
  "$bin" "${cfg[@]}" \
    --override "listeners=PLAINTEXT://127.0.0.1:$GR_PORT" \
    --override "advertised.listeners=PLAINTEXT://127.0.0.1:$GR_PORT" \
    --override "log.dirs=$GR_DATA_DIR" \
    "${GR_GREGORD_ARGS[@]}" >>"$GR_TMP/gregord.log" 2>&1 </dev/null &
  GR_GREGORD_PID=$!
  GR_PIDS+=("$GR_GREGORD_PID")
  local t0 rc=0
  t0=$(date +%s%N)
  wait_port "$GR_PORT" "$GR_START_TIMEOUT" "$GR_GREGORD_PID" || rc=$?
  if ((rc != 0)); then
    tail -n 20 "$GR_TMP/gregord.log" >&2 || true
    if ((rc == 2)); then die "gregord exited during start-up (log: $GR_TMP/gregord.log)"; fi
    die "gregord not listening on 127.0.0.1:$GR_PORT after ${GR_START_TIMEOUT}s"
  fi
  BOOTSTRAP="127.0.0.1:$GR_PORT"
  log "gregord pid $GR_GREGORD_PID on $BOOTSTRAP (listening after $(( ($(date +%s%N) - t0) / 1000000 )) ms)"
}

# start_gregord [--override k=v ...]: fresh data dir, free port
start_gregord() {
  GR_PORT="$(free_port)"
  GR_DATA_DIR="$GR_TMP/gregord-data"
  mkdir -p "$GR_DATA_DIR"
  GR_GREGORD_ARGS=("$@")
  _gregord_launch
}
# restart_gregord: same port, data dir and arguments as the last start
restart_gregord() { _gregord_launch; }
# stop_gregord [timeout_s]: SIGTERM, wait (SIGKILL after the timeout); exit status in GR_GREGORD_EXIT
stop_gregord() {
  local pid="$GR_GREGORD_PID" t="${1:-20}" i
  [[ -n "$pid" ]] || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < t * 20; i++)); do alive "$pid" || break; sleep 0.05; done
  if alive "$pid"; then
    log "gregord pid $pid ignored SIGTERM for ${t}s: SIGKILL"
    kill -9 "$pid" 2>/dev/null || true
  fi
  GR_GREGORD_EXIT=0
  wait "$pid" 2>/dev/null || GR_GREGORD_EXIT=$?
  GR_GREGORD_PID=""
}
kill9_gregord() {
  [[ -n "$GR_GREGORD_PID" ]] || return 0
  kill -9 "$GR_GREGORD_PID" 2>/dev/null || true
  wait "$GR_GREGORD_PID" 2>/dev/null || true
  GR_GREGORD_PID=""
}

# ---------------------------------------------------------------- reference Kafka
GR_REF_SH="${GR_REF_SH:-$GR_SOURCE_DIR/tests/ref/kafka-ref.sh}" # override: another reference version
# start_ref_kafka [key=value ...]: extra server.properties lines
start_ref_kafka() {
  GR_REF_DIR="$GR_TMP/ref-kafka"
  GR_REF_PORT="$(free_port)"
  GR_REF_DIRS+=("$GR_REF_DIR")
  gr_timeout 300 bash "$GR_REF_SH" start "$GR_REF_DIR" "$GR_REF_PORT" "$@" \
    || die "reference Kafka did not start (logs in $GR_REF_DIR)"
  BOOTSTRAP="127.0.0.1:$GR_REF_PORT"
}
restart_ref_kafka() {
  gr_timeout 300 bash "$GR_REF_SH" restart "$GR_REF_DIR" || die "reference Kafka did not restart"
  BOOTSTRAP="127.0.0.1:$GR_REF_PORT"
}
stop_ref_kafka() { [[ -n "${GR_REF_DIR:-}" ]] && gr_timeout 60 bash "$GR_REF_SH" stop "$GR_REF_DIR" || true; }

# Differential tests run gregord with the settings tests/ref/kafka-ref.sh writes into the
# reference's server.properties, so both report them alike (STATIC_BROKER_CONFIG); gregord has
# no KRaft quorum, the voter's port is never used. gr_ref_like_overrides [KEY=VALUE ...] puts them,
# and the extra settings, as --override arguments into the array GR_OVERRIDES.
gr_ref_like_overrides() {
  local kv
  GR_OVERRIDES=()
  for kv in node.id=1 process.roles=broker,controller controller.listener.names=CONTROLLER \
    controller.quorum.voters=1@127.0.0.1:9 inter.broker.listener.name=PLAINTEXT \
    listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT \
    num.partitions=1 default.replication.factor=1 \
    offsets.topic.replication.factor=1 offsets.topic.num.partitions=1 \
    share.coordinator.state.topic.replication.factor=1 share.coordinator.state.topic.min.isr=1 \
    share.coordinator.state.topic.num.partitions=1 \
    transaction.state.log.replication.factor=1 transaction.state.log.min.isr=1 transaction.state.log.num.partitions=1 \
    group.initial.rebalance.delay.ms=0 auto.create.topics.enable=false "$@"; do
    GR_OVERRIDES+=(--override "$kv")
  done
}

# gr_diff_run SCRIPT TIMEOUT [OBSERVE_ARG ...]: start gregord (with GR_OVERRIDES) and the
# reference (auto.create.topics.enable=false and the array GR_REF_SETTINGS), run
# `SCRIPT observe BOOTSTRAP OUT OBSERVE_ARG...` against both at once (each bounded by TIMEOUT s),
# then gr_diff_verdict. Leaves GREGORD_BOOT and REF_BOOT set for later checks.
gr_diff_run() {
  local script="$1" tmo="$2" ref_rc=0 greg_rc=0 obs_pid t0
  shift 2
  t0=$(date +%s)
  start_gregord "${GR_OVERRIDES[@]}"
  GREGORD_BOOT="$BOOTSTRAP"
  gr_timeout "$tmo" "$PY" -W ignore "$script" observe "$GREGORD_BOOT" "$GR_TMP/obs.gregord.json" "$@" \
    2>"$GR_TMP/observe.gregord.err" &
  obs_pid=$!
  GR_PIDS+=("$obs_pid")
  start_ref_kafka auto.create.topics.enable=false ${GR_REF_SETTINGS[@]+"${GR_REF_SETTINGS[@]}"}
  REF_BOOT="$BOOTSTRAP"
  gr_timeout "$tmo" "$PY" -W ignore "$script" observe "$REF_BOOT" "$GR_TMP/obs.kafka.json" "$@" \
    2>"$GR_TMP/observe.kafka.err" || ref_rc=$?
  wait "$obs_pid" || greg_rc=$?
  log "observations done after $(($(date +%s) - t0)) s"
  gr_diff_verdict "$script" "$ref_rc" "$greg_rc"
}

# gr_diff_verdict SCRIPT REF_RC GREG_RC: after both observations ($GR_TMP/obs.kafka.json and
# obs.gregord.json, their exit codes given), run `SCRIPT diff` with $PY; each "ok   - " / "FAIL - "
# line it prints becomes a check, and its summary must say 0 unexplained differences.
gr_diff_verdict() {
  local script="$1" ref_rc="$2" greg_rc="$3" out line summary
  ((ref_rc == 0)) || fail "observing Apache Kafka exited $ref_rc: $(tail -n 5 "$GR_TMP/observe.kafka.err")"
  ((greg_rc == 0)) || fail "observing gregord exited $greg_rc: $(tail -n 5 "$GR_TMP/observe.gregord.err")"
  alive "$GR_GREGORD_PID" || fail "gregord died during the scenarios (log: $GR_TMP/gregord.log)"
  [[ -s "$GR_TMP/obs.kafka.json" && -s "$GR_TMP/obs.gregord.json" ]] || die "an observation is missing"
  out="$("$PY" "$script" diff "$GR_TMP/obs.kafka.json" "$GR_TMP/obs.gregord.json" "$GR_TMP/diff-report.txt")" || true
  echo "$out" | grep -v '^\(ok  \|FAIL\) - ' || true
  while IFS= read -r line; do
    case "$line" in
      "ok   - "*) ok "${line#ok   - }" ;;
      "FAIL - "*) fail "${line#FAIL - }" ;;
    esac
  done < <(grep -E '^(ok  |FAIL) - ' <<<"$out")
  summary="$(grep '^diff summary:' <<<"$out" || true)"
  if [[ "$summary" == *" 0 unexplained"* ]]; then
    ok "$summary"
  else
    fail "${summary:-diff did not finish} (full report: $GR_TMP/diff-report.txt)"
  fi
}
kill9_ref_kafka() { [[ -n "${GR_REF_DIR:-}" ]] && gr_timeout 30 bash "$GR_REF_SH" kill9 "$GR_REF_DIR" || true; }

# ---------------------------------------------------------------- target abstraction
# GR_TARGET_PROPS=(key=value ...): broker configs start_target gives either broker.
start_target() {
  local props=(${GR_TARGET_PROPS[@]+"${GR_TARGET_PROPS[@]}"}) ov=() kv
  for kv in ${props[@]+"${props[@]}"}; do ov+=(--override "$kv"); done
  case "$GR_TARGET" in
    gregord) start_gregord ${ov[@]+"${ov[@]}"} "$@" ;;
    ref) start_ref_kafka ${props[@]+"${props[@]}"} ;;
    external) [[ -n "$BOOTSTRAP" ]] || die "GR_TARGET=external needs --bootstrap H:P" ;;
    *) die "unknown GR_TARGET '$GR_TARGET'" ;;
  esac
}
# start_target_counting [ARGS]: start_target so that target_requests can count what the broker
# received (gregord: the request counters of its admin listener; ref: Kafka's request log).
start_target_counting() {
  case "$GR_TARGET" in
    gregord) GR_ADMIN_PORT="$(free_port)" && start_target --override "admin.listener=127.0.0.1:$GR_ADMIN_PORT" "$@" ;;
    ref) export KAFKA_REF_REQUEST_LOG=1 && start_target "$@" ;;
    *) start_target "$@" ;;
  esac
}
# target_requests NAME KEY MINVER MAXVER: requests of API NAME (key KEY) at versions
# MINVER..MAXVER the broker started by start_target_counting has received so far
target_requests() {
  case "$GR_TARGET" in
    gregord) curl -sf "http://127.0.0.1:$GR_ADMIN_PORT/metrics" | awk -v k="gregor_requests_total{api=\"$1\"" -v lo="$3" \
      -v hi="$4" 'index($0, k) == 1 { v = $0; sub(/.*version="/, "", v); sub(/".*/, "", v); if (v + 0 >= lo && v + 0 <= hi) s += $NF }
      END { print s + 0 }' ;;
    ref) grep -o "\"requestApiKey\":$2,\"requestApiVersion\":[0-9]*" "$GR_REF_DIR/requests.log" |
      awk -F: -v lo="$3" -v hi="$4" '$3 + 0 >= lo && $3 + 0 <= hi' | wc -l ;;
    *) echo unknown ;;
  esac
}
stop_target() {
  case "$GR_TARGET" in gregord) stop_gregord ;; ref) stop_ref_kafka ;; esac
}
kill9_target() {
  case "$GR_TARGET" in
    gregord) kill9_gregord ;; ref) kill9_ref_kafka ;;
    *) die "kill -9 needs a broker started by the test (not external)" ;;
  esac
}
restart_target() {
  case "$GR_TARGET" in
    gregord) restart_gregord ;; ref) restart_ref_kafka ;;
    *) die "restart needs a broker started by the test (not external)" ;;
  esac
}
target_name() { echo "$GR_TARGET"; }

# run_both FN [args]: run one scenario against the reference Kafka and against gregord,
# each on a fresh broker; FN prints its observable results on stdout (no timestamps, ids
# or offsets that may deliberately differ). The two outputs must be identical.
run_both() {
  local fn="$1"; shift
  local saved="$GR_TARGET" t
  for t in ref gregord; do
    GR_TARGET="$t"
    start_target
    if ! "$fn" "$@" >"$GR_TMP/run_both.$fn.$t.out" 2>"$GR_TMP/run_both.$fn.$t.err"; then
      fail "$fn against $t exited non-zero (stderr: $GR_TMP/run_both.$fn.$t.err)"
    fi
    stop_target
  done
  GR_TARGET="$saved"
  if diff -u "$GR_TMP/run_both.$fn.ref.out" "$GR_TMP/run_both.$fn.gregord.out" >"$GR_TMP/run_both.$fn.diff"; then
    ok "$fn: gregord answers as Apache Kafka does"
  else
    fail "$fn: gregord differs from Apache Kafka:"
    head -n 40 "$GR_TMP/run_both.$fn.diff"
  fi
}

# ---------------------------------------------------------------- set-up and tear-down
gr_cleanup() {
  local rc=$? pid d
  trap - EXIT INT TERM
  set +e
  if [[ -n "${GR_WATCHDOG_PID:-}" ]]; then
    # The watchdog first, then its sleep (found before, since it is orphaned after):
    # killing the sleep first lets the watchdog wake up and kill us, and an orphaned
    # sleep keeps our stdout open.
    local wd_kids; wd_kids=$(pgrep -P "$GR_WATCHDOG_PID" 2>/dev/null || true)
    kill "$GR_WATCHDOG_PID" 2>/dev/null
    [[ -n "$wd_kids" ]] && kill $wd_kids 2>/dev/null
    wait "$GR_WATCHDOG_PID" 2>/dev/null
  fi
  for pid in "${GR_PIDS[@]}"; do alive "$pid" && stop_pid "$pid" 10; done
  for d in "${GR_REF_DIRS[@]}"; do [[ -f "$d/kafka.pid" ]] && timeout 60 bash "$GR_REF_SH" stop "$d"; done
  for d in "${GR_MOUNTS[@]}"; do mountpoint -q "$d" && { umount "$d" 2>/dev/null || umount -l "$d"; }; done
  if [[ -n "${GR_TMP:-}" && -d "$GR_TMP" ]]; then
    if [[ "${GR_KEEP_TMP:-0}" == 1 || $rc -ne 0 ]]; then
      log "kept $GR_TMP (logs)"
    else
      rm -rf "$GR_TMP"
    fi
  fi
  exit "$rc"
}

gr_init() {
  while (($#)); do
    case "$1" in
      --ref) GR_TARGET=ref ;;
      --gregord) GR_TARGET=gregord ;;
      --bootstrap) GR_TARGET=external; BOOTSTRAP="$2"; shift ;;
      --keep) GR_KEEP_TMP=1 ;;
      -h|--help) sed -n '2,4p' "$0"; echo "flags: --ref | --gregord | --bootstrap H:P | --keep"; exit 0 ;;
      *) echo "unknown argument: $1" >&2; exit 2 ;;
    esac
    shift
  done
  GR_TMP="$(mktemp -d "${TMPDIR:-/tmp}/gregor-$GR_TEST_NAME.XXXXXX")"
  trap gr_cleanup EXIT
  trap 'log "interrupted"; exit 130' INT
  trap 'fail "terminated (watchdog: GR_TEST_TIMEOUT=${GR_TEST_TIMEOUT}s, or killed)";
        echo "$GR_TEST_NAME: $GR_PASSED passed, $GR_FAILED failed"; exit 124' TERM
  # watchdog: TERM this shell and its direct children (a hung foreground command too)
  ( sleep "$GR_TEST_TIMEOUT"; echo "[$GR_TEST_NAME] watchdog: ${GR_TEST_TIMEOUT}s elapsed, stopping" >&2
    kill -TERM $$; pkill -TERM -P $$ ) 2>/dev/null &
  GR_WATCHDOG_PID=$!
  log "target: $GR_TARGET; temp: $GR_TMP"
}

# gr_finish: the closing summary line; exit status 1 on any failure or when nothing ran
gr_finish() {
  echo "target: $GR_TARGET"
  echo "$GR_TEST_NAME: $GR_PASSED passed, $GR_FAILED failed"
  if ((GR_FAILED > 0 || GR_PASSED == 0)); then exit 1; fi
  exit 0
}
