#!/usr/bin/env python3
"""Authorization with real principals (tests/integration/test_acl_sasl.sh): a SASL_PLAINTEXT
listener with PLAIN users admin (super user), alice and bob, the StandardAuthorizer, and
confluent-kafka clients.

  acl_sasl.py BOOT
admin (no ACL at all) creates the topic, produces, sets the share group's configs and grants
alice READ on the topic and on a share and a classic group, bob READ on a group of his own
and DESCRIBE (not READ) on alice's classic group and on a second topic. alice share-consumes and classic-consumes
(commits, committed offset read back); bob gets GROUP_AUTHORIZATION_FAILED on alice's groups
(her ACLs are not his; on the classic group from JoinGroup, FindCoordinator passing with
DESCRIBE), sees none of its offsets (OffsetFetch leaves topics he may not DESCRIBE out), and
TOPIC_AUTHORIZATION_FAILED on the topic from his own group (consuming, committing) and as a
producer; admin consumes with no ACL. Prints "ok - " / "FAIL - " lines; exit status 1 on any
failure.
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import acl_matrix as m  # noqa: E402
import kwire as kw  # noqa: E402
import share_fetch_wire as sfw  # noqa: E402
from confluent_kafka import (Consumer, ConsumerGroupTopicPartitions, KafkaError, KafkaException, Producer,  # noqa: E402
                             ShareConsumer, TopicPartition)
from confluent_kafka.admin import AdminClient  # noqa: E402

T, T2 = "sasl-acl-t", "sasl-acl-t2"  # bob may DESCRIBE T2 (so that his consumer joins)
SHARE_G, CLASSIC_G, BOB_G, ADMIN_G = "sasl-share-g", "sasl-classic-g", "sasl-bob-g", "sasl-admin-g"
USERS = {"admin": "admin-secret", "alice": "alice-secret", "bob": "bob-secret"}
N = 20


def conf(user, **extra):
    c = {"bootstrap.servers": BOOT, "security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN",
         "sasl.username": user, "sasl.password": USERS[user]}
    c.update(extra)
    return c


def admin_conn():
    c = kw.Conn(BOOT)
    m.sasl_plain(c, "admin", USERS["admin"])
    return c


def setup():
    a = admin_conn()
    errs = [kw.create_topic(a, t, 1)[0] for t in (T, T2)]
    kw.check("admin (super user, no ACL) creates topics", errs == [0, 0], errs)
    errors = []
    p = Producer(conf("admin"))
    for i in range(N):
        p.produce(T, b"r%d" % i, on_delivery=lambda e, _m: e and errors.append(str(e)))
    left = p.flush(20)
    kw.check("admin produces %d records" % N, left == 0 and not errors, (left, errors[:2]))
    err, msg = sfw.set_group_configs(a, SHARE_G, {"share.auto.offset.reset": "earliest"})
    kw.check("admin sets the share group's configs", err == 0, (err, msg))
    acls = [(m.GROUP, SHARE_G, "User:alice", m.READ), (m.GROUP, CLASSIC_G, "User:alice", m.READ),
            (m.TOPIC, T, "User:alice", m.READ), (m.GROUP, BOB_G, "User:bob", m.READ),
            (m.GROUP, CLASSIC_G, "User:bob", m.DESCRIBE), (m.TOPIC, T2, "User:bob", m.DESCRIBE)]
    res = m.create_acls(a, [(rt, name, m.LITERAL, who, "*", op, m.ALLOW) for rt, name, who, op in acls])
    kw.check("admin grants alice READ on the topic and two groups, bob READ on his group and DESCRIBE on "
             "alice's classic group", [e for e, _m in res] == [0] * len(acls), res)
    for _ in range(200):  # Kafka applies ACLs asynchronously
        if len(m.describe_acls(a, rtype=1, ptype=1)[2]) == len(acls):
            break
        time.sleep(0.05)
    time.sleep(0.2)


def wait_error(poll, want, seconds=15):
    """Poll until the consumer reports error `want` (as a message or, from the share consumer,
    raised): want, or the codes seen instead."""
    seen, end = [], time.time() + seconds
    while time.time() < end and want not in seen:
        try:
            msgs = poll()
        except KafkaException as e:
            seen.append(e.args[0].code())
            continue
        seen += [x.error().code() for x in msgs if x is not None and x.error()]
    return want if want in seen else seen


def share_consume(user, group, want):
    sc = ShareConsumer(conf(user, **{"group.id": group}))
    got, errs, end = set(), [], time.time() + 20
    try:
        sc.subscribe([T])
        while time.time() < end and len(got) < want and not errs:
            for msg in sc.poll(0.5):
                if msg.error():
                    errs.append(msg.error().code())
                else:
                    got.add(msg.offset())
        if got:
            sc.commit_sync(10)
    finally:
        sc.close()
    return got, errs


def classic_consume(user, group, want):
    c = Consumer(conf(user, **{"group.id": group, "auto.offset.reset": "earliest", "enable.auto.commit": False}))
    got, errs, end = set(), [], time.time() + 20
    committed = None
    try:
        c.subscribe([T])
        while time.time() < end and len(got) < want and not errs:
            msg = c.poll(0.5)
            if msg is None:
                continue
            if msg.error():
                errs.append(msg.error().code())
            else:
                got.add(msg.offset())
        if got and not errs:
            c.commit(asynchronous=False)
            committed = c.committed([TopicPartition(T, 0)], 10)[0].offset
    finally:
        c.close()
    return got, errs, committed


def denied_consumer(user, group, want, topic=T):
    c = Consumer(conf(user, **{"group.id": group, "auto.offset.reset": "earliest"}))
    try:
        c.subscribe([topic])
        return wait_error(lambda: [c.poll(0.5)], want)
    finally:
        c.close()


def denied_share_consumer(user, group, want):
    sc = ShareConsumer(conf(user, **{"group.id": group}))
    try:
        sc.subscribe([T])
        return wait_error(lambda: sc.poll(0.5), want)
    finally:
        sc.close()


def denied_producer(user):
    errors = []
    p = Producer(conf(user, **{"message.timeout.ms": 5000}))
    p.produce(T, b"x", on_delivery=lambda e, _m: e and errors.append(e.code()))
    p.flush(10)
    return errors[0] if errors else None


def group_offsets(user, group):
    """AdminClient.list_consumer_group_offsets: [(topic, partition, offset)] or the error code."""
    ac = AdminClient(conf(user))
    fut = ac.list_consumer_group_offsets([ConsumerGroupTopicPartitions(group)], request_timeout=10)[group]
    try:
        return sorted((tp.topic, tp.partition, tp.offset) for tp in fut.result(15).topic_partitions)
    except KafkaException as e:
        return e.args[0].code()


def commit_denied(user, group):
    """An explicit commit of offset 5 of the topic: the partition's error code."""
    c = Consumer(conf(user, **{"group.id": group, "enable.auto.commit": False}))
    try:
        res = c.commit(offsets=[TopicPartition(T, 0, 5)], asynchronous=False)
        return res[0].error.code() if res and res[0].error else None
    except KafkaException as e:
        return e.args[0].code()
    finally:
        c.close()


