"""confluent-kafka (librdkafka) interop: admin create, produce N (idempotent, acks=all), consume back.

usage: produce_consume.py BOOTSTRAP [N]
Prints one line per check ("ok - ..." / "FAIL - ..."); exit status 1 on any failure.
"""
import sys
import time
import uuid

from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

bootstrap = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
failures = 0


def check(cond, what):
    global failures
    print(("ok   - " if cond else "FAIL - ") + what, flush=True)
    if not cond:
        failures += 1


topic = "py-" + uuid.uuid4().hex[:8]
admin = AdminClient({"bootstrap.servers": bootstrap})
fs = admin.create_topics([NewTopic(topic, num_partitions=3, replication_factor=1)], operation_timeout=30)
try:
    fs[topic].result(timeout=30)
    check(True, "create topic %s with 3 partitions" % topic)
except KafkaException as e:
    check(False, "create topic: %s" % e)
    sys.exit(1)

md = admin.list_topics(topic=topic, timeout=30)
check(topic in md.topics and len(md.topics[topic].partitions) == 3, "metadata shows 3 partitions")

acked, errors = [0], []


def on_delivery(err, msg):
    if err is not None:
        errors.append(str(err))
    else:
        acked[0] += 1


p = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True, "acks": "all",
              "linger.ms": 5, "compression.type": "lz4"})
sent = {}
t0 = time.time()
for i in range(n):
    k = "k%07d" % i
    v = ("v%07d-" % i) + "x" * (i % 97)
    sent[k] = v
    while True:
        try:
            p.produce(topic, key=k, value=v, on_delivery=on_delivery)
            break
        except BufferError:
            p.poll(0.05)
    p.poll(0)
left = p.flush(60)
check(left == 0 and not errors and acked[0] == n,
      "produced %d messages, %d acknowledged, %d errors (%.1f s)" % (n, acked[0], len(errors), time.time() - t0))
if errors:
    print("  first error: %s" % errors[0])

c = Consumer({"bootstrap.servers": bootstrap, "group.id": "py-" + topic, "auto.offset.reset": "earliest",
              "enable.auto.commit": False, "enable.partition.eof": True})
c.assign([TopicPartition(topic, i, 0) for i in range(3)])
got, eofs, deadline = {}, set(), time.time() + 60
while len(eofs) < 3 and time.time() < deadline:
    m = c.poll(1.0)
    if m is None:
        continue
    if m.error():
        if m.error().code() == -191:  # _PARTITION_EOF
            eofs.add(m.partition())
            continue
        check(False, "consume error: %s" % m.error())
        break
    got[m.key().decode()] = m.value().decode()
c.close()
check(len(got) == n, "consumed %d of %d messages" % (len(got), n))
check(got == sent, "every key/value consumed back identical")

fs = admin.delete_topics([topic], operation_timeout=30)
try:
    fs[topic].result(timeout=30)
    check(True, "delete topic")
except KafkaException as e:
    check(False, "delete topic: %s" % e)

sys.exit(1 if failures else 0)
