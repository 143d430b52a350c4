#!/usr/bin/env python3
"""Interop: confluent-kafka ShareConsumers (librdkafka share consumer) against a broker.

  share_consume_client.py HOST:PORT [N] [PARTITIONS]
Creates a topic, produces N records, sets share.auto.offset.reset=earliest on a fresh
share group (raw IncrementalAlterConfigs, share_fetch_wire.py), then two ShareConsumers
in explicit mode drain it, acknowledging every record with ACCEPT and committing.
Exit 0 when every record was received exactly once (across both consumers); prints a one-line
summary last, with the records per consumer. Both usually receive some, but not always: when the
second consumer's join takes longer than the first one's drain (a loaded machine), the first
takes everything, on Apache Kafka as on gregord (see test_share_first_fetch.sh for the split).
"""
import os
import sys
import threading
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kwire  # noqa: E402
import share_fetch_wire as sfw  # noqa: E402
from confluent_kafka import Producer, ShareConsumer  # noqa: E402

try:
    from confluent_kafka import AcknowledgeType
    ACCEPT = AcknowledgeType.ACCEPT
except ImportError:  # older layout
    ACCEPT = 1


def main():
    boot = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    parts = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    topic = "share-interop-%s" % uuid.uuid4().hex[:6]
    group = "share-interop-g-%s" % uuid.uuid4().hex[:6]
    c = kwire.Conn(boot)
    err, _ = kwire.create_topic(c, topic, parts)
    assert err == 0, "create topic: %d" % err
    err, msg = sfw.set_group_configs(c, group, {"share.auto.offset.reset": "earliest"})
    assert err == 0, "group configs: %d %s" % (err, msg)
    p = Producer({"bootstrap.servers": boot, "linger.ms": 5})
    for i in range(n):
        p.produce(topic, value=b"r%06d" % i, key=b"%d" % i, partition=i % parts)
    assert p.flush(30) == 0, "produce did not finish"

    seen, lock, stop = {}, threading.Lock(), threading.Event()
    per, errors = [0, 0], []

    def run(idx):
        sc = ShareConsumer({"bootstrap.servers": boot, "group.id": group, "share.acknowledgement.mode": "explicit",
                            "client.id": "sc%d" % idx})
        try:
            sc.subscribe([topic])
            while not stop.is_set():
                msgs = sc.poll(1.0)
                for m in msgs:
                    if m.error():
                        errors.append(str(m.error()))
                        continue
                    with lock:
                        k = (m.partition(), m.offset())
                        seen[k] = seen.get(k, 0) + 1
                        per[idx] += 1
                    sc.acknowledge(m, ACCEPT)
                if msgs:
                    res = sc.commit_sync(30)
                    for tp, e in (res or {}).items():
                        if e is not None:
                            errors.append("commit %s: %s" % (tp, e))
                with lock:
                    if len(seen) >= n:
                        stop.set()
        except Exception as e:  # noqa: BLE001
            errors.append("consumer %d: %r" % (idx, e))
            stop.set()
        finally:
            sc.close()

    th = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    t0 = time.time()
    for t in th:
        t.start()
    while not stop.is_set() and time.time() - t0 < 120:
        time.sleep(0.2)
    stop.set()
    for t in th:
        t.join(60)
    dups = sum(1 for v in seen.values() if v > 1)
    summary = "%d/%d records, %d duplicates, per consumer %s, %.1f s, errors %s" % (
        len(seen), n, dups, per, time.time() - t0, errors[:3])
    print(summary)
    ok = len(seen) == n and dups == 0 and not errors
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
