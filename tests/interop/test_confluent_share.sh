#!/usr/bin/env bash
# confluent-kafka (PyPI, pinned in tests/interop/python/requirements.txt; librdkafka inside) share
# consumer (confluent_kafka.ShareConsumer, KIP-932): two share consumers in one group drain N records
# of a 2-partition topic with explicit ACCEPT + commit_sync: every record delivered exactly once
# (Message.delivery_count() 1), per-partition commit results without errors, and
# after close() nothing is delivered again to a fresh member; then a new consumer of 2 partitions
# x 50 records gets 50 of one partition in its first non-empty poll, 50 of the other in the next
# (as Apache Kafka 4.4.0 answers the fetch that loads share-partitions). Topic and group configs
# (share.auto.offset.reset=earliest, share.record.lock.duration.ms=$GR_SHARE_LOCK_MS) via the
# confluent-kafka AdminClient (incremental_alter_configs on a GROUP resource); the broker runs with
# group.share.min.record.lock.duration.ms=1000.
#   bash tests/interop/test_confluent_share.sh [--ref | --bootstrap H:P] [--keep]
# Env: GR_PY_SHARE_MESSAGES (default 200), GR_SHARE_LOCK_MS (default 3000).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
PY="$(gr_venv_dir)/bin/python"
[[ -x "$PY" ]] || die "python venv missing at $PY (run scripts/install-deps.sh)"
"$PY" -c 'import confluent_kafka as c; c.ShareConsumer; c.AcknowledgeType' 2>/dev/null \
  || die "confluent-kafka in $PY has no ShareConsumer ($("$PY" -c 'import confluent_kafka as c; print(c.version(), c.libversion())'))"
SHARE_BROKER_CFG=(group.share.min.record.lock.duration.ms=1000)
case "$GR_TARGET" in
  gregord) o=(); for kv in "${SHARE_BROKER_CFG[@]}"; do o+=(--override "$kv"); done; start_gregord "${o[@]}" ;;
  ref) start_ref_kafka "${SHARE_BROKER_CFG[@]}" ;;
  *) start_target ;;
esac
cat >"$GR_TMP/share_drain.py" <<'PY'
import sys, time, uuid
import confluent_kafka as ck
from confluent_kafka import ShareConsumer, AcknowledgeType, Producer
from confluent_kafka.admin import AdminClient, NewTopic, ConfigResource, ConfigEntry, AlterConfigOpType, ResourceType

boot, n, lock_ms = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
fails = 0
def check(c, what):
    global fails
    print(("ok   - " if c else "FAIL - ") + what, flush=True)
    if not c: fails += 1
def info(s): print("[confluent-share] " + s, file=sys.stderr, flush=True)

info("confluent-kafka %s, librdkafka %s" % (ck.version(), ck.libversion()[0]))
run = uuid.uuid4().hex[:6]
topic, group = "cks-" + run, "cks-g-" + run
admin = AdminClient({"bootstrap.servers": boot})
for f in admin.create_topics([NewTopic(topic, num_partitions=2, replication_factor=1)]).values():
    f.result(30)
res = ConfigResource(ResourceType.GROUP, group, incremental_configs=[
    ConfigEntry("share.auto.offset.reset", "earliest", incremental_operation=AlterConfigOpType.SET),
    ConfigEntry("share.record.lock.duration.ms", str(lock_ms), incremental_operation=AlterConfigOpType.SET)])
for f in admin.incremental_alter_configs([res]).values():
    f.result(30)
check(True, "topic (2 partitions) and GROUP configs set through AdminClient.incremental_alter_configs")

p = Producer({"bootstrap.servers": boot, "acks": "all", "linger.ms": 5})
for i in range(n):
    p.produce(topic, key=b"k-%d" % i, value=b"v-%d" % i, partition=i % 2)
left = p.flush(30)
check(left == 0, "produced %d records" % n)

def consumer(cid):
    c = ShareConsumer({"bootstrap.servers": boot, "group.id": group, "client.id": cid,
                       "share.acknowledgement.mode": "explicit"})
    c.subscribe([topic])
    return c