def main():
    GAF, TAF = KafkaError.GROUP_AUTHORIZATION_FAILED, KafkaError.TOPIC_AUTHORIZATION_FAILED
    setup()
    got, errs = share_consume("alice", SHARE_G, N)
    kw.check("alice share-consumes all %d records (READ on group and topic)" % N, len(got) == N and not errs,
             (len(got), errs))
    got, errs, committed = classic_consume("alice", CLASSIC_G, N)
    kw.check("alice classic-consumes all %d records and commits" % N,
             len(got) == N and not errs and committed == N, (len(got), errs, committed))
    code = denied_consumer("bob", CLASSIC_G, GAF, T2)
    kw.check("bob (DESCRIBE, not READ) joining alice's classic group: GROUP_AUTHORIZATION_FAILED", code == GAF, code)
    got = group_offsets("admin", CLASSIC_G)
    kw.check("admin lists the classic group's committed offset", got == [(T, 0, N)], got)
    got = group_offsets("bob", CLASSIC_G)
    kw.check("bob (DESCRIBE on the group, not on the topic) lists its offsets: the topic is left out", got == [], got)
    code = commit_denied("bob", BOB_G)
    kw.check("bob committing an offset of the topic for his group: TOPIC_AUTHORIZATION_FAILED", code == TAF, code)
    code = denied_share_consumer("bob", SHARE_G, GAF)
    kw.check("bob (no ACL) on alice's share group: GROUP_AUTHORIZATION_FAILED", code == GAF, code)
    code = denied_consumer("bob", BOB_G, TAF)
    kw.check("bob with READ on his group only: TOPIC_AUTHORIZATION_FAILED", code == TAF, code)
    code = denied_producer("bob")
    kw.check("bob producing: TOPIC_AUTHORIZATION_FAILED", code == TAF, code)
    code = denied_producer("alice")
    kw.check("alice (READ only) producing: TOPIC_AUTHORIZATION_FAILED", code == TAF, code)
    got, errs, committed = classic_consume("admin", ADMIN_G, N)
    kw.check("admin (super user, no ACL) consumes and commits", len(got) == N and not errs and committed == N,
             (len(got), errs, committed))
    sys.exit(1 if kw.FAILED else 0)


if __name__ == "__main__":
    BOOT = sys.argv[1]
    main()
