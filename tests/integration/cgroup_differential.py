#!/usr/bin/env python3
"""Differential scenarios for consumer groups (classic protocol, offsets, one namespace with
share groups), run against Apache Kafka 4.4.0 and gregord and compared
(tests/integration/test_cgroup_differential.sh). Raw requests, standard library only.

  cgroup_differential.py observe BOOTSTRAP OUT.json
  cgroup_differential.py diff REF.json GREGORD.json [REPORT.txt]
  cgroup_differential.py allowlist

Scenarios:
  misuse     a one-member classic group: session timeout out of range, unknown member,
             MEMBER_ID_REQUIRED, join/sync/heartbeat with stale generation or unknown member,
             wrong protocol type on join and sync, OffsetCommit from a non-member / stale
             generation / no member while the group is not empty / unknown group (v8, v9) /
             unknown topic / metadata too large, OffsetFetch, batch LeaveGroup, DescribeGroups,
             DeleteGroups of a non-empty then empty group
  static     JoinGroup v3 (no MEMBER_ID_REQUIRED) and LeaveGroup v1; a static member
             (group.instance.id) rejoining with an unknown member id (v7 and v9 answers), the
             old id fenced in Heartbeat and OffsetCommit, LeaveGroup by instance id
  rebalance  two members on two connections: joining a Stable group makes the first rejoin
             (Heartbeat REBALANCE_IN_PROGRESS), the leader's SyncGroup assignment reaches the
             parked follower, the follower leaves and the first is alone at the next generation
  namespace  a share-group id used with the classic APIs and OffsetCommit/Fetch/Delete; a
             consumer-group id used with ShareGroupHeartbeat; ListGroups with type and state
             filters; DescribeGroups v5 and v6 of a share group
Member ids are broker-made: observations keep only whether they have the expected form.
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kdiff  # noqa: E402
from kwire import TAGS, Conn, boolean, carr, create_topic, cstr, i8, i16, i32, i64, s16, uvarint  # noqa: E402
import share_coord_wire as scw  # noqa: E402

# ConsumerProtocol subscription v0 of topic cgw-t, and an assignment of partition 0.
SUB = bytes([0, 0, 0, 0, 0, 1, 0, 5]) + b"cgw-t" + bytes([0, 0, 0, 0])
ASSIGN = bytes([0, 0, 0, 0, 0, 1, 0, 5]) + b"cgw-t" + bytes([0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0])


def cbytes(b):
    return uvarint(len(b) + 1) + b


def join(c, g, member="", session=10000, ptype="consumer", instance=None, ver=7):
    proto = cstr("range") + cbytes(SUB) + TAGS
    body = cstr(g) + i32(session) + i32(30000) + cstr(member) + cstr(instance) + cstr(ptype) + \
        carr([proto]) + (cstr(None) if ver >= 8 else b"") + TAGS
    r = c.call(11, ver, body)
    r.i32()
    d = dict(err=r.i16(), gen=r.i32(), ptype=r.cstr(), pname=r.cstr(), leader=r.cstr())
    if ver >= 9:
        d["skip"] = r.boolean()
    d["member"] = r.cstr()
    d["members"] = r.carr(lambda r: (r.cstr(), r.cstr(), r.cbytes(), r.tags())[0])
    return d


def sync(c, g, gen, member, assignments=(), ptype="consumer", pname="range"):
    asg = [cstr(m) + cbytes(a) + TAGS for m, a in assignments]
    body = cstr(g) + i32(gen) + cstr(member) + cstr(None) + cstr(ptype) + cstr(pname) + carr(asg) + TAGS
    r = c.call(14, 5, body)
    r.i32()
    return dict(err=r.i16(), ptype=r.cstr(), pname=r.cstr(), assignment=(r.cbytes() or b"").hex())


def heartbeat(c, g, gen, member):
    r = c.call(12, 4, cstr(g) + i32(gen) + cstr(member) + cstr(None) + TAGS)
    r.i32()
    return r.i16()


def leave(c, g, members):
    body = cstr(g) + carr([cstr(m) + cstr(i) + cstr(None) + TAGS for m, i in members]) + TAGS
    r = c.call(13, 5, body)
    r.i32()
    err = r.i16()
    return dict(err=err, members=r.carr(lambda r: (r.cstr(), r.cstr(), r.i16(), r.tags())[2]))


def commit(c, g, gen, member, topic="cgw-t", part=0, offset=5, metadata="m", ver=9):
    p = i32(part) + i64(offset) + i32(-1) + cstr(metadata) + TAGS
    body = cstr(g) + i32(gen) + cstr(member) + cstr(None) + carr([cstr(topic) + carr([p]) + TAGS]) + TAGS
    r = c.call(8, ver, body)
    r.i32()
    return r.carr(lambda r: (r.cstr(), r.carr(lambda r: (r.i32(), r.i16(), r.tags())[1]), r.tags())[1])


def fetch(c, g, topic="cgw-t", parts=(0,)):
    grp = cstr(g) + cstr(None) + i32(-1) + carr([cstr(topic) + carr(list(parts), i32) + TAGS]) + TAGS
    r = c.call(9, 9, carr([grp]) + boolean(False) + TAGS)
    r.i32()

    def part(r):
        d = dict(p=r.i32(), off=r.i64(), epoch=r.i32(), md=r.cstr(), err=r.i16())
        r.tags()
        return d

    def grp_(r):
        gid = r.cstr()
        ts = r.carr(lambda r: (r.cstr(), r.carr(part), r.tags())[1])
        err = r.i16()
        r.tags()
        return dict(group=gid, topics=ts, err=err)
    return r.carr(grp_)


def offset_delete(c, g, topic="cgw-t"):
    body = i16(len(g)) + g.encode() + i32(1) + i16(len(topic)) + topic.encode() + i32(1) + i32(0)
    r = c.call(47, 0, body, flexible=False)
    err = r.i16()
    r.i32()
    n = r.i32()
    out = []
    for _ in range(n):
        r.string()
        for _ in range(r.i32()):
            out.append((r.i32(), r.i16())[1])
    return dict(err=err, parts=out)


def describe(c, g, ver=5):
    r = c.call(15, ver, carr([g], cstr) + boolean(False) + TAGS)
    r.i32()

    def grp_(r):
        err = r.i16()
        msg = r.cstr() if ver >= 6 else None
        d = dict(err=err, msg=msg, id=r.cstr(), state=r.cstr(), ptype=r.cstr(), data=r.cstr())

        def m(r):
            mid = r.cstr()
            inst = r.cstr()
            x = dict(member_form=bool(mid), instance=inst, client=r.cstr(), host=r.cstr(),
                     md=len(r.cbytes() or b""), asg=len(r.cbytes() or b""))
            r.tags()
            return x
        d["members"] = r.carr(m)
        d["ops"] = r.i32()
        r.tags()
        return d
    return r.carr(grp_)


def member_form(mid, prefix):
    return bool(mid) and mid.startswith(prefix + "-") and len(mid) == len(prefix) + 37


def s_misuse(ctx):
    c, o = ctx.c, {}
    o["create"] = create_topic(c, "cgw-t", 1)[0]
    o["session_low"] = join(c, "cgw-g1", session=1000)
    o["session_high"] = join(c, "cgw-g1", session=4000000)
    o["unknown_member_new_group"] = join(c, "cgw-g1", member="nope")
    j = join(c, "cgw-g1")
    mid = j.pop("member")
    o["member_required"] = dict(j, form=member_form(mid, "kwire-test"))
    j = join(c, "cgw-g1", member=mid)
    o["joined"] = dict(j, member_is_self=j.pop("member") == mid, leader_is_self=j.pop("leader") == mid,
                       members=len(j.pop("members")))
    gen = j["gen"]
    o["sync_wrong_type"] = sync(c, "cgw-g1", gen, mid, ptype="connect")
    o["sync_stale_gen"] = sync(c, "cgw-g1", gen + 1, mid)
    o["sync_unknown"] = sync(c, "cgw-g1", gen, "nope")
    o["commit_completing"] = commit(c, "cgw-g1", gen, mid)
    o["sync"] = sync(c, "cgw-g1", gen, mid, [(mid, ASSIGN)])
    o["hb_ok"] = heartbeat(c, "cgw-g1", gen, mid)
    o["hb_unknown"] = heartbeat(c, "cgw-g1", gen, "nope")
    o["hb_stale"] = heartbeat(c, "cgw-g1", gen - 1, mid)
    o["hb_unknown_group"] = heartbeat(c, "cgw-none", 1, mid)
    o["join_wrong_type"] = join(c, "cgw-g1", ptype="connect")
    o["commit_non_member"] = commit(c, "cgw-g1", gen, "nope")
    o["commit_stale_gen"] = commit(c, "cgw-g1", gen + 4, mid)
    o["commit_no_member"] = commit(c, "cgw-g1", -1, "")
    o["commit_unknown_group_v9"] = commit(c, "cgw-nog", 3, "m")
    o["commit_unknown_group_v8"] = commit(c, "cgw-nog", 3, "m", ver=8)
    o["commit_unknown_topic"] = commit(c, "cgw-g1", gen, mid, topic="cgw-missing")
    o["commit_unknown_partition"] = commit(c, "cgw-g1", gen, mid, part=7)
    o["commit_metadata_big"] = commit(c, "cgw-g1", gen, mid, metadata="x" * 5000)
    o["commit"] = commit(c, "cgw-g1", gen, mid, offset=42, metadata="hello")
    o["fetch"] = fetch(c, "cgw-g1", parts=(0, 3))
    o["fetch_unknown_group"] = fetch(c, "cgw-nog")
    o["offset_delete_subscribed"] = offset_delete(c, "cgw-g1")
    o["describe_stable"] = describe(c, "cgw-g1")
    o["delete_non_empty"] = scw.delete_groups(c, ["cgw-g1"])
    o["leave"] = leave(c, "cgw-g1", [(mid, None), ("ghost", None)])
    o["leave_unknown_group"] = leave(c, "cgw-nog2", [("x", None)])
    o["describe_empty"] = describe(c, "cgw-g1")
    o["hb_after_leave"] = heartbeat(c, "cgw-g1", gen, mid)
    o["commit_simple"] = commit(c, "cgw-g1", -1, "", offset=50)
    o["offset_delete"] = offset_delete(c, "cgw-g1")
    o["fetch_after_delete"] = fetch(c, "cgw-g1")
    o["commit_simple_new_group"] = commit(c, "cgw-g3", -1, "", offset=7)
    o["list_classic"] = scw.list_groups(c, types=["classic"])
    o["list_empty_state"] = scw.list_groups(c, states=["empty"])
    o["delete_empty"] = scw.delete_groups(c, ["cgw-g1", "cgw-g3", "cgw-nope"])
    o["fetch_after_group_delete"] = fetch(c, "cgw-g3")
    return o


def s_namespace(ctx):
    c, o = ctx.c, {}
    o["create"] = create_topic(c, "cgw-s", 1)[0]
    o["share_join"] = until_ready(lambda: scw.hb(c, "cgw-sg", "cgw-share-member-000000000000000001", 0,
                                                 ["cgw-s"])["err"])
    o["join"] = join(c, "cgw-sg")
    o["sync"] = sync(c, "cgw-sg", 1, "m")
    o["heartbeat"] = heartbeat(c, "cgw-sg", 1, "m")
    o["leave"] = leave(c, "cgw-sg", [("m", None)])
    o["commit"] = commit(c, "cgw-sg", -1, "", topic="cgw-s")
    o["fetch"] = fetch(c, "cgw-sg", topic="cgw-s")
    o["offset_delete"] = offset_delete(c, "cgw-sg", topic="cgw-s")
    o["describe_v5"] = describe(c, "cgw-sg", 5)
    o["describe_v6"] = describe(c, "cgw-sg", 6)
    o["consumer_commit"] = commit(c, "cgw-cg", -1, "", topic="cgw-s")
    h = scw.hb(c, "cgw-cg", "cgw-share-member-000000000000000002", 0, ["cgw-s"])
    o["share_hb_on_consumer_group"] = dict(err=h["err"], msg=h["msg"])
    err, gs = scw.list_groups(c, types=["share"])
    o["list_share"] = dict(err=err, groups={k: v for k, v in gs.items() if k.startswith("cgw-")})
    err, gs = scw.list_groups(c, types=["classic"])
    o["list_classic"] = dict(err=err, groups={k: v for k, v in gs.items() if k.startswith("cgw-")})
    err, gs = scw.list_groups(c)
    o["list_all"] = dict(err=err, groups={k: v for k, v in gs.items() if k.startswith("cgw-")})
    scw.hb(c, "cgw-sg", "cgw-share-member-000000000000000001", -1)
    return o


def join_v3(c, g, member=""):
    """JoinGroup v3 (classic encoding: no MEMBER_ID_REQUIRED step)."""
    proto = s16("range") + i32(len(SUB)) + SUB
    body = s16(g) + i32(10000) + i32(30000) + s16(member) + s16("consumer") + i32(1) + proto
    r = c.call(11, 3, body, flexible=False)
    r.i32()
    d = dict(err=r.i16(), gen=r.i32(), pname=r.string(), leader=r.string(), member=r.string())
    d["members"] = [(r.string(), r.bytes_())[0] for _ in range(r.i32())]
    return d


def leave_v1(c, g, member):
    r = c.call(13, 1, s16(g) + s16(member), flexible=False)
    r.i32()
    return r.i16()


def s_static(ctx):
    c, o = ctx.c, {}
    create_topic(c, "cgw-t", 1)
    j = join_v3(c, "cgw-v3")
    mid = j.pop("member")
    o["v3_join"] = dict(j, leader_is_self=j.pop("leader") == mid, members=len(j.pop("members")),
                        form=member_form(mid, "kwire-test"))
    o["v1_leave_unknown"] = leave_v1(c, "cgw-v3", "ghost")
    o["v1_leave"] = leave_v1(c, "cgw-v3", mid)
    o["v1_leave_unknown_group"] = leave_v1(c, "cgw-nov3", "ghost")
    j = join(c, "cgw-st", instance="i1")
    old = j.pop("member")
    o["static_join"] = dict(j, leader_is_self=j.pop("leader") == old, members=len(j.pop("members")),
                            form=member_form(old, "i1"))
    o["static_sync"] = sync(c, "cgw-st", j["gen"], old, [(old, ASSIGN)])["err"]
    j = join(c, "cgw-st", instance="i1")
    new = j.pop("member")
    o["static_rejoin"] = dict(j, new_id=new != old, leader_is_old=j.pop("leader") == old,
                              members=len(j.pop("members")))
    o["static_rejoin_v9"] = {k: v for k, v in join(c, "cgw-st", instance="i1", ver=9).items()
                             if k not in ("member", "leader", "members")}
    o["hb_fenced"] = heartbeat_static(c, "cgw-st", j["gen"], old, "i1")
    o["hb_unknown_instance"] = heartbeat_static(c, "cgw-st", j["gen"], old, "i9")
    o["commit_fenced"] = commit_static(c, "cgw-st", j["gen"], old, "i1")
    o["leave_by_instance"] = leave(c, "cgw-st", [("", "i1"), ("", "i9")])
    o["describe_after"] = [dict(state=g["state"], members=len(g["members"])) for g in describe(c, "cgw-st")]
    return o


def heartbeat_static(c, g, gen, member, instance):
    r = c.call(12, 4, cstr(g) + i32(gen) + cstr(member) + cstr(instance) + TAGS)
    r.i32()
    return r.i16()


def commit_static(c, g, gen, member, instance):
    p = i32(0) + i64(1) + i32(-1) + cstr("") + TAGS
    body = cstr(g) + i32(gen) + cstr(member) + cstr(instance) + carr([cstr("cgw-t") + carr([p]) + TAGS]) + TAGS
    r = c.call(8, 9, body)
    r.i32()
    return r.carr(lambda r: (r.cstr(), r.carr(lambda r: (r.i32(), r.i16(), r.tags())[1]), r.tags())[1])


def join_body(g, member):
    proto = cstr("range") + cbytes(SUB) + TAGS
    return cstr(g) + i32(10000) + i32(30000) + cstr(member) + cstr(None) + cstr("consumer") + carr([proto]) + TAGS


def join_recv(c):
    _corr, r = c.recv_any(True)
    r.i32()
    d = dict(err=r.i16(), gen=r.i32(), ptype=r.cstr(), pname=r.cstr(), leader=r.cstr(), member=r.cstr())
    d["members"] = r.carr(lambda r: (r.cstr(), r.cstr(), r.cbytes(), r.tags())[0])
    return d


def sync_recv(c):
    _corr, r = c.recv_any(True)
    r.i32()
    return dict(err=r.i16(), ptype=r.cstr(), pname=r.cstr(), assignment=(r.cbytes() or b"").hex())


def sync_body(g, gen, member, assignments=()):
    asg = [cstr(m) + cbytes(a) + TAGS for m, a in assignments]
    return cstr(g) + i32(gen) + cstr(member) + cstr(None) + cstr("consumer") + cstr("range") + carr(asg) + TAGS


def s_rebalance(ctx):
    """Two members on two connections: the second joins a Stable group (the first must rejoin),
    the leader's assignment reaches both, then the second leaves and the first is alone."""
    c1, c2, o, g = ctx.c, Conn(ctx.boot), {}, "cgw-rb"
    create_topic(c1, "cgw-t", 1)
    m1 = join(c1, g)["member"]
    m2 = join(c2, g)["member"]
    j1 = join(c1, g, member=m1)
    o["first"] = dict(err=j1["err"], gen=j1["gen"], leader=j1["leader"] == m1, members=len(j1["members"]))
    o["first_sync"] = sync(c1, g, 1, m1, [(m1, ASSIGN)])["err"]
    c2.send(11, 7, join_body(g, m2), True)  # parks: the group rebalances
    time.sleep(0.5)
    o["hb_during_rebalance"] = heartbeat(c1, g, 1, m1)
    c1.send(11, 7, join_body(g, m1), True)
    a1, a2 = join_recv(c1), join_recv(c2)
    o["rejoin"] = [dict(err=a["err"], gen=a["gen"], leader_is_m1=a["leader"] == m1, members=sorted(
        "m1" if x == m1 else "m2" if x == m2 else x for x in a["members"])) for a in (a1, a2)]
    c2.send(14, 5, sync_body(g, 2, m2), True)
    time.sleep(0.3)
    c1.send(14, 5, sync_body(g, 2, m1, [(m1, ASSIGN), (m2, SUB)]), True)
    o["syncs"] = [sync_recv(c1), sync_recv(c2)]
    o["describe_stable"] = [dict(state=x["state"], members=len(x["members"])) for x in describe(c1, g)]
    o["leave_m2"] = leave(c2, g, [(m2, None)])
    o["hb_after_leave"] = heartbeat(c1, g, 2, m1)
    a = join(c1, g, member=m1)
    o["alone"] = dict(err=a["err"], gen=a["gen"], leader=a["leader"] == m1, members=len(a["members"]))
    o["commit_old_gen"] = commit(c1, g, 2, m1)
    o["commit_completing"] = commit(c1, g, 3, m1)
    c2.close()
    return o


