#!/usr/bin/env bash
# Idempotent producer state survives a restart: a batch retried after gregord was
# killed (kill -9) and restarted is answered with its original offset and is not
# appended twice; the sequence continues from where it stopped and gaps are still
# refused. Runs against the reference Kafka too (--ref).
#   bash tests/integration/test_idempotent_restart.sh [--ref] [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
gr_require python3
export PYTHONPATH="$GR_SOURCE_DIR/tests/integration${PYTHONPATH:+:$PYTHONPATH}"
start_target
topic="idem-restart-$RANDOM"

py() { gr_timeout 60 python3 - "$BOOTSTRAP" "$topic" "$@"; }

base=$(py <<'PY'
import sys, produce_fetch_wire as w
boot, topic = sys.argv[1], sys.argv[2]
assert w.create_topic(w.Conn(boot), topic) == 0
c = w.Conn(boot)
w.produce(c, topic, w.batch([b"warm"]), acks=-1)  # a non-idempotent record first
r = w.produce(c, topic, w.batch([b"a0", b"a1"], pid=9001, epoch=0, seq=0), acks=-1)
assert r["err"] == 0, r
print(r["base"])
PY
)
check "first idempotent batch appended at offset 1" test "$base" = 1

kill9_target
restart_target

out=$(py "$base" <<'PY'
import sys, time, produce_fetch_wire as w
boot, topic, base = sys.argv[1], sys.argv[2], int(sys.argv[3])
for _ in range(100):  # the reference broker needs a moment to lead again
    try:
        c = w.Conn(boot)
        r = w.produce(c, topic, w.batch([b"a0", b"a1"], pid=9001, epoch=0, seq=0), acks=-1)
        if r["err"] == 0:
            break
    except OSError:
        pass
    time.sleep(0.2)
dup = r["err"] == 0 and r["base"] == base
end = w.list_offsets(c, topic, -1)[0]["offset"]
gap = w.produce(c, topic, w.batch([b"a5"], pid=9001, epoch=0, seq=5), acks=-1)["err"]
nxt = w.produce(c, topic, w.batch([b"a2"], pid=9001, epoch=0, seq=2), acks=-1)
print(int(dup), end, gap, nxt["err"], nxt["base"])
PY
)
read -r dup end gap nerr nbase <<<"$out"
check "retry after restart answered with the original offset" test "$dup" = 1
check "retry after restart not appended again (end offset 3)" test "$end" = 3
check "sequence gap after restart -> OUT_OF_ORDER_SEQUENCE_NUMBER (45)" test "$gap" = 45
check "next sequence after restart appended at offset 3" test "$nerr:$nbase" = 0:3
gr_finish
