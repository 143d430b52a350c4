#!/usr/bin/env bash
# Start gregord in the foreground (what `make run` does after building):
#   ./build/gregord --config config/server.properties [extra args]
# config/server.properties listens on 127.0.0.1:9092 and keeps data in ./data.
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
exec "$BIN" --config "$CONFIG" "$@"
