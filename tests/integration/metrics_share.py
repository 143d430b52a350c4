#!/usr/bin/env python3
"""Exact checks of the share-group metrics of GET /metrics (docs/metrics.md, "Share groups").

Used by tests/integration/test_metrics_share.sh, which starts gregord with admin.listener,
group.share.min.record.lock.duration.ms=1000, group.share.max.size=10 and
group.share.max.share.sessions=50.

  metrics_share.py HOST:PORT http://ADMIN_HOST:ADMIN_PORT drain
  metrics_share.py HOST:PORT http://ADMIN_HOST:ADMIN_PORT cap     (broker with metrics.partition.series.max=1)

drain: one member of a share group drains a 2-partition topic over raw ShareFetch /
ShareAcknowledge (kwire.py), so every acquisition, acknowledgement by type, lock expiry
(lock 1 s), delivery-limit archival (limit 2) and log-start archival (DeleteRecords) is
known exactly. /metrics is scraped while records are in flight and after, and every
counter is compared with its exact value; lag and start offset with what
DescribeShareGroupOffsets reports for every partition; the W histogram's count with
ACCEPT + REJECT + RELEASE; each scrape is parsed whole by prometheus_client. Then the
group is deleted and its series must be gone.
"""
import os
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kwire as kw  # noqa: E402
from kwire import check  # noqa: E402
import produce_fetch_wire as pfw  # noqa: E402
import share_coord_wire as scw  # noqa: E402
import share_fetch_wire as sfw  # noqa: E402
from share_fetch_wire import ACCEPT, GAP, REJECT, RELEASE, RENEW  # noqa: E402
from prometheus_client.parser import text_string_to_metric_families  # noqa: E402

ADMIN = None
LOCK_MS = 1000
LOCKS = 100  # share.partition.max.record.locks of the group
SESSIONS_LIMIT = 50


class Scrape:
    """One /metrics answer, parsed whole: samples by (name, labels)."""

    def __init__(self):
        with urllib.request.urlopen(ADMIN + "/metrics", timeout=10) as r:
            self.status = r.status
            self.text = r.read().decode("utf-8")
        self.types, self.samples = {}, {}
        for fam in text_string_to_metric_families(self.text):  # raises on any format error
            self.types[fam.name] = fam.type
            for s in fam.samples:
                self.samples[(s.name, tuple(sorted(s.labels.items())))] = s.value

    def get(self, name, **labels):
        return self.samples.get((name, tuple(sorted((k, str(v)) for k, v in labels.items()))))

    def with_label(self, key, value):
        return [k for k in self.samples if (key, value) in k[1]]


SP_COUNTERS = ["acquired", "redeliveries", "accept", "release", "reject", "renew", "gap", "timeouts",
               "a_reject", "a_delivery_limit", "a_log_start"]


def sp_values(s, group, topic, p):
    lab = dict(group=group, topic=topic, partition=p)
    v = dict(acquired=s.get("gregor_share_records_acquired_total", **lab),
             redeliveries=s.get("gregor_share_redeliveries_total", **lab),
             timeouts=s.get("gregor_share_acquisition_lock_timeouts_total", **lab))
    for t in ("accept", "release", "reject", "renew", "gap"):
        v[t] = s.get("gregor_share_acknowledgements_total", type=t, **lab)
    for r in ("reject", "delivery_limit", "log_start"):
        v["a_" + r] = s.get("gregor_share_records_archived_total", reason=r, **lab)
    return v


