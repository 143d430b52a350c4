"""Consume every partition of TOPIC from the beginning to the end; print "key\tvalue" lines.

usage: read_all.py BOOTSTRAP TOPIC [TIMEOUT_S]
"""
import sys
import time

from confluent_kafka import Consumer, TopicPartition

bootstrap, topic = sys.argv[1], sys.argv[2]
timeout = float(sys.argv[3]) if len(sys.argv) > 3 else 60.0
c = Consumer({"bootstrap.servers": bootstrap, "group.id": "read-all", "enable.auto.commit": False,
              "enable.partition.eof": True, "auto.offset.reset": "earliest"})
md = c.list_topics(topic, timeout=30)
parts = sorted(md.topics[topic].partitions)
c.assign([TopicPartition(topic, p, 0) for p in parts])
eof, deadline = set(), time.time() + timeout
out = sys.stdout
while len(eof) < len(parts):
    if time.time() > deadline:
        print("read_all: timed out with %d/%d partitions at end" % (len(eof), len(parts)), file=sys.stderr)
        sys.exit(1)
    m = c.poll(1.0)
    if m is None:
        continue
    if m.error():
        if m.error().code() == -191:  # _PARTITION_EOF
            eof.add(m.partition())
            continue
        print("read_all: %s" % m.error(), file=sys.stderr)
        sys.exit(1)
    eof.discard(m.partition())
    out.write("%s\t%s\n" % (m.key().decode(), m.value().decode()))
c.close()