SCENARIOS = [("misuse", s_misuse), ("namespace", s_namespace), ("static", s_static), ("rebalance", s_rebalance)]

ALLOW = [
    ("*/throttle_ms", "ignore", "throttle times depend on quotas and load"),
    ("*/describe_*/*/members/*/host", "ignore", "the client address form may differ"),
]


NOT_READY = (14, 15, 16)  # COORDINATOR_LOAD_IN_PROGRESS / NOT_AVAILABLE, NOT_COORDINATOR


def until_ready(fn, secs=90):
    """Kafka creates and loads __consumer_offsets / __share_group_state on first use."""
    deadline = time.time() + secs
    while True:
        v = fn()
        if v not in NOT_READY or time.time() > deadline:
            return v
        time.sleep(0.3)


class Ctx:
    def __init__(self, boot):
        self.boot = boot
        self.c = Conn(boot)
        until_ready(lambda: find_coordinator(self.c, "cgw-warmup"), 60)
        until_ready(lambda: heartbeat(self.c, "cgw-warmup", 1, "m"), 30)


def find_coordinator(c, group):
    """FindCoordinator v4: Kafka creates __consumer_offsets on the first lookup."""
    r = c.call(10, 4, i8(0) + carr([group], cstr) + TAGS)
    r.i32()
    return r.carr(lambda r: (r.cstr(), r.i32(), r.cstr(), r.i32(), r.i16(), r.cstr(), r.tags())[4])[0]


def jsonable(v):
    if isinstance(v, bytes):
        return v.hex()
    if isinstance(v, tuple):
        return [jsonable(x) for x in v]
    if isinstance(v, list):
        return [jsonable(x) for x in v]
    if isinstance(v, dict):
        return {str(k): jsonable(x) for k, x in v.items()}
    return v


def observe(boot, out_path):
    kdiff.observe(boot, out_path, SCENARIOS, lambda old: Ctx(boot), convert=jsonable)


def diff(ref_path, gre_path, report_path=None):
    return kdiff.diff(ref_path, gre_path, report_path, [n for n, _ in SCENARIOS], ALLOW, allowed_values=True)


if __name__ == "__main__":
    kdiff.main("cgroup_differential.py", observe, diff, lambda: kdiff.print_allow(ALLOW))