def check_sp(s, what, env, p, want, in_flight):
    lab = dict(group=env.group, topic=env.topic, partition=p)
    got = sp_values(s, env.group, env.topic, p)
    exp = dict(zip(SP_COUNTERS, want))
    check("%s p%d: every counter exact" % (what, p), got == exp, "got %s want %s" % (got, exp))
    check("%s p%d: in flight %d" % (what, p, in_flight),
          s.get("gregor_share_in_flight_records", **lab) == in_flight, s.get("gregor_share_in_flight_records", **lab))
    check("%s p%d: record lock limit %d" % (what, p, LOCKS),
          s.get("gregor_share_record_lock_limit", **lab) == LOCKS, s.get("gregor_share_record_lock_limit", **lab))
    n = s.get("gregor_share_in_flight_seconds_count", **lab)
    acked = exp["accept"] + exp["reject"] + exp["release"]
    check("%s p%d: W histogram count %d = ACCEPT+REJECT+RELEASE" % (what, p, acked), n == acked, n)
    inf = s.get("gregor_share_in_flight_seconds_bucket", le="+Inf", **lab)
    check("%s p%d: W +Inf bucket = count" % (what, p), inf == n, (inf, n))


def check_lag(s, c, what, env, want_lag):
    err, msg, d = scw.describe_offsets(c, env.group, None)
    check("%s: DescribeShareGroupOffsets ok" % what, err == 0, (err, msg))
    for p, lag in enumerate(want_lag):
        lab = dict(group=env.group, topic=env.topic, partition=p)
        dp = d.get((env.topic, p), {})
        got = s.get("gregor_share_partition_lag", **lab)
        if lag is None:  # nothing written yet: Describe says -1 (unknown), the metric has no series
            check("%s p%d: Describe's lag and start offset unknown (-1) before the first state write, no series"
                  % (what, p), dp.get("lag") == -1 and dp.get("start") == -1 and got is None
                  and s.get("gregor_share_partition_start_offset", **lab) is None, (dp, got))
            continue
        check("%s p%d: lag %s = DescribeShareGroupOffsets' %s (expected %d)" % (what, p, got, dp.get("lag"), lag),
              got is not None and got == dp.get("lag") == lag, dp)
        st = s.get("gregor_share_partition_start_offset", **lab)
        check("%s p%d: start offset %s = Describe's" % (what, p, st), st is not None and st == dp.get("start"), dp)


def check_group(s, c, what, env, sessions):
    g = scw.sg_describe(c, [env.group])[0]
    check("%s: members 1" % what, s.get("gregor_share_group_members", group=env.group) == 1,
          s.get("gregor_share_group_members", group=env.group))
    check("%s: group sessions %d" % (what, sessions), s.get("gregor_share_group_sessions", group=env.group) == sessions,
          s.get("gregor_share_group_sessions", group=env.group))
    check("%s: group epoch = ShareGroupDescribe's %d" % (what, g["epoch"]),
          s.get("gregor_share_group_epoch", group=env.group) == g["epoch"], s.get("gregor_share_group_epoch", group=env.group))
    check("%s: broker sessions %d, limit %d, groups 1" % (what, sessions, SESSIONS_LIMIT),
          (s.get("gregor_share_sessions"), s.get("gregor_share_sessions_limit"), s.get("gregor_share_groups"))
          == (sessions, SESSIONS_LIMIT, 1),
          (s.get("gregor_share_sessions"), s.get("gregor_share_sessions_limit"), s.get("gregor_share_groups")))


def parts(resp, env):
    return {p: sfw.counts(sfw.acquired(resp, env, p)) for p in (0, 1)}


class Member:
    """One share consumer: its connection, id and share-session epoch."""

    def __init__(self, env):
        self.env, self.c, self.m, self.epoch = env, env.conn(), sfw.member(), 0

    def fetch(self, acks=None, **kw_):
        acks = acks or {}
        r = sfw.share_fetch(self.c, self.env.group, self.m, self.epoch,
                            [(self.env.tid, [(p, acks.get(p, [])) for p in (0, 1)])], **kw_)
        check("ShareFetch epoch %d: no error" % self.epoch, r["err"] == 0, r)
        self.epoch += 1
        return r

    def ack(self, acks, renew=False, ver=1):
        a = sfw.share_ack(self.c, self.env.group, self.m, self.epoch,
                          [(self.env.tid, [(p, b) for p, b in acks.items()])], renew=renew, ver=ver)
        self.epoch += 1
        errs = {p: a["parts"].get((self.env.tid, p), {}).get("err") for p in acks}
        check("ShareAcknowledge: no error %s" % sorted(errs.items()),
              a["err"] == 0 and all(e == 0 for e in errs.values()), a)


