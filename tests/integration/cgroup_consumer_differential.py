#!/usr/bin/env python3
"""Differential scenarios for the KIP-848 consumer protocol (ConsumerGroupHeartbeat,
ConsumerGroupDescribe, and the APIs that meet consumer-protocol groups), run against Apache
Kafka 4.4.0 and gregord and compared (tests/integration/test_cgroup_consumer_differential.sh).
Raw requests, standard library only.

  cgroup_consumer_differential.py observe BOOTSTRAP OUT.json
  cgroup_consumer_differential.py diff REF.json GREGORD.json [REPORT.txt]
  cgroup_consumer_differential.py allowlist

Scenarios:
  misuse     every request check (empty member id, no rebalance timeout, owned partitions when
             joining, no subscription, bad epoch, -2 without instance id, unknown assignor, regexes
             RE2 refuses), unknown group / member, FENCED_MEMBER_EPOCH both ways, leave twice
  reconcile  two members on 4 partitions: the second joins at the new epoch with nothing until the
             first revokes (UNREVOKED_PARTITIONS), the previous-epoch rule, OffsetCommit / OffsetFetch
             member-epoch checks (STALE_MEMBER_EPOCH, v8 ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID), leave
  static     a static member: UNRELEASED_INSTANCE_ID for a second member with its instance id, the
             temporary leave (-2) and the comeback under a new member id with its partitions,
             FENCED_INSTANCE_ID, UNKNOWN_MEMBER_ID for the replaced id
  assignors  range (ServerAssignor) on two topics, a regex subscription, describe of both
  namespace  a share group's id and a classic group's id on ConsumerGroupHeartbeat/Describe, the
             classic APIs and ShareGroupHeartbeat on a consumer group, DescribeGroups v5/v6,
             ListGroups type filters, DeleteGroups non-empty/empty, OffsetDelete of a subscribed
             topic, the upgrade of an empty classic group and the downgrade of an empty consumer group
  group_config  the consumer.* group configs (KIP-848 GroupConfig): DescribeConfigs defaults,
             IncrementalAlterConfigs good and bad values (type, static minimum, the broker's
             group.consumer.min/max.* bounds, the order of checks with share.* in one request),
             AlterConfigs, a member of a group with consumer.heartbeat.interval.ms=2000 told 2000,
             and one of a group with consumer.session.timeout.ms=2500 gone after 4.5 s of silence
             (the test starts both brokers with group.consumer.min.heartbeat.interval.ms=1000 and
             group.consumer.min.session.timeout.ms=1000)
Member ids are the client's (v1); assignments are recorded as partition counts where the choice
of partitions is the assignor's.
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kdiff  # noqa: E402
from kwire import TAGS, boolean, carr, create_topic, cstr, i32  # noqa: E402
import cgc_wire as w  # noqa: E402
import cgroup_differential as cd  # noqa: E402
import share_coord_wire as scw  # noqa: E402

M = ["c8-member-%02d-000000000000000000" % i for i in range(10)]


def brief(r):
    d = dict(err=r["err"], msg=r["msg"])
    if not r["err"]:
        d.update(epoch=r["epoch"], interval=r["interval"], member_ok=r["member"] is not None)
        a = r["assignment"]
        d["assigned"] = None if a is None else sum(len(v) for v in a.values())
    return d


def join(c, g, m, topics=None, regex=None, **kw):
    return w.heartbeat(c, g, m, 0, rebalance=30000, topics=topics, regex=regex, owned=[], **kw)


def desc(c, g):
    d = w.describe(c, [g])[0]
    out = dict(err=d["err"], msg=d["msg"], state=d["state"], epoch=d["epoch"], aepoch=d["aepoch"],
               assignor=d["assignor"])
    out["members"] = {m["member"]: dict(epoch=m["epoch"], instance=m["instance"], topics=m["topics"],
                                        regex=m["regex"], type=m.get("type"),
                                        assigned=sum(len(v) for v in m["assigned"].values()),
                                        target=sum(len(v) for v in m["target"].values()))
                      for m in d["members"]}
    return out


def fetch_member(c, g, member, epoch, topic="c8-t"):
    """OffsetFetch v9 of partition 0 as a member: the group's error code and the offset."""
    grp = cstr(g) + cstr(member) + i32(epoch) + carr([cstr(topic) + carr([0], i32) + TAGS]) + TAGS
    r = c.call(9, 9, carr([grp]) + boolean(False) + TAGS)
    r.i32()

    def grp_(r):
        r.cstr()
        ts = r.carr(lambda r: (r.cstr(), r.carr(lambda r: (r.i32(), r.i64(), r.i32(), r.cstr(), r.i16(),
                                                           r.tags())[1]), r.tags())[1])
        err = r.i16()
        r.tags()
        return dict(err=err, offsets=ts)
    return r.carr(grp_)[0]


