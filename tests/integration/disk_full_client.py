"""Producer and checker for test_disk_full.sh (confluent-kafka).

usage: disk_full_client.py BOOTSTRAP TOPIC ACKED_FILE MODE [N]
  fill    create TOPIC (2 partitions, segment.bytes 1 MiB, segment.ms 1 s) if needed, then produce
          acks=all without retries until 30 consecutive messages have failed (or
          N, default 20000, were sent). Prints "acked A failed F codes ..." on stdout.
  more    produce N messages (acks=all, no retries); all must be acknowledged.
  refused produce N messages (acks=all, no retries); all must fail with KAFKA_STORAGE_ERROR.
  retry   produce N messages with the producer's default retries (message.timeout.ms
          60 s) while the disk is full: 56 is retriable, so once space returns every
          message must be acknowledged.
  verify  read every partition from offset 0 to its end: every record must be one
          that was acknowledged, at the offset it was acknowledged with, with its
          exact value, and every acknowledged record must be there (offsets 0..end-1,
          no gaps, nothing else).
Every acknowledged message is appended to ACKED_FILE as "partition offset id" once
its delivery report arrived; the value of message id is value_of(id).
"""
import hashlib
import sys

from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic


def value_of(i):
    size = 300 + (i * 7919) % 2700
    blob = hashlib.sha256(b"%d" % i).hexdigest()
    return ("v%08d:" % i + blob * (size // 64 + 1))[:size].encode()


def next_id(acked_path):
    n = 0
    try:
        with open(acked_path) as f:
            for line in f:
                n = max(n, int(line.split()[2]) + 1)
    except FileNotFoundError:
        pass
    return n + 100000 if n else 0  # ids of failed messages are never reused


def produce(bootstrap, topic, acked_path, limit, stop_after_failures, retries=0):
    acked = open(acked_path, "a", buffering=1)
    st = {"acked": 0, "failed": 0, "run": 0, "codes": {}}

    def on_delivery(err, msg):
        if err is None:
            acked.write("%d %d %s\n" % (msg.partition(), msg.offset(), msg.key().decode()))
            st["acked"] += 1
            st["run"] = 0
        else:
            st["failed"] += 1
            st["run"] += 1
            st["codes"][err.name()] = st["codes"].get(err.name(), 0) + 1

    conf = {"bootstrap.servers": bootstrap, "acks": "all", "enable.idempotence": False,
            "message.send.max.retries": 0, "linger.ms": 1, "message.timeout.ms": 30000, "batch.num.messages": 8}
    if retries:  # idempotent: retried batches are never appended twice
        conf.update({"enable.idempotence": True, "message.timeout.ms": 60000, "retry.backoff.ms": 100,
                     "batch.num.messages": 10000, "linger.ms": 5})
        del conf["message.send.max.retries"]
    p = Producer(conf)
    i0 = next_id(acked_path)
    for i in range(i0, i0 + limit):
        p.produce(topic, key=b"%d" % i, value=value_of(i), on_delivery=on_delivery)
        if not retries and (i - i0) % 8 == 7:
            p.flush(30)
            if stop_after_failures and st["run"] >= stop_after_failures:
                break
    left = p.flush(90 if retries else 30)
    acked.close()
    codes = " ".join("%s=%d" % kv for kv in sorted(st["codes"].items()))
    print("acked %d failed %d unflushed %d codes %s" % (st["acked"], st["failed"], left, codes or "-"))
    return st, left


def verify(bootstrap, topic, acked_path):
    want = {}
    with open(acked_path) as f:
        for line in f:
            part, off, i = (int(x) for x in line.split())
            want[(part, off)] = i
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "disk-full-verify", "enable.auto.commit": False,
                  "check.crcs": True, "fetch.error.backoff.ms": 100})
    parts = sorted(c.list_topics(topic, timeout=30).topics[topic].partitions)
    bad, seen = [], 0
    for part in parts:
        lo, hi = c.get_watermark_offsets(TopicPartition(topic, part), timeout=30)
        n_want = sum(1 for (p, _) in want if p == part)
        if lo != 0 or hi != n_want:
            bad.append("partition %d: offsets [%d, %d), %d acknowledged" % (part, lo, hi, n_want))
        c.assign([TopicPartition(topic, part, 0)])
        off = 0
        while off < hi:
            m = c.poll(10.0)
            if m is None:
                bad.append("partition %d: nothing after offset %d (end %d)" % (part, off, hi))
                break
            if m.error():
                bad.append("partition %d: %s" % (part, m.error()))
                break
            i = want.get((part, m.offset()))
            if m.offset() != off:
                bad.append("partition %d: offset %d follows %d" % (part, m.offset(), off - 1))
            if i is None:
                bad.append("partition %d offset %d: record was never acknowledged" % (part, m.offset()))
            elif m.key() != b"%d" % i or m.value() != value_of(i):
                bad.append("partition %d offset %d: wrong content (key %r)" % (part, m.offset(), m.key()))
            seen += 1
            off = m.offset() + 1
    c.close()
    print("verified %d records in %d partitions, %d acknowledged, %d problems" % (seen, len(parts), len(want), len(bad)))
    for b in bad[:10]:
        print("  " + b)
    return not bad and seen == len(want)


def main():
    bootstrap, topic, acked_path, mode = sys.argv[1:5]
    n = int(sys.argv[5]) if len(sys.argv) > 5 else 20000
    if mode == "fill":
        admin = AdminClient({"bootstrap.servers": bootstrap})
        try:
            admin.create_topics([NewTopic(topic, num_partitions=2, replication_factor=1,
                                          config={"segment.bytes": "1048576", "segment.ms": "1000"})])[topic].result(timeout=30)
        except KafkaException as e:
            if "TOPIC_ALREADY_EXISTS" not in str(e):
                raise
        st, _ = produce(bootstrap, topic, acked_path, n, 30)
        sys.exit(0 if st["acked"] > 0 and st["failed"] > 0 else 1)
    if mode == "more":
        st, left = produce(bootstrap, topic, acked_path, n, 0)
        sys.exit(0 if st["acked"] == n and left == 0 else 1)
    if mode == "refused":
        st, left = produce(bootstrap, topic, acked_path, n, 0)
        sys.exit(0 if st["failed"] == n and st["codes"].get("KAFKA_STORAGE_ERROR") == n else 1)
    if mode == "retry":
        st, left = produce(bootstrap, topic, acked_path, n, 0, retries=1)
        sys.exit(0 if st["acked"] == n and left == 0 else 1)
    if mode == "verify":
        sys.exit(0 if verify(bootstrap, topic, acked_path) else 1)
    sys.exit(2)


main()
