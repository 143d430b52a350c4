#!/usr/bin/env python3
"""gregor.producer.state.max.producers on the wire (tests/integration/test_producer_state_cap.sh),
against a gregord started with the cap at 50 and an admin listener. Standard library only.

  producer_state_cap.py HOST:PORT http://ADMIN main     500 producer ids, eviction, dedup,
                                                        continue after eviction, the cap lowered
                                                        to 10, the refusal when all 10 have an
                                                        ongoing transaction; prints FINAL <pids>
  producer_state_cap.py HOST:PORT http://ADMIN restart PIDS   after a restart: the same producers

Prints "ok - ..." / "FAIL - ..." lines; exit status 1 on any FAIL.
"""
import os
import re
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kwire as kw  # noqa: E402
import produce_fetch_wire as w  # noqa: E402
import txn_coord_wire as tc  # noqa: E402
import txn_log_wire as tl  # noqa: E402
from kwire import TAGS, boolean, carr, check, cstr, i8  # noqa: E402

TOPIC = "pcap"
FIRST = 5000  # producer ids made up by the client, as Kafka accepts them
N = 500
NOT_ENOUGH_REPLICAS = 19


def metric(admin, name, **labels):
    with urllib.request.urlopen(admin + "/metrics", timeout=10) as r:
        text = r.read().decode()
    want = ",".join('%s="%s"' % kv for kv in sorted(labels.items()))
    for line in text.splitlines():
        m = re.match(r'^([a-z_]+)(?:\{(.*)\})? (\S+)$', line)
        if m and m.group(1) == name and (m.group(2) or "") == want:
            return float(m.group(3))
    return None


def producers(c):
    """DescribeProducers of pcap-0: {pid: (last seq, txn start)}."""
    (idx, err, msg, ps), = tl.describe_producers(c, TOPIC)
    assert err == 0, (err, msg)
    return {p[0]: (p[2], p[5]) for p in ps}


def idem(c, pid, seq, n=1, epoch=0):
    return w.produce(c, TOPIC, kw.batch([b"v%d" % i for i in range(n)], pid=pid, epoch=epoch, seq=seq), acks=1)


def leo(c):
    return w.list_offsets(c, TOPIC, -1)[0]["offset"]


def set_cap(c, value):
    """IncrementalAlterConfigs v1, cluster-wide default (dynamic broker config)."""
    ops = carr([("gregor.producer.state.max.producers", value)], lambda o: cstr(o[0]) + i8(0) + cstr(o[1]) + TAGS)
    r = c.call(44, 1, carr([i8(4) + cstr("") + ops + TAGS], lambda x: x) + boolean(False) + TAGS, True)
    r.i32()
    return r.carr(lambda r: (r.i16(), r.cstr(), r.i8(), r.cstr(), r.tags()))[0][0]


def fill(c, admin):
    first_base = {}
    errs = []
    for i in range(N):
        r = idem(c, FIRST + i, 0, 2)
        errs.append(r["err"])
        first_base[FIRST + i] = r["base"]
    check("%d producer ids each appended a batch" % N, errs == [0] * N, [e for e in errs if e])
    ps = producers(c)
    want = set(range(FIRST + N - 50, FIRST + N))
    check("DescribeProducers lists the cap, 50: the newest ones", set(ps) == want, sorted(ps)[:5])
    check("gregor_producer_ids is 50", metric(admin, "gregor_producer_ids") == 50)
    ev = metric(admin, "gregor_topic_producer_ids_evicted_total", topic=TOPIC)
    check("gregor_topic_producer_ids_evicted_total is %d" % (N - 50), ev == N - 50, ev)
    return first_base