def s_misuse(ctx):
    c, o = ctx.c, {}
    o["create"] = [create_topic(c, t, n)[0] for t, n in (("c8-t", 4), ("c8-s", 1), ("c8-ra", 3), ("c8-rb", 2),
                                                          ("c8-re-x", 2), ("c8-re-y", 1))]
    time.sleep(1.5)  # Kafka's coordinator sees new topics a moment after CreateTopics answers
    g = "c8-misuse"
    o["empty_member"] = brief(w.heartbeat(c, g, "", 0, rebalance=30000, topics=["c8-t"], owned=[]))
    o["blank_group"] = brief(w.heartbeat(c, " ", M[0], 0, rebalance=30000, topics=["c8-t"], owned=[]))
    o["no_rebalance"] = brief(w.heartbeat(c, g, M[0], 0, topics=["c8-t"], owned=[]))
    o["owned_null"] = brief(w.heartbeat(c, g, M[0], 0, rebalance=30000, topics=["c8-t"]))
    o["owned_not_empty"] = brief(w.heartbeat(c, g, M[0], 0, rebalance=30000, topics=["c8-t"],
                                             owned=[(b"\x01" * 16, [0])]))
    o["no_subscription"] = brief(w.heartbeat(c, g, M[0], 0, rebalance=30000, owned=[]))
    o["epoch_minus3"] = brief(w.heartbeat(c, g, M[0], -3))
    o["minus2_no_instance"] = brief(w.heartbeat(c, g, M[0], -2))
    o["blank_instance"] = brief(join(c, g, M[0], ["c8-t"], instance=""))
    o["blank_rack"] = brief(join(c, g, M[0], ["c8-t"], rack=" "))
    o["bad_assignor"] = brief(join(c, g, M[0], ["c8-t"], assignor="sticky"))
    for name, rx in [("paren", "(a"), ("backref", "(a)\\1"), ("lookahead", "(?=a)a"), ("lookbehind", "(?<=a)b"),
                     ("possessive", "a*+"), ("atomic", "(?>a)"), ("class", "[a"), ("ok_class", "c8-[a-z]+")]:
        o["regex_" + name] = brief(join(c, "c8-misuse-re-" + name, M[0], regex=rx))
    o["unknown_group"] = brief(w.heartbeat(c, "c8-none", M[0], 3))
    o["unknown_group_leave"] = brief(w.heartbeat(c, "c8-none", M[0], -1))
    o["describe_unknown"] = desc(c, "c8-none")
    r = join(c, g, M[0], ["c8-t"])
    o["join"] = brief(r)
    o["join_assignment"] = r["assignment"] and sorted(p for v in r["assignment"].values() for p in v)
    o["unknown_member"] = brief(w.heartbeat(c, g, M[1], 1))
    o["fenced_greater"] = brief(w.heartbeat(c, g, M[0], r["epoch"] + 5))
    o["fenced_smaller"] = brief(w.heartbeat(c, g, M[0], r["epoch"] - 1, owned=[]))
    o["ok"] = brief(w.heartbeat(c, g, M[0], r["epoch"]))
    o["full"] = brief(w.heartbeat(c, g, M[0], r["epoch"], rebalance=30000, topics=["c8-t"], owned=[]))
    o["describe"] = desc(c, g)
    o["leave"] = brief(w.heartbeat(c, g, M[0], -1))
    o["leave_again"] = brief(w.heartbeat(c, g, M[0], -1))
    o["describe_empty"] = desc(c, g)
    o["rejoin_empty"] = brief(join(c, g, M[0], ["c8-t"]))
    w.heartbeat(c, g, M[0], -1)
    return o