def t_drain(boot):
    env = sfw.Env(boot, "metrics", {"share.record.lock.duration.ms": LOCK_MS, "share.delivery.count.limit": 2,
                                    "share.partition.max.record.locks": LOCKS}, partitions=2)
    env.produce(10, part=0)
    env.produce(10, part=1)
    admin = kw.Conn(boot)
    mb = Member(env)
    j = scw.join_until_assigned(admin, env.group, mb.m, [env.topic], 2)
    check("member joined with both partitions", j["err"] == 0 and j["held"] == 2, j)

    # As Kafka 4.4.0: the fetch that loads both share-partitions answers from the first loaded
    # alone, the next one from the other (test_share_first_fetch.sh).
    r = mb.fetch()
    check("first fetch: 0-9 count 1 on partition 0 alone",
          parts(r, env) == {0: {o: 1 for o in range(10)}, 1: {}}, parts(r, env))
    r = mb.fetch()
    check("second fetch: 0-9 count 1 on partition 1",
          parts(r, env) == {0: {}, 1: {o: 1 for o in range(10)}}, parts(r, env))
    s = Scrape()
    check("during: /metrics 200 and parsed", s.status == 200)
    for p in (0, 1):
        check_sp(s, "during", env, p, [10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], 10)
    check_lag(s, admin, "during", env, [None, None])
    check_group(s, admin, "during", env, 1)

    t0 = time.time()
    mb.ack({0: [(0, 3, [ACCEPT]), (4, 5, [RELEASE]), (6, 6, [REJECT]), (7, 7, [RENEW])],
            1: [(0, 4, [ACCEPT]), (5, 6, [REJECT]), (7, 7, [GAP]), (8, 9, [RELEASE])]}, renew=True, ver=2)
    mb.ack({0: [(7, 7, [ACCEPT])]})
    check("acks within the 1 s lock", time.time() - t0 < 0.8, time.time() - t0)
    time.sleep(1.6)  # p0 8-9: lock timeouts
    r = mb.fetch(max_wait=500)
    check("redelivered with count 2: p0 4,5,8,9; p1 8,9",
          parts(r, env) == {0: {4: 2, 5: 2, 8: 2, 9: 2}, 1: {8: 2, 9: 2}}, parts(r, env))
    s = Scrape()
    check_sp(s, "mid", env, 0, [14, 4, 5, 2, 1, 1, 0, 2, 1, 0, 0], 4)
    check_sp(s, "mid", env, 1, [12, 2, 5, 2, 2, 0, 1, 0, 2, 0, 0], 2)
    check_lag(s, admin, "mid", env, [4, 2])

    mb.ack({0: [(4, 5, [RELEASE])], 1: [(8, 9, [ACCEPT])]})  # p0 4-5 at the limit: archived
    time.sleep(1.6)  # p0 8-9 at the limit: lock timeouts archive them

    # The log start moves past p0's window: 10-11 held, 12 cached AVAILABLE, 13-14 not yet read.
    env.produce(5, part=0)
    r = mb.fetch(max_records=2, mode=1, ver=2)
    check("record_limit 2: p0 10-11", parts(r, env)[0] == {10: 1, 11: 1}, parts(r, env))
    d = pfw.delete_records(env.pc, env.topic, 13, part=0)
    check("DeleteRecords p0 to 13", d["err"] == 0 and d["low"] == 13, d)
    r = mb.fetch(max_wait=500)
    check("p0 13-14 after the log start moved", parts(r, env)[0] == {13: 1, 14: 1}, parts(r, env))
    mb.ack({0: [(13, 14, [ACCEPT])]})
    time.sleep(1.6)  # 10-11, left below SPSO, expire: archived for the log start
    env.produce(5, part=1)  # p1 lag 5

    s = Scrape()
    check_sp(s, "after", env, 0, [18, 4, 7, 4, 1, 1, 0, 6, 1, 4, 3], 0)
    check_sp(s, "after", env, 1, [12, 2, 7, 2, 2, 0, 1, 0, 2, 0, 0], 0)
    check_lag(s, admin, "after", env, [0, 5])
    check_group(s, admin, "after", env, 1)
    w = s.get("gregor_share_state_writes_total")
    lat = s.get("gregor_share_state_write_latency_seconds_count")
    check("state store: writes > 0, fsyncs > 0, bytes > 0",
          w > 0 and s.get("gregor_share_state_fsyncs_total") > 0 and s.get("gregor_share_state_bytes_written_total") > 0,
          (w, s.get("gregor_share_state_fsyncs_total"), s.get("gregor_share_state_bytes_written_total")))
    check("state store: one latency per acknowledgement write at least (6), at most one per write",
          6 <= lat <= w, (lat, w))
    check("series dropped: none", s.get("gregor_metrics_series_dropped", kind="share_partition") == 0
          and s.get("gregor_metrics_series_dropped", kind="group") == 0)

    # Leave, close the session, delete the group: its series go.
    h = scw.hb(admin, env.group, mb.m, -1)
    check("member leaves", h["err"] == 0, h)
    sfw.share_fetch(mb.c, env.group, mb.m, -1, [])
    dg = scw.delete_groups(admin, [env.group])
    check("DeleteGroups ok", dg.get(env.group) == 0, dg)
    s = Scrape()
    left = s.with_label("group", env.group)
    check("deleted group: no series left", not left, left[:5])
    check("deleted group: share groups 0, sessions 0",
          (s.get("gregor_share_groups"), s.get("gregor_share_sessions")) == (0, 0),
          (s.get("gregor_share_groups"), s.get("gregor_share_sessions")))