def dedup_and_continue(c, admin, first_base):
    end = leo(c)
    last = FIRST + N - 1
    r = idem(c, last, 0, 2)  # the same batch again: a retry
    check("a retried batch of a tracked producer is answered with its first offset",
          r["err"] == 0 and r["base"] == first_base[last], r)
    check("... and not appended again", leo(c) == end, (leo(c), end))
    # An evicted producer goes on with its next sequence, as after producer.id.expiration.ms
    # (Kafka accepts any sequence from a producer it does not know; test_txn_log.sh shows
    # Apache Kafka 4.4.0 doing so after the expiry).
    r = idem(c, FIRST, 2, 1)
    check("an evicted producer's next batch (sequence 2) is accepted", r["err"] == 0 and r["base"] == end, r)
    ps = producers(c)
    check("it is tracked again with last sequence 2; the least recent (%d) went" % (FIRST + N - 50),
          ps.get(FIRST) == (2, -1) and FIRST + N - 50 not in ps and len(ps) == 50, sorted(ps)[:3])
    r = idem(c, FIRST + 1, 0, 2)  # the cost of forgetting: a retry after eviction is a new batch
    check("a retry of an evicted producer's batch is appended again (as after expiry)",
          r["err"] == 0 and r["base"] == end + 1, r)
    ev = metric(admin, "gregor_topic_producer_ids_evicted_total", topic=TOPIC)
    check("evictions counted: %d" % (N - 50 + 2), ev == N - 50 + 2, ev)


def lower_cap(c, admin):
    check("the cap lowered to 10 at run time (IncrementalAlterConfigs)", set_cap(c, "10") == 0)
    ps = producers(c)
    want = {FIRST + 1, FIRST} | set(range(FIRST + N - 8, FIRST + N))
    check("at once only the 10 most recent producers are kept", set(ps) == want, sorted(ps))
    check("gregor_producer_ids is 10", metric(admin, "gregor_producer_ids") == 10)


def start_txns(c, k):
    tx = kw.Conn(c.boot)  # flexible calls by default, as txn_coord_wire.py expects
    txns = []
    for i in range(k):
        tid = "pcap-txn-%d" % i
        tc.find_coordinator(tx, tid)
        _, (err, pid, epoch) = tc.init_retry(tx, tid)
        assert err == 0, err
        assert tc.add_partitions(tx, tid, pid, epoch, {TOPIC: [0]}) == {(TOPIC, 0): 0}
        r = w.produce(c, TOPIC, kw.batch([b"t"], pid=pid, epoch=epoch, seq=0, transactional=True), acks=-1,
                      txn_id=tid)
        assert r["err"] == 0, r
        txns.append((tid, pid, epoch))
    return tx, txns


def refusal(c, admin):
    tx, txns = start_txns(c, 10)
    ps = producers(c)
    check("10 ongoing transactions fill the cap", len(ps) == 10 and all(s >= 0 for _, s in ps.values()), ps)
    end = leo(c)
    r = idem(c, 9999, 0)
    check("a new producer is refused with NOT_ENOUGH_REPLICAS (retriable) naming the setting",
          r["err"] == NOT_ENOUGH_REPLICAS and "gregor.producer.state.max.producers=10" in (r["msg"] or ""), r)
    check("... nothing appended, nothing tracked", leo(c) == end and 9999 not in producers(c))
    check("gregor_topic_producer_ids_refused_total counts it",
          metric(admin, "gregor_topic_producer_ids_refused_total", topic=TOPIC) == 1)
    tid, pid, epoch = txns[0]
    check("one transaction aborted", tc.end_txn(tx, tid, pid, epoch, False) == 0)
    deadline = time.time() + 10
    while time.time() < deadline:  # the markers are written after EndTxn's answer
        r = idem(c, 9999, 0)
        if r["err"] != NOT_ENOUGH_REPLICAS:
            break
        time.sleep(0.1)
    ps = producers(c)
    check("then the retried batch is accepted and evicts the producer whose transaction ended",
          r["err"] == 0 and 9999 in ps and pid not in ps and len(ps) == 10, (r, sorted(ps)))
    print("FINAL " + ",".join(str(p) for p in sorted(ps)))


def main():
    boot, admin, phase = sys.argv[1], sys.argv[2], sys.argv[3]
    c = w.Conn(boot)
    c.boot = boot
    if phase == "main":
        for _ in range(50):
            err = w.create_topic(c, TOPIC)
            if err in (0, 36):
                break
            time.sleep(0.2)
        first_base = fill(c, admin)
        dedup_and_continue(c, admin, first_base)
        lower_cap(c, admin)
        refusal(c, admin)
    else:
        want = sorted(int(x) for x in sys.argv[4].split(","))
        ps = producers(c)
        check("after a restart: the same 10 producers (9 ongoing transactions) from the snapshot and log",
              sorted(ps) == want and sum(1 for _, s in ps.values() if s >= 0) == 9, (sorted(ps), want))
    sys.exit(1 if kw.FAILED else 0)


if __name__ == "__main__":
    main()
