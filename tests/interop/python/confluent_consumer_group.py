#!/usr/bin/env python3
"""confluent-kafka (librdkafka) with group.protocol=consumer (KIP-848): two members split a
4-partition topic 2/2, one leaves and the other takes all 4 over with every record consumed,
commit, and a new member resumes at the committed offsets
(tests/interop/test_confluent_consumer_group.sh). Prints ok/FAIL lines; exit 1 on a failure.

  confluent_consumer_group.py BOOTSTRAP PREFIX"""
import sys
import time

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer
from confluent_kafka.admin import AdminClient, NewTopic

BOOT, PREFIX = sys.argv[1], sys.argv[2]
TOPIC, GROUP = PREFIX + "-t", PREFIX + "-g"
bad = 0


def check(cond, what):
    global bad
    print(("ok   - " if cond else "FAIL - ") + what, flush=True)
    bad += not cond


def produce(n, tag):
    p = Producer({"bootstrap.servers": BOOT})
    for part in range(4):
        for i in range(n):
            p.produce(TOPIC, value=b"%s-%d-%d" % (tag, part, i), partition=part)
    p.flush()


def consumer():
    return Consumer({"bootstrap.servers": BOOT, "group.id": GROUP, "group.protocol": "consumer",
                     "auto.offset.reset": "earliest", "enable.auto.commit": False})


def poll_until(cs, seen, secs, cond):
    end = time.time() + secs
    while time.time() < end:
        for c in cs:
            m = c.poll(0.05)
            if m is not None and not m.error():
                seen.add(m.value())
        if cond():
            return True
    return False


def commit(c):
    try:
        c.commit(asynchronous=False)
    except KafkaException as e:  # a member that consumed nothing yet has nothing to commit
        if e.args[0].code() != KafkaError._NO_OFFSET:
            raise


def main():
    admin = AdminClient({"bootstrap.servers": BOOT})  # kept alive until the topic exists
    for f in admin.create_topics([NewTopic(TOPIC, 4, 1)]).values():
        f.result()
    time.sleep(1.5)  # Kafka's coordinator sees a new topic a moment after CreateTopics answers
    produce(50, b"v")
    c1, c2 = consumer(), consumer()
    c1.subscribe([TOPIC])
    c2.subscribe([TOPIC])
    seen = set()
    split = poll_until([c1, c2], seen, 40, lambda: len(c1.assignment()) == 2 and len(c2.assignment()) == 2)
    parts = sorted(tp.partition for tp in c1.assignment() + c2.assignment())
    check(split and parts == [0, 1, 2, 3], "two members split 4 partitions 2/2 (%s)" % parts)
    commit(c2)
    c2.close()
    done = poll_until([c1], seen, 40, lambda: len(c1.assignment()) == 4 and len(seen) == 200)
    check(done, "the remaining member takes all 4 partitions and every record (%d of 200)" % len(seen))
    commit(c1)
    c1.close()
    produce(2, b"late")
    c3 = consumer()
    c3.subscribe([TOPIC])
    after = set()
    poll_until([c3], after, 30, lambda: len(after) >= 8)
    poll_until([c3], after, 1, lambda: False)  # nothing more may come
    check(len(after) == 8 and all(v.startswith(b"late") for v in after),
          "a new member resumes at the committed offsets (%d records)" % len(after))
    c3.close()
    print("done")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
