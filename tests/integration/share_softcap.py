#!/usr/bin/env python3
"""Differential scenarios for the share-partition in-flight cap (issue 14 item 1, first bullet),
run against Apache Kafka 4.4.0 and gregord and compared (tests/integration/test_share_softcap.sh).

  share_softcap.py observe BOOTSTRAP OUT.json
  share_softcap.py diff REF.json GREGORD.json [REPORT.txt]
  share_softcap.py allowlist

Every group has share.partition.max.record.locks=100 (the lowest legal value). Kafka 4.4.0's cap
is soft: an acquisition takes min(MaxRecords, cap - in-flight) records, in-flight being the whole
window SPEO-SPSO+1, and new records run to the end of the log batch that reaches that budget; at
or over the cap only records inside the window are acquirable (SharePartition
.lastOffsetAndMaxRecordsToAcquire). Scenarios, MaxRecords 500 throughout:
  batch_opt     10 log batches of 30 records, batch_optimized: the first fetch overshoots the cap
                to the batch end; an ACCEPT in the middle of the window frees nothing, one at its
                head does; released records are re-acquired within the window, and below the cap
                the same budget limits the redelivery (no new record after it)
  record_limit  the same log, ShareFetch v2 record_limit: exactly the budget, then the cached rest
                of the batch although the window is over the cap
  single        110 single-record batches: the cap binds at exactly 100; one ACCEPT at SPSO frees
                one record, an ACCEPT inside the window none
  big_batch     one batch of 1000 records, record_limit, three members with MaxRecords 50: the
                whole batch is cached at once, so 200 records get ACQUIRED although the cap is 100
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kdiff  # noqa: E402
import share_differential as sd  # noqa: E402

ACCEPT, RELEASE = 1, 2
CFG = {"share.auto.offset.reset": "earliest", "share.record.lock.duration.ms": 45000,
       "share.partition.max.record.locks": 100}


def setup(ctx, o, name, batches):
    """Topic `name` with the given log batches (record counts), a group with CFG, a member."""
    err, tid = ctx.topic(name)
    o["create_topic"] = err
    o["produce"] = [ctx.produce(name, [b"%s-%d-%d" % (name.encode(), i, j) for j in range(n)])["error"]
                    for i, n in enumerate(batches)]
    g = name + "-g"
    sd.fetch_setup(ctx, o, g, CFG, topic=name)
    return sd.Member(ctx, g, name + "-m", tid)


def acquired(m, r):
    p = r["partitions"].get("%s-0" % m.ctx.tname(m.tid)) or {}
    return dict(error=r["error"], part_error=p.get("error"), acquired=p.get("acquired", []))


def fetch_some(m, secs=10, **kw):
    """A fetch that must acquire something: Kafka may answer a first fetch before it has loaded
    the share-partition state, so retry while nothing came back (bounded)."""
    deadline = time.time() + secs
    while True:
        a = acquired(m, m.fetch(max_wait=1000, **kw))
        if a["error"] or a["acquired"] or time.time() > deadline:
            return a


def fetch_none(m, **kw):
    """A fetch that must acquire nothing: waits its MaxWaitMs so a late acquisition shows."""
    return acquired(m, m.fetch(max_wait=500, **kw))


def ack(m, batches):
    r = m.ack(batches)
    return dict(error=r["error"], partitions={k: v["err"] for k, v in r["partitions"].items()})


def s_batch_opt(ctx):
    o = {}
    m = setup(ctx, o, "ssc-bo", [30] * 10)
    o["first"] = fetch_some(m)                                       # budget 100 -> batch end 119
    o["at_cap"] = fetch_none(m)                                      # window 120 >= 100
    o["accept_middle"] = ack(m, [(30, 59, [ACCEPT])])
    o["after_accept_middle"] = fetch_none(m)                         # SPSO stays 0: window 120
    o["accept_head"] = ack(m, [(0, 29, [ACCEPT])])                   # SPSO 60: window 60, room 40
    o["after_accept_head"] = fetch_some(m)                           # 120..159 -> batch end 179
    o["release"] = ack(m, [(60, 119, [RELEASE])])                    # window 60..179 = 120
    o["reacquire_at_cap"] = fetch_some(m)                            # only inside the window
    o["accept_reacquired"] = ack(m, [(60, 119, [ACCEPT])])           # SPSO 120: window 60, room 40
    o["release_new"] = ack(m, [(120, 179, [RELEASE])])
    o["reacquire_below_cap"] = fetch_some(m)                         # budget 40: the cached 120..179
    o["after_reacquire"] = fetch_some(m)                             # room 40: 180..219 -> 239
    return o


def s_record_limit(ctx):
    o = {}
    m = setup(ctx, o, "ssc-rl", [30] * 10)
    o["first"] = fetch_some(m, ver=2, mode=1)                        # exactly 100, 100..119 cached
    o["rest_of_batch"] = fetch_some(m, ver=2, mode=1)                # at the cap, inside the window
    o["at_cap"] = fetch_none(m, ver=2, mode=1)
    o["accept_head"] = ack(m, [(0, 9, [ACCEPT])])                    # window 110: still at the cap
    o["after_accept_head"] = fetch_none(m, ver=2, mode=1)
    o["accept_more"] = ack(m, [(10, 39, [ACCEPT])])                  # window 80, room 20
    o["after_accept_more"] = fetch_some(m, ver=2, mode=1)            # 120..139, 140..149 cached
    return o


def s_single(ctx):
    o = {}
    m = setup(ctx, o, "ssc-one", [1] * 110)
    o["first"] = fetch_some(m)                                       # 0..99
    o["at_cap"] = fetch_none(m)
    o["accept_0"] = ack(m, [(0, 0, [ACCEPT])])
    o["after_accept_0"] = fetch_some(m)                              # 100
    o["accept_50"] = ack(m, [(50, 50, [ACCEPT])])
    o["after_accept_50"] = fetch_none(m)                             # SPSO 1: window still 100
    o["accept_1_4"] = ack(m, [(1, 4, [ACCEPT])])
    o["after_accept_1_4"] = fetch_some(m)                            # 101..104
    return o


def s_big_batch(ctx):
    """One log batch of 1000 records, three members with MaxRecords 50 in record_limit mode:
    the first acquisition caches the whole batch (window 1000), and at the cap records inside the
    window stay acquirable, so the cap does not bind before the batch is used up (150 ACQUIRED)."""
    o = {}
    m1 = setup(ctx, o, "ssc-big", [1000])
    m2, m3 = (sd.Member(ctx, m1.group, "ssc-big-m%d" % i, m1.tid) for i in (2, 3))
    for name, m in (("m1", m1), ("m2", m2), ("m3", m3)):
        o[name] = fetch_some(m, ver=2, mode=1, max_records=50, batch_size=50)
    o["m1_again"] = fetch_some(m1, ver=2, mode=1, max_records=50, batch_size=50)
    return o


SCENARIOS = [("batch_opt", s_batch_opt), ("record_limit", s_record_limit), ("single", s_single),
             ("big_batch", s_big_batch)]

ALLOW = []


def observe(boot, out_path):
    def fresh(old):
        ctx = sd.Ctx(boot)
        if old:
            ctx.names = old.names
        return ctx

    kdiff.observe(boot, out_path, SCENARIOS, fresh, convert=sd.jsonable,
                  start=lambda ctx: {"find_coordinator": {"error": ctx.coordinator("ssc-bo-g")}})


def diff(ref_path, gre_path, report_path=None):
    return kdiff.diff(ref_path, gre_path, report_path, [n for n, _ in SCENARIOS], ALLOW, allowed_values=True)


if __name__ == "__main__":
    kdiff.main("share_softcap.py", observe, diff, lambda: kdiff.print_allow(ALLOW))