def s_reconcile(ctx):
    c, o = ctx.c, {}
    g = "c8-rec"
    r1 = join(c, g, M[0], ["c8-t"])
    tid = bytes.fromhex(list(r1["assignment"])[0])
    e1 = r1["epoch"]
    time.sleep(1.2)  # past group.consumer.assignment.interval.ms: the new target at once
    r2 = join(c, g, M[1], ["c8-t"])
    o["join2"] = brief(r2)
    o["describe_join2"] = desc(c, g)
    r1 = w.heartbeat(c, g, M[0], e1)
    o["hb1_revoke"] = brief(r1)
    kept = sorted(p for v in (r1["assignment"] or {}).values() for p in v)
    o["hb1_still_owning"] = brief(w.heartbeat(c, g, M[0], e1, owned=[(tid, [0, 1, 2, 3])]))
    o["hb2_waiting"] = brief(w.heartbeat(c, g, M[1], r2["epoch"]))
    o["commit_unrevoked_epoch"] = cd.commit(c, g, e1, M[0], topic="c8-t", part=kept[0] if kept else 0)
    r1 = w.heartbeat(c, g, M[0], e1, owned=[(tid, kept)])
    o["hb1_revoked"] = brief(r1)
    o["hb2_gets"] = brief(w.heartbeat(c, g, M[1], r2["epoch"]))
    o["describe_stable"] = desc(c, g)
    e = r1["epoch"]
    o["previous_epoch_subset"] = brief(w.heartbeat(c, g, M[0], e - 1, owned=[(tid, kept[:1])]))
    o["previous_epoch_not_subset"] = brief(w.heartbeat(c, g, M[0], e - 1, owned=[(tid, [0, 1, 2, 3])]))
    o["rejoin_after_fence"] = brief(join(c, g, M[0], ["c8-t"]))
    r1 = w.heartbeat(c, g, M[0], desc(c, g)["members"][M[0]]["epoch"])
    e = r1["epoch"] if not r1["err"] else 0
    o["commit_v9_ok"] = cd.commit(c, g, e, M[0], topic="c8-t")
    o["commit_v9_stale"] = cd.commit(c, g, e - 1, M[0], topic="c8-t")
    o["commit_v9_future"] = cd.commit(c, g, e + 1, M[0], topic="c8-t")
    o["commit_v8_stale"] = cd.commit(c, g, e - 1, M[0], topic="c8-t", ver=8)
    o["commit_unknown_member"] = cd.commit(c, g, e, M[5], topic="c8-t")
    o["commit_admin_non_empty"] = cd.commit(c, g, -1, "", topic="c8-t")
    o["fetch_admin"] = cd.fetch(c, g, topic="c8-t")
    o["fetch_member"] = fetch_member(c, g, M[0], e)
    o["fetch_member_older"] = fetch_member(c, g, M[0], e - 1)
    o["fetch_member_newer"] = fetch_member(c, g, M[0], e + 1)
    o["fetch_unknown_member"] = fetch_member(c, g, M[6], e)
    o["fetch_no_member_epoch"] = fetch_member(c, g, None, e)
    o["leave1"] = brief(w.heartbeat(c, g, M[0], -1))
    o["leave2"] = brief(w.heartbeat(c, g, M[1], -1))
    o["describe_empty"] = desc(c, g)
    o["commit_admin_empty"] = cd.commit(c, g, -1, "", topic="c8-t")
    return o


def s_static(ctx):
    c, o = ctx.c, {}
    g = "c8-static"
    r = join(c, g, M[0], ["c8-t"], instance="i1")
    o["join"] = brief(r)
    o["same_instance_other_member"] = brief(join(c, g, M[1], ["c8-t"], instance="i1"))
    o["leave_wrong_member"] = brief(w.heartbeat(c, g, M[2], -2, instance="i1"))
    o["leave_unknown_instance"] = brief(w.heartbeat(c, g, M[0], -2, instance="i9"))
    o["temporary_leave"] = brief(w.heartbeat(c, g, M[0], -2, instance="i1"))
    o["describe_left"] = desc(c, g)
    r = join(c, g, M[1], ["c8-t"], instance="i1")
    o["comeback"] = brief(r)
    o["describe_back"] = desc(c, g)
    o["old_id"] = brief(w.heartbeat(c, g, M[0], r.get("epoch", 1)))
    o["leave"] = brief(w.heartbeat(c, g, M[1], -1, instance="i1"))
    o["describe_after"] = desc(c, g)
    return o


