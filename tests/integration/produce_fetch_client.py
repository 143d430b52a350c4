#!/usr/bin/env python3
"""Produce / Fetch / ListOffsets / DeleteRecords through confluent-kafka (librdkafka 2.x,
which uses Fetch v13+ with topic ids and flexible ListOffsets).

  produce_fetch_client.py HOST:PORT TOPIC
TOPIC must exist with 3 partitions and be empty. Prints ok/FAIL lines; exit 1 on any FAIL.
"""
import sys
import threading
import time

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, OffsetSpec

FAILED = 0
N = 3000


def check(desc, cond, detail=""):
    global FAILED
    print(("ok - %s" if cond else "FAIL - %s " + str(detail)) % desc)
    if not cond:
        FAILED += 1


def produce_all(boot, topic):
    p = Producer({"bootstrap.servers": boot, "enable.idempotence": True, "acks": "all", "linger.ms": 5,
                  "compression.type": "zstd"})
    errors = []
    base_ts = 1700000000000
    for i in range(N):
        p.produce(topic, key=b"k%d" % i, value=b"v%d" % i, partition=i % 3, timestamp=base_ts + i,
                  on_delivery=lambda err, msg: err and errors.append(err))
        p.poll(0)
    left = p.flush(30)
    check("%d idempotent zstd messages acknowledged (acks=all)" % N, left == 0 and not errors, errors[:3])


def consume_all(boot, topic):
    c = Consumer({"bootstrap.servers": boot, "group.id": "pf-client", "enable.auto.commit": False,
                  "fetch.max.bytes": 100000, "message.max.bytes": 100000,
                  "max.partition.fetch.bytes": 20000})
    c.assign([TopicPartition(topic, p, 0) for p in range(3)])
    got, deadline = set(), time.time() + 30
    while len(got) < N and time.time() < deadline:
        m = c.poll(0.5)
        if m is None or m.error():
            continue
        got.add((m.partition(), m.offset(), m.value()))
    c.close()
    ok = len(got) == N and all(v == b"v%d" % (off * 3 + p) for p, off, v in got)
    check("consumed all %d messages back, values in order per partition" % N, ok, len(got))


def list_offsets(boot, topic):
    a = AdminClient({"bootstrap.servers": boot})
    tp = TopicPartition(topic, 1)
    specs = {"earliest": OffsetSpec.earliest(), "latest": OffsetSpec.latest(),
             "max": OffsetSpec.max_timestamp(), "ts": OffsetSpec.for_timestamp(1700000000000 + 301)}
    res = {}
    for name, spec in specs.items():
        r = a.list_offsets({tp: spec}, request_timeout=10)[tp].result()
        res[name] = (r.offset, r.timestamp)
    check("AdminClient list_offsets earliest/latest", res["earliest"][0] == 0 and res["latest"][0] == N // 3, res)
    # partition 1 holds messages i = 1, 4, 7, ...: i = 3 * off + 1, timestamp base + i
    check("max_timestamp -> last record of partition 1", res["max"] == (N // 3 - 1, 1700000000000 + N - 2), res)
    check("for_timestamp(base+301) -> offset 100 (timestamp base+301)", res["ts"] == (100, 1700000000301), res)
    d = a.delete_records([TopicPartition(topic, 2, 500)], request_timeout=10)
    low = list(d.values())[0].result().low_watermark
    check("AdminClient delete_records -> low watermark 500", low == 500, low)


def long_poll(boot, topic):
    c = Consumer({"bootstrap.servers": boot, "group.id": "pf-lp", "enable.auto.commit": False,
                  "fetch.wait.max.ms": 10000})
    c.assign([TopicPartition(topic, 0, N // 3)])
    c.poll(1.0)  # let the fetch get parked
    seen = {}

    def consume():
        deadline = time.time() + 15
        while time.time() < deadline:
            m = c.poll(0.1)
            if m is not None and not m.error():
                seen["t"] = time.time()
                return

    th = threading.Thread(target=consume)
    th.start()
    time.sleep(0.5)
    p = Producer({"bootstrap.servers": boot, "linger.ms": 0})
    t0 = time.time()
    p.produce(topic, value=b"wake", partition=0)
    p.flush(10)
    th.join()
    c.close()
    dt = seen.get("t", 1e9) - t0
    check("consumer waiting in a 10 s long poll got the new message in %.0f ms" % (dt * 1000), dt < 1.0, dt)


if __name__ == "__main__":
    boot, topic = sys.argv[1], sys.argv[2]
    produce_all(boot, topic)
    consume_all(boot, topic)
    list_offsets(boot, topic)
    long_poll(boot, topic)
    sys.exit(1 if FAILED else 0)