def t_cap(boot):
    """metrics.partition.series.max=1: one share-partition and one group get series."""
    envs = []
    for i in range(2):
        env = sfw.Env(boot, "cap%d" % i, partitions=2)
        env.produce(3, part=0)
        env.produce(3, part=1)
        m = Member(env)
        j = scw.join_until_assigned(kw.Conn(boot), env.group, m.m, [env.topic], 2)
        check("group %d joined" % i, j["err"] == 0 and j["held"] == 2, j)
        m.fetch()
        envs.append(env)
    s = Scrape()
    groups = {dict(k[1]).get("group") for k in s.samples if k[0] == "gregor_share_partition_start_offset"}
    n = len([k for k in s.samples if k[0] == "gregor_share_in_flight_records"])
    check("cap 1: one share-partition series", n == 1, n)
    check("cap 1: dropped share_partition 3", s.get("gregor_metrics_series_dropped", kind="share_partition") == 3,
          s.get("gregor_metrics_series_dropped", kind="share_partition"))
    check("cap 1: the first in (group, topic, partition) order",
          groups == {min(e.group for e in envs)}, groups)
    n = len([k for k in s.samples if k[0] == "gregor_share_group_members"])
    check("cap 1: one group series, dropped group 1",
          n == 1 and s.get("gregor_metrics_series_dropped", kind="group") == 1,
          (n, s.get("gregor_metrics_series_dropped", kind="group")))
    check("cap 1: share groups still counts both", s.get("gregor_share_groups") == 2, s.get("gregor_share_groups"))


def main():
    global ADMIN
    boot, ADMIN, what = sys.argv[1], sys.argv[2].rstrip("/"), sys.argv[3]
    {"drain": t_drain, "cap": t_cap}[what](boot)
    sys.exit(1 if kw.FAILED else 0)


if __name__ == "__main__":
    main()
