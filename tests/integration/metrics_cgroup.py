#!/usr/bin/env python3
"""Exact checks of the consumer-group metrics of GET /metrics (docs/metrics.md, "Consumer groups").

Used by tests/integration/test_metrics_cgroup.sh (gregord with admin.listener,
group.initial.rebalance.delay.ms=100).

  metrics_cgroup.py HOST:PORT http://ADMIN_HOST:ADMIN_PORT run
  metrics_cgroup.py HOST:PORT http://ADMIN_HOST:ADMIN_PORT cap   (restarted with metrics.partition.series.max=1)

run: a real confluent-kafka consumer group on a 2-partition topic: one member consumes and
commits, records are produced, a second member joins, one commits an explicit offset, the
second leaves, the first closes; a simple (generation -1) group commits; DeleteGroups removes
the first group. After each step the group's members, state set, generation and completed
rebalances, the committed offset and lag of every partition (log end offset - committed),
the groups by state and the offset-commit count are compared with their exact values.
cap: the groups left from run plus two new ones under a cap of 1: one group and one committed
offset get series, the rest are counted in gregor_metrics_series_dropped.
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kwire as kw  # noqa: E402
from kwire import check  # noqa: E402
import metrics_share as ms  # noqa: E402  (its Scrape parses a whole page with prometheus_client)
from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

TOPIC = "mc"
STATES = ("Empty", "PreparingRebalance", "CompletingRebalance", "Stable", "Dead", "Assigning", "Reconciling")


def produce(bs, counts):
    p = Producer({"bootstrap.servers": bs, "acks": "all"})
    for part, n in enumerate(counts):
        for i in range(n):
            p.produce(TOPIC, value=b"v%d" % i, partition=part)
    check("produced %s" % (counts,), p.flush(30) == 0)


def consumer(bs, group):
    return Consumer({"bootstrap.servers": bs, "group.id": group, "auto.offset.reset": "earliest",
                     "enable.auto.commit": False, "session.timeout.ms": 6000, "heartbeat.interval.ms": 300})


def group_view(s, g):
    """(members, generation, rebalances, current states) of group g in scrape s."""
    cur = [st for st in STATES if s.get("gregor_consumer_group_state", group=g, state=st) == 1]
    return (s.get("gregor_consumer_group_members", group=g), s.get("gregor_consumer_group_generation", group=g),
            s.get("gregor_consumer_group_rebalances_total", group=g), cur)


def offsets_view(s, g):
    """{partition: (committed, lag)} of group g on TOPIC."""
    out = {}
    for p in (0, 1):
        lab = dict(group=g, topic=TOPIC, partition=p)
        c, lag = s.get("gregor_consumer_group_committed_offset", **lab), s.get("gregor_consumer_group_lag", **lab)
        if c is not None or lag is not None:
            out[p] = (c, lag)
    return out


def by_state(s):
    return {st: s.get("gregor_consumer_groups", state=st) for st in STATES}


def states(**nonzero):
    return {st: nonzero.get(st, 0) for st in STATES}


def poll_until(consumers, cond, timeout=30):
    """Poll every consumer (serving rebalances) until cond() holds; cond's last value."""
    deadline, got = time.time() + timeout, False
    while time.time() < deadline:
        for c in consumers:
            c.poll(0.05)
        got = cond()
        if got:
            break
    return got


def stable_with(g, members):
    def cond():
        s = ms.Scrape()
        v = group_view(s, g)
        return v[0] == members and v[3] == ["Stable"]
    return cond


def check_lag_consistent(s, what, g):
    """The lag is the log end offset (gregor_partition_log_end_offset) minus the committed offset."""
    for p, (c, lag) in offsets_view(s, g).items():
        leo = s.get("gregor_partition_log_end_offset", topic=TOPIC, partition=p)
        check("%s: p%d lag %s = log end offset %s - committed %s" % (what, p, lag, leo, c), lag == leo - c)


