"""confluent-kafka (librdkafka) transactional producers and ShareConsumers against a share group
with share.isolation.level=read_committed, driven by tests/interop/test_confluent_share_rc.sh.

  share_read_committed.py BOOTSTRAP
One partition: txn A commits a0..a2, txn B aborts b0..b1, txn C opens c0..c1 and stays open while
plain p0..p1 and txn D's committed d0..d1 follow. A read_committed ShareConsumer gets exactly
a0..a2 (delivery count 1) until C commits, then c0, c1, p0, p1, d0, d1; a read_uncommitted one
gets all 11. Prints ok/FAIL lines; exit status 1 on any FAIL."""
import sys
import time
import uuid

from confluent_kafka import AcknowledgeType, Producer, ShareConsumer
from confluent_kafka.admin import AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource, NewTopic, ResourceType

boot = sys.argv[1]
fails = 0


def check(c, what):
    global fails
    print(("ok   - " if c else "FAIL - ") + what, flush=True)
    if not c:
        fails += 1


run = uuid.uuid4().hex[:6]
topic, grc, gru = "ckrc-" + run, "ckrc-rc-" + run, "ckrc-ru-" + run
admin = AdminClient({"bootstrap.servers": boot})
for f in admin.create_topics([NewTopic(topic, num_partitions=1, replication_factor=1)]).values():
    f.result(30)


def group_configs(group, kv):
    res = ConfigResource(ResourceType.GROUP, group, incremental_configs=[
        ConfigEntry(k, v, incremental_operation=AlterConfigOpType.SET) for k, v in kv.items()])
    for f in admin.incremental_alter_configs([res]).values():
        f.result(30)


group_configs(grc, {"share.auto.offset.reset": "earliest", "share.isolation.level": "read_committed"})
group_configs(gru, {"share.auto.offset.reset": "earliest"})


def txn_producer(tid):
    p = Producer({"bootstrap.servers": boot, "transactional.id": tid, "linger.ms": 5})
    p.init_transactions(30)
    return p


def txn(tid, prefix, n, end):
    p = txn_producer(tid + run)
    p.begin_transaction()
    for i in range(n):
        p.produce(topic, value=b"%s%d" % (prefix, i), partition=0)
    p.flush(30)
    if end == "commit":
        p.commit_transaction(30)
    elif end == "abort":
        p.abort_transaction(30)
    return p


txn("A", b"a", 3, "commit")
txn("B", b"b", 2, "abort")
open_c = txn("C", b"c", 2, "open")
plain = Producer({"bootstrap.servers": boot, "acks": "all"})
for i in range(2):
    plain.produce(topic, value=b"p%d" % i, partition=0)
check(plain.flush(30) == 0, "plain records produced after the open transaction")
txn("D", b"d", 2, "commit")


def drain(group, want, idle_s, max_s, c=None):
    """Values (and delivery counts) one ShareConsumer gets; stops at want values or idle_s idle."""
    if c is None:
        c = ShareConsumer({"bootstrap.servers": boot, "group.id": group, "share.acknowledgement.mode": "explicit"})
        c.subscribe([topic])
    got, counts = [], set()
    end, last = time.time() + max_s, None
    while time.time() < end and len(got) < want:
        msgs = [m for m in c.poll(0.3) if not m.error()]
        for m in msgs:
            got.append(m.value().decode())
            counts.add(m.delivery_count())
            c.acknowledge(m, AcknowledgeType.ACCEPT)
        if msgs:
            c.commit_sync(30)
            last = time.time()
        elif last and time.time() - last > idle_s:
            break
    return c, sorted(got), counts


c, got, counts = drain(grc, 99, 3, 10)
check(got == ["a0", "a1", "a2"], "read_committed: only the committed records before the open transaction %s" % got)
check(counts == {1}, "read_committed: delivery count 1 %s" % counts)
open_c.commit_transaction(30)
t0 = time.time()
c, got, counts = drain(grc, 6, 3, 20, c)
check(got == ["c0", "c1", "d0", "d1", "p0", "p1"],
      "read_committed: after the commit, the records behind it %s (%.0f ms)" % (got, (time.time() - t0) * 1000))
c.close()
c2, got, counts = drain(gru, 11, 3, 20)
check(got == ["a0", "a1", "a2", "b0", "b1", "c0", "c1", "d0", "d1", "p0", "p1"], "read_uncommitted: every record %s" % got)
c2.close()
sys.exit(1 if fails else 0)
