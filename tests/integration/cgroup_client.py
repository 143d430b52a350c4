#!/usr/bin/env python3
"""Consumer-group client checks for tests/integration/test_consumer_group.sh (confluent-kafka).

  produce BOOTSTRAP TOPIC PARTITIONS N      N records per partition, values "p<part>-<i>" (the topic
                                            is created with PARTITIONS if missing)
  resume BOOTSTRAP TOPIC GROUP              consume 30 records, commit, close; a new consumer
                                            resumes at the committed offset: prints both lists
  commits BOOTSTRAP TOPIC GROUP ACKED STOP  commit increasing offsets until STOP exists; every
                                            acknowledged commit "<partition> <offset>" into ACKED
  committed BOOTSTRAP TOPIC GROUP PARTS     print "<partition> <committed offset>" per partition
  groups BOOTSTRAP                          print "<group> <state> <simple>" per consumer group, sorted
"""
import os
import sys
import time

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic


def ensure_topic(bs, topic, parts):
    a = AdminClient({"bootstrap.servers": bs})
    for f in a.create_topics([NewTopic(topic, int(parts), 1)]).values():
        try:
            f.result(30)
        except KafkaException as e:
            if e.args[0].code() != KafkaError.TOPIC_ALREADY_EXISTS:
                raise


def produce(bs, topic, parts, n):
    ensure_topic(bs, topic, parts)
    p = Producer({"bootstrap.servers": bs, "acks": "all"})
    for part in range(int(parts)):
        for i in range(int(n)):
            p.produce(topic, value=f"p{part}-{i}".encode(), partition=part)
    if p.flush(30) != 0:
        sys.exit("produce: not everything was delivered")


def consumer(bs, group, **extra):
    conf = {"bootstrap.servers": bs, "group.id": group, "auto.offset.reset": "earliest",
            "enable.auto.commit": False, "session.timeout.ms": 10000}
    conf.update(extra)
    return Consumer(conf)


def take(c, n, timeout=30):
    out, deadline = [], time.time() + timeout
    while len(out) < n and time.time() < deadline:
        m = c.poll(0.5)
        if m is None or m.error():
            continue
        out.append(m)
    return out


def resume(bs, topic, group):
    c = consumer(bs, group)
    c.subscribe([topic])
    first = take(c, 30)
    c.commit(asynchronous=False)
    c.close()
    c = consumer(bs, group)
    c.subscribe([topic])
    rest = take(c, 10)
    c.close()
    print("first", len(first), first[-1].value().decode() if first else "-", first[-1].offset() if first else -1)
    print("resumed", rest[0].value().decode() if rest else "-", rest[0].offset() if rest else -1)


def commits(bs, topic, group, acked, stop):
    # Simple (generation -1) commits from an assign()ed consumer: no group membership needed.
    c = consumer(bs, group)
    off = 0
    with open(acked, "a", buffering=1) as f:
        while not os.path.exists(stop):
            off += 1
            tps = [TopicPartition(topic, p, off) for p in range(2)]
            try:
                res = c.commit(offsets=tps, asynchronous=False)
            except KafkaException:
                time.sleep(0.05)
                continue
            for tp in res:
                if tp.error is None:
                    f.write(f"{tp.partition} {tp.offset}\n")
    c.close()


def committed(bs, topic, group, parts):
    c = consumer(bs, group)
    for tp in c.committed([TopicPartition(topic, p) for p in range(int(parts))], timeout=20):
        print(tp.partition, tp.offset)
    c.close()


def groups(bs):
    a = AdminClient({"bootstrap.servers": bs})
    res = a.list_consumer_groups(request_timeout=20).result()
    for g in sorted(res.valid, key=lambda g: g.group_id):
        print(g.group_id, g.state.name, g.is_simple_consumer_group)


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    {"produce": produce, "resume": resume, "commits": commits, "committed": committed, "groups": groups}[cmd](*args)
