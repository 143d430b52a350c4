#!/usr/bin/env bash
# bench/many_partitions.sh: the admin and lifecycle costs of one topic with many partitions.
#
# Starts gregord ($GR_BUILD_DIR/gregord, 127.0.0.1, a fresh data directory), then:
#   CreateTopics (MP_PARTITIONS partitions) while a probe client sends ApiVersions + Metadata
#   in a loop (its slowest answer is printed); MP_WRITE=1: one record to every partition;
#   SIGTERM (shutdown time from gregord's own "shutting down" / "stopped" log lines); restart
#   ("opened N partition(s) in X ms"); DeleteTopics with the probe; SIGTERM.
# Needs an open-file limit above MP_PARTITIONS + 1000 (one fd per partition).
#   MP_PARTITIONS (19000)  MP_WRITE (0)  GR_BUILD_DIR (./build)   bash bench/many_partitions.sh
set -euo pipefail
SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=lib.sh
source "$SRC/bench/lib.sh"
bench_no_external "it times gregord's own CreateTopics, shutdown and restart with many partitions" "$@"
BIN="${GR_BUILD_DIR:-$SRC/build}/gregord"
N="${MP_PARTITIONS:-19000}"
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
TMP="$(mktemp -d)"
PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
PID=""
trap '[[ -n "$PID" ]] && kill "$PID" 2>/dev/null; rm -rf "$TMP"' EXIT
start() {
  "$BIN" --override "listeners=PLAINTEXT://127.0.0.1:$PORT" --override "advertised.listeners=PLAINTEXT://127.0.0.1:$PORT" \
    --override "log.dirs=$TMP/data" >>"$TMP/gregord.log" 2>&1 &
  PID=$!
  for _ in $(seq 600); do (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && return; sleep 0.05; done
  echo "gregord did not start" >&2; exit 1
}
stop() {
  kill -TERM "$PID"; wait "$PID" || true; PID=""
  grep -E 'shutting down|stopped' "$TMP/gregord.log" | tail -n 2 | python3 -c '
import sys, datetime
t = [datetime.datetime.strptime(l[:23], "%Y-%m-%dT%H:%M:%S.%f") for l in sys.stdin]
print("shutdown: %.0f ms" % ((t[1] - t[0]).total_seconds() * 1000))'
}
run_py() { PYTHONPATH="$SRC/tests/integration" python3 - "127.0.0.1:$PORT" "$@" <<'PY'
import sys, threading, time
import kwire
from kwire import Conn, api_versions, carr, TAGS
boot, op, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
worst, stop = [0.0], [False]
def probe():
    c = Conn(boot)
    while not stop[0]:
        t = time.monotonic()
        api_versions(c)
        c.call(3, 12, carr([], None) + kwire.boolean(False) + kwire.boolean(False) + TAGS)
        worst[0] = max(worst[0], time.monotonic() - t)
        time.sleep(0.005)
c = Conn(boot, timeout=600)
if op == "write":
    from produce_fetch_wire import produce
    bad = sum(produce(c, "many", kwire.batch([b"v"]), part=p)["err"] != 0 for p in range(n))
    print("one record to each of %d partitions, %d errors" % (n, bad))
    sys.exit(0)
th = threading.Thread(target=probe); th.start(); time.sleep(0.2)
t0 = time.monotonic()
err = kwire.create_topic(c, "many", n)[0] if op == "create" else kwire.delete_topic(c, "many")
took = time.monotonic() - t0
time.sleep(0.3); stop[0] = True; th.join()
print("%s of %d partitions: error %d, answered in %.3f s; slowest probe %.1f ms" % (op, n, err, took, worst[0] * 1000))
PY
}
start
run_py create "$N"
[[ "${MP_WRITE:-0}" == 1 ]] && run_py write "$N"
stop
start
grep -o 'opened [0-9]* partition(s) in [0-9]* ms' "$TMP/gregord.log" | tail -n 1
run_py delete "$N"
stop