cons = [consumer("cks-a"), consumer("cks-b")]
seen = {}          # (partition, offset) -> count
per = [0, 0]
counts_ok = True
commit_errors = []
commits = 0
value_ok = True
deadline = time.time() + 90
while len(seen) < n and time.time() < deadline:
    for i, c in enumerate(cons):
        msgs = c.poll(0.3)
        got = 0
        for m in msgs:
            if m.error():
                info("poll error: %s" % m.error())
                continue
            key = (m.partition(), m.offset())
            seen[key] = seen.get(key, 0) + 1
            per[i] += 1
            got += 1
            dc = m.delivery_count()
            if dc != 1:
                counts_ok = False
                info("delivery_count %r at %s" % (dc, key))
            if m.value() != b"v-%d" % int(m.key()[2:]):
                value_ok = False
            c.acknowledge(m, AcknowledgeType.ACCEPT)
        if got:
            r = c.commit_sync(30)
            commits += 1
            for tp, e in (r or {}).items():
                if e is not None:
                    commit_errors.append("%s[%d]: %s" % (tp.topic, tp.partition, e))
dups = sum(1 for v in seen.values() if v > 1)
check(len(seen) == n, "2 share consumers drained all %d records (%d distinct; split %d/%d)" % (n, len(seen), per[0], per[1]))
check(dups == 0 and sum(per) == len(seen), "each record delivered exactly once (%d deliveries, %d duplicated)" % (sum(per), dups))
check(counts_ok, "Message.delivery_count() is 1 for every record")
check(value_ok, "values intact")
check(commits > 0 and not commit_errors, "commit_sync: %d commits, per-partition results without errors %s" % (commits, commit_errors[:3]))
for c in cons:
    c.close()
c3 = consumer("cks-c")
extra = 0
end = time.time() + (lock_ms + 3000) / 1000.0
while time.time() < end:
    for m in c3.poll(0.3):
        if not m.error():
            extra += 1
            c3.acknowledge(m, AcknowledgeType.ACCEPT)
    if extra:
        c3.commit_sync(30)
c3.close()
check(extra == 0, "a fresh member gets nothing after the lock duration (%d records)" % extra)

# A new consumer (max.poll.records 500) of 2 partitions x 50 records: the fetch that loads both
# share-partitions answers from one, the next from the other (Kafka 4.4.0: each share-partition
# loads with its own state read; docs/compatibility.md), so the non-empty polls hold 50 and 50.
t2, g2 = "cks-first-" + run, "cks-first-g-" + run
for f in admin.create_topics([NewTopic(t2, num_partitions=2, replication_factor=1)]).values():
    f.result(30)
res = ConfigResource(ResourceType.GROUP, g2, incremental_configs=[
    ConfigEntry("share.auto.offset.reset", "earliest", incremental_operation=AlterConfigOpType.SET)])
for f in admin.incremental_alter_configs([res]).values():
    f.result(30)
for i in range(100):
    p.produce(t2, value=b"f-%d" % i, partition=i // 50)
p.flush(30)
c4 = ShareConsumer({"bootstrap.servers": boot, "group.id": g2, "client.id": "cks-first", "max.poll.records": 500})
c4.subscribe([t2])
polls, got, end = [], 0, time.time() + 60
while got < 100 and time.time() < end:
    msgs = [m for m in c4.poll(0.5) if not m.error()]
    if msgs:
        per_part = {}
        for m in msgs:
            per_part[m.partition()] = per_part.get(m.partition(), 0) + 1
        polls.append(per_part)
        got += len(msgs)
c4.close()
check(len(polls) >= 2 and polls[0] in ({0: 50}, {1: 50}) and polls[1] == {1 - list(polls[0])[0]: 50},
      "new consumer, 2 partitions x 50, max.poll.records 500: first poll 50 of one partition, then 50 of "
      "the other %s" % polls)
print("done", flush=True)
sys.exit(1 if fails else 0)
PY
out="$(gr_timeout 240 "$PY" "$GR_TMP/share_drain.py" "$BOOTSTRAP" "${GR_PY_SHARE_MESSAGES:-200}" \
  "${GR_SHARE_LOCK_MS:-3000}" 2>"$GR_TMP/py.err")" || true
echo "$out"
grep '^\[confluent-share\] confluent-kafka' "$GR_TMP/py.err" >&2 || true
GR_PASSED=$((GR_PASSED + $(grep -c '^ok ' <<<"$out" || true)))
GR_FAILED=$((GR_FAILED + $(grep -c '^FAIL ' <<<"$out" || true)))
grep -qx 'done' <<<"$out" || fail "share_drain.py did not finish: $(grep -v '^\s' "$GR_TMP/py.err" | tail -n 5)"
if [[ "$GR_TARGET" == gregord ]] && ! alive "$GR_GREGORD_PID"; then fail "gregord died (log: $GR_TMP/gregord.log)"; fi
stop_target
gr_finish