def s_assignors(ctx):
    c, o = ctx.c, {}
    g = "c8-range"
    a = join(c, g, M[0], ["c8-ra", "c8-rb"], assignor="range")
    o["range_join"] = brief(a)
    time.sleep(1.2)
    b = join(c, g, M[1], ["c8-ra", "c8-rb"], assignor="range")
    o["range_join2"] = brief(b)
    d = desc(c, g)
    o["range_describe"] = dict(assignor=d["assignor"], targets=sorted(m["target"] for m in d["members"].values()))
    for m in (M[0], M[1]):
        w.heartbeat(c, g, m, -1)
    g = "c8-regex"
    r = join(c, g, M[2], regex="c8-re-.*")
    o["regex_join"] = brief(r)
    time.sleep(1.2)  # Kafka resolves the regex in the background; the assignment interval passes
    r = w.heartbeat(c, g, M[2], r["epoch"])
    o["regex_resolved"] = brief(r)
    o["regex_describe"] = desc(c, g)
    w.heartbeat(c, g, M[2], -1)
    return o


def s_namespace(ctx):
    c, o = ctx.c, {}
    o["share_join"] = cd.until_ready(lambda: scw.hb(c, "c8-sg", "c8-share-member-00000000000000001", 0,
                                                    ["c8-s"])["err"])
    o["cg_hb_on_share"] = brief(join(c, "c8-sg", M[0], ["c8-s"]))
    o["cg_hb_on_share_epoch"] = brief(w.heartbeat(c, "c8-sg", M[0], 3))
    o["cg_describe_share"] = desc(c, "c8-sg")
    # A classic group of another protocol type with a member: not upgradable.
    j = cd.join(c, "c8-classic", ptype="other")
    j = cd.join(c, "c8-classic", member=j["member"], ptype="other")
    o["classic_join"] = j["err"]
    o["cg_hb_on_classic"] = brief(join(c, "c8-classic", M[0], ["c8-s"]))
    o["cg_describe_classic"] = desc(c, "c8-classic")
    cd.leave(c, "c8-classic", [(j["member"], None)])
    # A consumer group with a member, seen by the other APIs.
    r = join(c, "c8-cg", M[1], ["c8-s"])
    o["cg_join"] = brief(r)
    o["classic_join_other_type"] = cd.join(c, "c8-cg", ptype="other")["err"]
    o["classic_heartbeat"] = cd.heartbeat(c, "c8-cg", 1, M[1])
    o["classic_sync"] = cd.sync(c, "c8-cg", 1, M[1])["err"]
    h = scw.hb(c, "c8-cg", "c8-share-member-00000000000000002", 0, ["c8-s"])
    o["share_hb_on_consumer"] = dict(err=h["err"], msg=h["msg"])
    o["describe_v5"] = cd.describe(c, "c8-cg", 5)
    o["describe_v6"] = cd.describe(c, "c8-cg", 6)
    for types in (["consumer"], ["classic"], [], ["Consumer"]):
        err, gs = scw.list_groups(c, types=types)
        o["list_" + ("_".join(types) or "all")] = dict(err=err, groups={k: v for k, v in gs.items()
                                                                       if k.startswith("c8-")})
    err, gs = scw.list_groups(c, states=["stable"])
    o["list_stable"] = dict(err=err, groups={k: v for k, v in gs.items() if k.startswith("c8-")})
    o["commit"] = cd.commit(c, "c8-cg", r["epoch"], M[1], topic="c8-s")
    o["offset_delete_subscribed"] = cd.offset_delete(c, "c8-cg", topic="c8-s")
    o["delete_non_empty"] = scw.delete_groups(c, ["c8-cg"])
    o["classic_leave_unknown"] = cd.leave(c, "c8-cg", [(M[7], None)])
    o["classic_leave"] = cd.leave(c, "c8-cg", [(M[1], None)])  # Kafka: a consumer member can leave so
    o["leave"] = brief(w.heartbeat(c, "c8-cg", M[1], -1))
    o["describe_empty_v6"] = cd.describe(c, "c8-cg", 6)
    o["describe_empty"] = desc(c, "c8-cg")
    # The empty consumer group becomes classic on a JoinGroup (downgrade); offsets stay.
    j = cd.join(c, "c8-cg")
    o["downgrade_join"] = j["err"]
    o["downgrade_fetch"] = cd.fetch(c, "c8-cg", topic="c8-s")
    o["after_downgrade_cg_describe"] = desc(c, "c8-cg")
    # An empty classic group with only offsets becomes a consumer group (upgrade).
    o["simple_commit"] = cd.commit(c, "c8-simple", -1, "", topic="c8-s")
    o["upgrade_join"] = brief(join(c, "c8-simple", M[3], ["c8-s"]))
    o["upgrade_fetch"] = cd.fetch(c, "c8-simple", topic="c8-s")
    w.heartbeat(c, "c8-simple", M[3], -1)
    o["delete_empty"] = scw.delete_groups(c, ["c8-simple"])
    scw.hb(c, "c8-sg", "c8-share-member-00000000000000001", -1)
    return o