def t_run(bs):
    admin = AdminClient({"bootstrap.servers": bs})
    for f in admin.create_topics([NewTopic(TOPIC, 2, 1)]).values():
        f.result(30)
    produce(bs, [10, 10])
    s = ms.Scrape()
    check("before any group: families present, no sample, groups 0, commits 0",
          s.types.get("gregor_consumer_group_lag") == "gauge"
          and s.types.get("gregor_consumer_group_rebalances") == "counter"
          and not s.with_label("group", "gm") and by_state(s) == states()
          and s.get("gregor_offset_commits_total") == 0, (by_state(s), s.get("gregor_offset_commits_total")))

    # 1. one member consumes all 20 records and commits (10, 10)
    a = consumer(bs, "gm")
    a.subscribe([TOPIC])
    got = []

    def take_all():
        m = a.poll(0.2)
        if m is not None and not m.error():
            got.append(m)
        return len(got) >= 20
    check("member a consumed the 20 records", poll_until([], take_all), len(got))
    check("a alone: Stable with 1 member", poll_until([a], stable_with("gm", 1)))
    a.commit(asynchronous=False)
    s = ms.Scrape()
    check("a alone: members 1, generation 1, rebalances 1, state Stable", group_view(s, "gm") == (1, 1, 1, ["Stable"]),
          group_view(s, "gm"))
    check("a committed: offsets (10, 10), lag (0, 0)", offsets_view(s, "gm") == {0: (10, 0), 1: (10, 0)},
          offsets_view(s, "gm"))
    check("offset commits 2 (one per partition)", s.get("gregor_offset_commits_total") == 2,
          s.get("gregor_offset_commits_total"))
    check("groups by state: Stable 1", by_state(s) == states(Stable=1), by_state(s))

    # 2. produce 5 and 3 more: the lag follows the log end offset, the committed offset stays
    produce(bs, [5, 3])
    s = ms.Scrape()
    check("after producing 5 and 3: lag (5, 3)", offsets_view(s, "gm") == {0: (10, 5), 1: (10, 3)},
          offsets_view(s, "gm"))
    check_lag_consistent(s, "after producing", "gm")

    # 3. a second member joins: one more completed rebalance, generation 2
    b = consumer(bs, "gm")
    b.subscribe([TOPIC])
    check("a and b: Stable with 2 members, one partition each",
          poll_until([a, b], lambda: len(a.assignment()) == 1 and len(b.assignment()) == 1
                     and stable_with("gm", 2)()))
    s = ms.Scrape()
    check("a and b: members 2, generation 2, rebalances 2, state Stable", group_view(s, "gm") == (2, 2, 2, ["Stable"]),
          group_view(s, "gm"))
    check("the state set has one sample per state",
          len([k for k in s.with_label("group", "gm") if k[0] == "gregor_consumer_group_state"]) == len(STATES))
    res = a.commit(offsets=[TopicPartition(TOPIC, 0, 12)], asynchronous=False)
    check("a commits p0 = 12 in generation 2", res and res[0].error is None, res)
    s = ms.Scrape()
    check("after the commit: offsets (12, 10), lag (3, 3)", offsets_view(s, "gm") == {0: (12, 3), 1: (10, 3)},
          offsets_view(s, "gm"))
    check("offset commits 3", s.get("gregor_offset_commits_total") == 3, s.get("gregor_offset_commits_total"))

    # 4. b leaves (LeaveGroup on close): the group rebalances to a alone
    b.close()
    check("b left: a holds both partitions, Stable with 1 member",
          poll_until([a], lambda: len(a.assignment()) == 2 and stable_with("gm", 1)()))
    s = ms.Scrape()
    check("after b left: members 1, generation 3, rebalances 3", group_view(s, "gm") == (1, 3, 3, ["Stable"]),
          group_view(s, "gm"))

    # 5. a closes: the join phase ends Empty (generation 4), no completed rebalance
    a.close()
    check("a left: Empty", poll_until([], lambda: group_view(ms.Scrape(), "gm")[3] == ["Empty"]))
    s = ms.Scrape()
    check("Empty: members 0, generation 4, rebalances still 3", group_view(s, "gm") == (0, 4, 3, ["Empty"]),
          group_view(s, "gm"))
    check("Empty: committed offsets and lag kept", offsets_view(s, "gm") == {0: (12, 3), 1: (10, 3)},
          offsets_view(s, "gm"))
    check("groups by state: Empty 1", by_state(s) == states(Empty=1), by_state(s))

    # 6. a simple group (generation -1, no membership) commits p1 = 1
    c = consumer(bs, "gs")
    res = c.commit(offsets=[TopicPartition(TOPIC, 1, 1)], asynchronous=False)
    c.close()
    check("simple group gs commits p1 = 1", res and res[0].error is None, res)
    s = ms.Scrape()
    check("gs: offset 1, lag 12; no series for p0", offsets_view(s, "gs") == {1: (1, 12)}, offsets_view(s, "gs"))
    check("gs: members 0, generation 0, rebalances 0, Empty", group_view(s, "gs") == (0, 0, 0, ["Empty"]),
          group_view(s, "gs"))
    check("groups by state: Empty 2; offset commits 4",
          by_state(s) == states(Empty=2) and s.get("gregor_offset_commits_total") == 4,
          (by_state(s), s.get("gregor_offset_commits_total")))
    check_lag_consistent(s, "gs", "gs")

    # 7. DeleteGroups: every series of gm goes, gs stays
    for _, f in admin.delete_consumer_groups(["gm"], request_timeout=20).items():
        try:
            f.result(20)
            check("DeleteGroups gm", True)
        except KafkaException as e:
            check("DeleteGroups gm", False, e)
    s = ms.Scrape()
    check("after DeleteGroups: no series with group=gm", not s.with_label("group", "gm"), s.with_label("group", "gm"))
    check("after DeleteGroups: gs kept, groups by state Empty 1",
          offsets_view(s, "gs") == {1: (1, 12)} and by_state(s) == states(Empty=1), (offsets_view(s, "gs"), by_state(s)))
    check("nothing dropped under the default cap",
          (s.get("gregor_metrics_series_dropped", kind="consumer_group"),
           s.get("gregor_metrics_series_dropped", kind="consumer_group_partition")) == (0, 0))


