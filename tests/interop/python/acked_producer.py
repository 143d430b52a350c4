"""acks=all producer that records every acknowledged message, for the kill -9 test.

usage: acked_producer.py BOOTSTRAP TOPIC ACKED_FILE STOP_FILE [RATE_PER_S] [MAX_SECONDS]
Creates TOPIC (3 partitions) if needed, then produces keyed messages until STOP_FILE
exists (or MAX_SECONDS, default 300, have passed); each
message whose delivery report is a success is appended to ACKED_FILE ("key\tvalue\n",
flushed at once) - a message is listed only after the broker acknowledged it.
Finally flushes (waits up to 90 s for outstanding messages). Prints a summary on stderr.
"""
import os
import sys
import time

from confluent_kafka import KafkaException, Producer
from confluent_kafka.admin import AdminClient, NewTopic

bootstrap, topic, acked_path, stop_path = sys.argv[1:5]
rate = float(sys.argv[5]) if len(sys.argv) > 5 else 2000.0
seconds = float(sys.argv[6]) if len(sys.argv) > 6 else 300.0

admin = AdminClient({"bootstrap.servers": bootstrap})
try:
    admin.create_topics([NewTopic(topic, num_partitions=3, replication_factor=1)])[topic].result(timeout=30)
except KafkaException as e:
    if "TOPIC_ALREADY_EXISTS" not in str(e):
        raise

acked = open(acked_path, "a", buffering=1)
stats = {"acked": 0, "failed": 0}


def on_delivery(err, msg):
    if err is None:
        acked.write("%s\t%s\n" % (msg.key().decode(), msg.value().decode()))
        acked.flush()
        stats["acked"] += 1
    else:
        stats["failed"] += 1


p = Producer({"bootstrap.servers": bootstrap, "acks": "all", "enable.idempotence": False,
              "linger.ms": 2, "message.timeout.ms": 60000, "retry.backoff.ms": 100,
              "reconnect.backoff.max.ms": 500, "socket.connection.setup.timeout.ms": 5000})
t0 = time.time()
i = 0
while time.time() - t0 < seconds and not os.path.exists(stop_path):
    # paced: at most `rate` messages per second
    while i < (time.time() - t0) * rate:
        try:
            p.produce(topic, key="k%08d" % i, value="v%08d-%s" % (i, "p" * (i % 200)), on_delivery=on_delivery)
            i += 1
        except BufferError:
            break
    p.poll(0.01)
left = p.flush(90)
acked.close()
print("acked_producer: sent %d, acked %d, failed %d, unflushed %d" % (i, stats["acked"], stats["failed"], left),
      file=sys.stderr)
sys.exit(0 if stats["acked"] > 0 else 1)