def consumer_configs(c, g):
    d = scw.describe_group_configs(c, g)
    return dict(err=d["err"], configs={e["name"]: [e["value"], e["source"], e["type"]]
                                       for e in d["configs"] if e["name"].startswith("consumer.")})


def s_group_config(ctx):
    c, o, g = ctx.c, {}, "c8-gconf"
    o["create"] = create_topic(c, "c8-gc", 2)[0]
    o["describe_defaults"] = consumer_configs(c, g)
    bad = [("consumer.heartbeat.interval.ms", "0"), ("consumer.heartbeat.interval.ms", "abc"),
           ("consumer.heartbeat.interval.ms", "999"), ("consumer.heartbeat.interval.ms", "15001"),
           ("consumer.session.timeout.ms", "0"), ("consumer.session.timeout.ms", "44999"),
           ("consumer.session.timeout.ms", "999"), ("consumer.session.timeout.ms", "60001"),
           ("consumer.session.timeout.ms", "5000"), ("consumer.assignment.interval.ms", "-1"),
           ("consumer.assignment.interval.ms", "15001"), ("consumer.assignment.interval.ms", " 7 "),
           ("consumer.heartbeat.interval.ms", "1000")]
    for name, v in bad:
        o["validate %s=%s" % (name, v)] = list(scw.incr_alter_group_configs(c, g, [(name, 0, v)], True))
    mixed = [[("share.heartbeat.interval.ms", "4000"), ("consumer.heartbeat.interval.ms", "999")],
             [("share.session.timeout.ms", "44000"), ("consumer.session.timeout.ms", "44000")],
             [("share.record.lock.duration.ms", "1"), ("consumer.heartbeat.interval.ms", "x")],
             [("consumer.session.timeout.ms", "44000"), ("share.assignment.interval.ms", "-1")],
             [("consumer.assignment.interval.ms", "99999"), ("consumer.session.timeout.ms", "1")],
             [("consumer.assignment.interval.ms", "99999"), ("share.heartbeat.interval.ms", "1")],
             [("consumer.session.timeout.ms", "0"), ("consumer.heartbeat.interval.ms", "0")],
             [("consumer.heartbeat.interval.ms", "1"), ("consumer.session.timeout.ms", "1")],
             [("consumer.heartbeat.interval.ms", "2000"), ("consumer.unknown", "1")]]
    for i, ops in enumerate(mixed):
        o["mixed_%d" % i] = list(scw.incr_alter_group_configs(c, g, [(n, 0, v) for n, v in ops], True))
    o["describe_after_validate_only"] = consumer_configs(c, g)
    o["set_legacy"] = list(scw.alter_group_configs(c, g, {"consumer.session.timeout.ms": "50000",
                                                          "share.delivery.count.limit": "3"}))
    o["set"] = list(scw.incr_alter_group_configs(c, g, [("consumer.heartbeat.interval.ms", 0, "2000"),
                                                        ("consumer.assignment.interval.ms", 0, "0")]))
    # Kafka applies the change through its metadata log, asynchronously: wait (up to 5 s, both
    # brokers) until describe shows it, so that the join below sees it too (a CI run under load
    # described Kafka's defaults here).
    deadline = time.monotonic() + 5
    while True:
        o["describe_set"] = consumer_configs(c, g)
        got = o["describe_set"]["configs"]
        if (got.get("consumer.heartbeat.interval.ms", [None])[0] == "2000" and
                got.get("consumer.assignment.interval.ms", [None])[0] == "0") or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    o["join"] = brief(join(c, g, M[0], ["c8-gc"]))
    o["heartbeat"] = brief(w.heartbeat(c, g, M[0], o["join"].get("epoch", 1)))
    o["describe_group"] = desc(c, g)
    o["delete"] = list(scw.incr_alter_group_configs(c, g, [("consumer.heartbeat.interval.ms", 1, "")]))
    # Kafka applies a group-config change to the coordinator asynchronously (through its metadata
    # log): heartbeat until the interval is back at the broker's 5000, for up to 5 s, on both brokers.
    epoch, deadline = o["heartbeat"].get("epoch", 1), time.monotonic() + 5
    while True:
        hb = brief(w.heartbeat(c, g, M[0], epoch))
        epoch = hb.get("epoch", epoch)
        if hb.get("interval") == 5000 or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    o["heartbeat_after_delete"] = hb
    o["describe_deleted"] = consumer_configs(c, g)
    o["leave"] = brief(w.heartbeat(c, g, M[0], -1))
    o["delete_group"] = scw.delete_groups(c, [g])
    o["describe_after_group_delete"] = consumer_configs(c, g)  # Kafka keeps a deleted group's configs
    # the group's session timeout: a member silent for longer than 2.5 s is gone
    g2 = "c8-gconf-session"
    o["set_session"] = list(scw.incr_alter_group_configs(c, g2, [("consumer.heartbeat.interval.ms", 0, "1000"),
                                                             ("consumer.session.timeout.ms", 0, "2500")]))
    j = brief(join(c, g2, M[1], ["c8-gc"]))
    # Kafka's coordinator sees the new group configs a moment later (asynchronously): heartbeat
    # until the answer carries the group's 1000 ms interval (up to 5 s), so that the session
    # timer runs with the group's 2.5 s on both brokers, then stay silent.
    # The assignment comes in whichever of those answers Kafka's reconciliation reached first
    # (later answers carry null for "unchanged"): keep the last one given.
    epoch, deadline, assigned = j.get("epoch", 1), time.monotonic() + 5, j.get("assigned")
    while j.get("interval") != 1000 and time.monotonic() < deadline:
        time.sleep(0.2)
        j = brief(w.heartbeat(c, g2, M[1], epoch))
        epoch = j.get("epoch", epoch)
        assigned = j.get("assigned") if j.get("assigned") is not None else assigned
    o["session_join"] = dict(j, assigned=assigned) if isinstance(j, dict) else j
    time.sleep(4.5)
    o["session_after_expiry"] = brief(w.heartbeat(c, g2, M[1], epoch))
    o["session_describe"] = desc(c, g2)
    return o