def t_cap(bs):
    """Restarted with metrics.partition.series.max=1: gs (loaded, 1 offset) + gc1 (2) + gc2 (1)."""
    c = consumer(bs, "gc1")
    res = c.commit(offsets=[TopicPartition(TOPIC, 0, 4), TopicPartition(TOPIC, 1, 5)], asynchronous=False)
    c.close()
    c = consumer(bs, "gc2")
    res += c.commit(offsets=[TopicPartition(TOPIC, 0, 6)], asynchronous=False)
    c.close()
    check("gc1 and gc2 committed", all(r.error is None for r in res), res)
    s = ms.Scrape()
    rows = [dict(k[1]) for k in s.samples if k[0] == "gregor_consumer_group_committed_offset"]
    check("cap 1: one committed-offset series, the first in (group, topic, partition) order",
          rows == [dict(group="gc1", topic=TOPIC, partition="0")], rows)
    check("cap 1: its lag 15 - 4 = 11", s.get("gregor_consumer_group_lag", group="gc1", topic=TOPIC, partition=0) == 11)
    members = [dict(k[1])["group"] for k in s.samples if k[0] == "gregor_consumer_group_members"]
    check("cap 1: one group's series (gc1)", members == ["gc1"], members)
    check("cap 1: dropped consumer_group 2, consumer_group_partition 3",
          (s.get("gregor_metrics_series_dropped", kind="consumer_group"),
           s.get("gregor_metrics_series_dropped", kind="consumer_group_partition")) == (2, 3),
          (s.get("gregor_metrics_series_dropped", kind="consumer_group"),
           s.get("gregor_metrics_series_dropped", kind="consumer_group_partition")))
    check("cap 1: groups by state still counts all 3 (gs loaded from the store)", by_state(s) == states(Empty=3),
          by_state(s))
    check("offset commits since the restart: 3", s.get("gregor_offset_commits_total") == 3,
          s.get("gregor_offset_commits_total"))


def main():
    bs, ms.ADMIN, what = sys.argv[1], sys.argv[2].rstrip("/"), sys.argv[3]
    {"run": t_run, "cap": t_cap}[what](bs)
    sys.exit(1 if kw.FAILED else 0)


if __name__ == "__main__":
    main()
