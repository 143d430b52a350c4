#!/usr/bin/env bash
# Start gregord in the foreground (what `make run` does after building):
#   ./build/gregord --config config/server.properties [extra args]
# config/server.properties listens on 127.0.0.1:9092, keeps data in ./data and serves the admin
# endpoint (admin.listener) on 127.0.0.1:9644: /metrics and /health, whose URLs are printed.
# Extra arguments are passed on, e.g.:  scripts/run-gregord.sh --override log.retention.hours=1
# Env: GR_BUILD_DIR (default ./build), GR_CONFIG (default config/server.properties).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BIN="${GR_BUILD_DIR:-$ROOT/build}/gregord"
CONFIG="${GR_CONFIG:-config/server.properties}"
[[ -x "$BIN" ]] || { echo "run-gregord: $BIN not found; build first (make)" >&2; exit 1; }
[[ -f "$CONFIG" ]] || { echo "run-gregord: $CONFIG not found" >&2; exit 1; }
mkdir -p data
echo "run-gregord: $BIN --config $CONFIG $* (Ctrl-C stops it)" >&2
# The admin endpoint's URLs: the last admin.listener of the file, unless an argument overrides it.
admin="$(sed -n 's/^[[:space:]]*admin\.listener[[:space:]]*[=:][[:space:]]*//p' "$CONFIG" | tail -n 1)"
for a in "$@"; do [[ "$a" == admin.listener=* ]] && admin="${a#admin.listener=}"; done
admin="${admin%"${admin##*[![:space:]]}"}"
if [[ -n "$admin" ]]; then
  [[ "$admin" == :* ]] && admin="127.0.0.1$admin"
  echo "run-gregord: metrics http://$admin/metrics  health http://$admin/health (no authentication)" >&2
fi
exec "$BIN" --config "$CONFIG" "$@"
