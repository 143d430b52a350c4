"""confluent-kafka (librdkafka) transactions over 3 partitions, read back by read_committed and
read_uncommitted consumers, and an open transaction blocking later committed records.

usage: txn_read_committed.py BOOTSTRAP
1. 12 transactions of 30 records over 3 partitions, even ones committed, odd ones aborted:
   read_committed receives exactly the committed records, in order per partition, and
   read_uncommitted every record.
2. A second transactional producer leaves "open-*" uncommitted on partition 0; a transaction
   committed after it ("late-*") is not delivered to read_committed on partition 0 until the
   open one is aborted, then it is, and "open-*" never is.
Prints "ok - ..." / "FAIL - ..." lines and "done"; exit status 1 on any failure.
"""
import sys
import time
import uuid

from confluent_kafka import Consumer, KafkaException, Producer
from confluent_kafka.admin import AdminClient, NewTopic

boot = sys.argv[1]
failures = 0


def check(cond, what):
    global failures
    print(("ok   - " if cond else "FAIL - ") + what, flush=True)
    if not cond:
        failures += 1


def producer(txn_id):
    p = Producer({"bootstrap.servers": boot, "transactional.id": txn_id, "transaction.timeout.ms": 60000,
                  "linger.ms": 5})
    p.init_transactions(30)
    return p


def consume(topic, isolation, want, timeout=20.0):
    """Values per partition until `want` records arrived (then 0.5 s more for any extra), or timeout."""
    c = Consumer({"bootstrap.servers": boot, "group.id": "g-" + uuid.uuid4().hex[:8], "isolation.level": isolation,
                  "auto.offset.reset": "earliest", "enable.auto.commit": False})
    c.subscribe([topic])
    got, n, end, quiet = {}, 0, time.time() + timeout, None
    while time.time() < end:
        m = c.poll(0.2)
        if m is None:
            if n >= want and quiet is None:
                quiet = time.time() + 0.5
            if quiet and time.time() > quiet:
                break
            continue
        if m.error():
            continue
        got.setdefault(m.partition(), []).append(m.value().decode())
        n += 1
    c.close()
    return got


def main():
    topic = "py-txn-" + uuid.uuid4().hex[:8]
    admin = AdminClient({"bootstrap.servers": boot})
    admin.create_topics([NewTopic(topic, num_partitions=3, replication_factor=1)])[topic].result(timeout=30)
    time.sleep(0.5)
    p = producer("py-txn-a-" + topic)
    committed, everything = {}, {}
    for t in range(12):
        p.begin_transaction()
        for i in range(30):
            v = "t%02d-%02d" % (t, i)
            p.produce(topic, value=v, partition=i % 3)
            everything.setdefault(i % 3, []).append(v)
            if t % 2 == 0:
                committed.setdefault(i % 3, []).append(v)
        if t % 2 == 0:
            p.commit_transaction(30)
        else:
            p.flush(10)  # in the log before the abort (an abort purges what is not sent yet)
            p.abort_transaction(30)
    check(True, "12 transactions (6 committed, 6 aborted)")
    rc = consume(topic, "read_committed", 180)
    check(rc == committed, "read_committed: exactly the 180 committed records, in order per partition")
    ru = consume(topic, "read_uncommitted", 360)
    check(ru == everything, "read_uncommitted: all 360 records, in order per partition")

    q = producer("py-txn-b-" + topic)
    q.begin_transaction()
    for i in range(3):
        q.produce(topic, value="open-%d" % i, partition=0)
    q.flush(10)
    p.begin_transaction()
    for i in range(3):
        p.produce(topic, value="late-%d" % i, partition=i)
    p.commit_transaction(30)
    rc = consume(topic, "read_committed", 182, timeout=6)
    p0 = rc.get(0, [])
    check(not any(v.startswith(("late", "open")) for v in p0),
          "read_committed: partition 0 stops at the open transaction (no late-0, no open-*)")
    check(rc.get(1, [])[-1:] == ["late-1"] and rc.get(2, [])[-1:] == ["late-2"],
          "read_committed: the other partitions deliver the later commit")
    q.abort_transaction(30)
    rc = consume(topic, "read_committed", 183)
    check(rc.get(0, [])[-1:] == ["late-0"] and not any(v.startswith("open") for v in rc.get(0, [])),
          "read_committed after the abort: late-0 delivered, open-* never")
    print("done", flush=True)
    sys.exit(1 if failures else 0)


try:
    main()
except KafkaException as e:
    print("FAIL - %s" % e, flush=True)
    sys.exit(1)