SCENARIOS = [("misuse", s_misuse), ("reconcile", s_reconcile), ("static", s_static), ("assignors", s_assignors),
             ("namespace", s_namespace), ("group_config", s_group_config)]

ALLOW = [
    ("*/throttle_ms", "ignore", "throttle times depend on quotas and load"),
    ("namespace/list_*/groups/c8-misuse-re-ok_class*", "any",
     "Kafka resolves a new regex in the background and bumps the epoch without a heartbeat (Assigning); "
     "gregord resolves it at the member's next heartbeat, which this group never sends"),
    ("*/describe_*/*/members/*/host", "ignore", "the client address form may differ"),
    ("reconcile/fetch_no_member_epoch/err", "ignore",
     "OffsetFetch v9 with a null member id and an epoch >= 0: Kafka 4.4.0 fails with UNKNOWN_SERVER_ERROR "
     "(-1, a null member id reaching the member lookup); gregord answers UNKNOWN_MEMBER_ID"),
]


class Ctx:
    def __init__(self, boot):
        self.boot = boot
        self.c = cd.Conn(boot)
        cd.until_ready(lambda: cd.find_coordinator(self.c, "c8-warmup"), 60)
        cd.until_ready(lambda: w.heartbeat(self.c, "c8-warmup", M[9], 3)["err"], 30)


def observe(boot, out_path):
    kdiff.observe(boot, out_path, SCENARIOS, lambda old: Ctx(boot), convert=cd.jsonable)


def diff(ref_path, gre_path, report_path=None):
    return kdiff.diff(ref_path, gre_path, report_path, [n for n, _ in SCENARIOS], ALLOW, allowed_values=True)


def allowlist():
    kdiff.print_allow(ALLOW)


if __name__ == "__main__":
    kdiff.main(sys.argv[0], observe, diff, allowlist)
