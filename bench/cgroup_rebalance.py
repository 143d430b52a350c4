#!/usr/bin/env python3
"""Rebalance latency of a consumer group: the time from a member leaving to the remaining member
consuming the partitions it left (bench/cgroup.sh).

  cgroup_rebalance.py BOOTSTRAP TOPIC PARTITIONS PROTOCOL ROUNDS

PROTOCOL is classic or consumer (KIP-848), passed to confluent-kafka (librdkafka) as
group.protocol; everything else is the client's default (classic: the range assignor and a
3 s heartbeat; consumer: the broker's assignor and heartbeat interval). Each round: a producer
thread writes 2,000 records/s round-robin to every partition; members A and B join a new group
(earliest offsets) and consume; once each owns partitions and has received records from all of
them, B closes (LeaveGroup / leave heartbeat) at t0, and t1 is the moment A first receives a record
of a partition that B owned. Prints one JSON line per round, then a summary line:
{"protocol": ..., "rounds": [ms, ...], "median_ms": ...}. Exit 1 if a round does not finish in 60 s.
"""
import json
import statistics
import sys
import threading
import time
import uuid

from confluent_kafka import Consumer, Producer


def producer_loop(boot, topic, parts, stop):
    p = Producer({"bootstrap.servers": boot, "linger.ms": 1})
    i = 0
    next_t = time.monotonic()
    while not stop.is_set():
        try:
            p.produce(topic, value=b"x" * 100, partition=i % parts)
        except BufferError:  # the broker is gone or slow: wait, never block the rounds
            p.poll(0.1)
            continue
        i += 1
        next_t += 1 / 2000
        p.poll(0)
        d = next_t - time.monotonic()
        if d > 0:
            time.sleep(d)
    p.flush(5)


def one_round(boot, topic, parts, protocol):
    group = "rebal-%s-%s" % (protocol, uuid.uuid4().hex[:8])
    conf = {"bootstrap.servers": boot, "group.id": group, "auto.offset.reset": "earliest",
            "group.protocol": protocol}
    a, b = Consumer(dict(conf, **{"client.id": "A"})), Consumer(dict(conf, **{"client.id": "B"}))
    a.subscribe([topic])
    b.subscribe([topic])
    seen = {"A": set(), "B": set()}
    deadline = time.monotonic() + 60
    # Both members consuming, each from every partition it owns.
    while time.monotonic() < deadline:
        for name, c in (("A", a), ("B", b)):
            m = c.poll(0.05)
            if m is not None and not m.error():
                seen[name].add(m.partition())
        own_a = {tp.partition for tp in a.assignment()}
        own_b = {tp.partition for tp in b.assignment()}
        if own_a and own_b and not own_a & own_b and own_a <= seen["A"] and own_b <= seen["B"]:
            break
    else:
        a.close()
        b.close()
        return None
    b_parts = {tp.partition for tp in b.assignment()}
    t0 = time.monotonic()
    b.close()
    t1 = None
    while time.monotonic() < deadline:
        m = a.poll(0.01)
        if m is not None and not m.error() and m.partition() in b_parts:
            t1 = time.monotonic()
            break
    a.close()
    return None if t1 is None else (t1 - t0) * 1000


def main():
    boot, topic, parts, protocol, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
    stop = threading.Event()
    prod = threading.Thread(target=producer_loop, args=(boot, topic, parts, stop))
    prod.start()
    res = []
    try:
        for r in range(rounds):
            ms = one_round(boot, topic, parts, protocol)
            if ms is None:
                print(json.dumps({"protocol": protocol, "round": r, "error": "did not finish in 60 s"}), flush=True)
                sys.exit(1)
            res.append(round(ms, 1))
            print(json.dumps({"protocol": protocol, "round": r, "latency_ms": res[-1]}), flush=True)
    finally:
        stop.set()
        prod.join()
    print(json.dumps({"protocol": protocol, "rounds": res, "median_ms": statistics.median(res)}))


if __name__ == "__main__":
    main()
