#!/usr/bin/env python3
"""Raw-wire checks of the share-group coordinator APIs (spec §4-§6).

Used by tests/integration/test_share_coord.sh. Standard library only (kwire.py).

  share_coord_wire.py HOST:PORT CHECK [ARGS]
CHECK is one of:
  main             ApiVersions, heartbeat (join, assignment after initialization, errors
                   25/42/69/81/110, interval from group config), ShareGroupDescribe,
                   ListGroups filters, DescribeGroups, DeleteGroups (68/69/ok, state gone),
                   Describe/Alter/DeleteShareGroupOffsets (68, 69, 3, lag), group configs.
                   Needs a broker started with group.share.max.size=2.
  expiry           a member whose session times out is removed (needs the min session
                   timeout / heartbeat interval bounds lowered to 1000 / 500).
  persist-setup G  a group with two members, configs and initialized partitions.
  persist-verify G the same after a restart (kill -9 too).
Prints "ok - ..." / "FAIL - ..." lines; exit status 1 on any FAIL.
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kwire  # noqa: E402
from kwire import (TAGS, ZERO_UUID, Conn, api_versions, boolean, carr, check, create_topic, cstr, i8, i32,  # noqa: E402
                   i64, uvarint)
import produce_fetch_wire as pfw  # noqa: E402


# ------------------------------------------------------------------ requests
def hb(c, group, member, epoch, topics=None, rack=None):
    body = cstr(group) + cstr(member) + i32(epoch) + cstr(rack) + carr(topics, cstr) + TAGS
    r = c.call(76, 1, body)
    _thr, err, msg, mid, mepoch, interval = r.i32(), r.i16(), r.cstr(), r.cstr(), r.i32(), r.i32()
    assignment = None
    if r.i8() >= 0:
        tps = r.carr(lambda r: (r.uuid(), r.carr(lambda r: r.i32()), r.tags())[:2])
        r.tags()
        assignment = {t: sorted(p) for t, p in tps}
    return dict(err=err, msg=msg, member=mid, epoch=mepoch, interval=interval, assignment=assignment)


def join_until_assigned(c, group, member, topics, want, tries=40):
    """Join, then heartbeat until the member holds `want` partitions (Kafka assigns once
    the share state is initialized, normally on a later heartbeat)."""
    res = hb(c, group, member, 0, topics)
    first = res
    held = sum(len(p) for p in (res["assignment"] or {}).values())
    for _ in range(tries):
        if res["err"] or held >= want:
            break
        time.sleep(0.25)
        res = hb(c, group, member, res["epoch"])
        if res["assignment"] is not None:
            held = sum(len(p) for p in res["assignment"].values())
    res["first"] = first
    res["held"] = held
    return res


def sg_describe(c, groups):
    r = c.call(77, 1, carr(groups, cstr) + boolean(False) + TAGS)
    r.i32()

    def member(r):
        m = dict(id=r.cstr(), rack=r.cstr(), epoch=r.i32(), client_id=r.cstr(), host=r.cstr(),
                 topics=r.carr(lambda r: r.cstr()))
        tps = r.carr(lambda r: (r.uuid(), r.cstr(), r.carr(lambda r: r.i32()), r.tags())[:3])
        r.tags()
        m["assignment"] = {name: sorted(p) for _u, name, p in tps}
        r.tags()
        return m

    def group(r):
        g = dict(err=r.i16(), msg=r.cstr(), id=r.cstr(), state=r.cstr(), epoch=r.i32(), aepoch=r.i32(),
                 assignor=r.cstr(), members=r.carr(member), ops=r.i32())
        r.tags()
        return g
    return r.carr(group)


def list_groups(c, states=(), types=()):
    r = c.call(16, 5, carr(list(states), cstr) + carr(list(types), cstr) + TAGS)
    r.i32()
    err = r.i16()
    gs = r.carr(lambda r: (r.cstr(), r.cstr(), r.cstr(), r.cstr(), r.tags())[:4])
    return err, {g[0]: dict(protocol=g[1], state=g[2], type=g[3]) for g in gs}


def describe_groups(c, groups, ver):
    r = c.call(15, ver, carr(groups, cstr) + boolean(False) + TAGS)
    r.i32()

    def g(r):
        err = r.i16()
        msg = r.cstr() if ver >= 6 else None
        d = dict(err=err, msg=msg, id=r.cstr(), state=r.cstr(), protocol=r.cstr(), data=r.cstr())
        d["members"] = r.carr(lambda r: None)
        d["ops"] = r.i32()
        r.tags()
        return d
    return r.carr(g)


def delete_groups(c, groups):
    r = c.call(42, 2, carr(groups, cstr) + TAGS)
    r.i32()
    return {g: e for g, e in r.carr(lambda r: (r.cstr(), r.i16(), r.tags())[:2])}


def delete_groups_v3(c, groups):
    """DeleteGroups v3 (Kafka 4.4.0): a per-group ErrorMessage. Returns {group: [error, message]}."""
    r = c.call(42, 3, carr(groups, cstr) + TAGS)
    r.i32()
    return {g: [e, m] for g, e, m in r.carr(lambda r: (r.cstr(), r.i16(), r.cstr(), r.tags())[:3])}


def describe_offsets(c, group, topics):
    """topics: {name: [partitions]} or None (all). Returns (err, msg, {(topic, p): dict})."""
    tl = None if topics is None else [(t, ps) for t, ps in topics.items()]
    g = cstr(group) + carr(tl, lambda tp: cstr(tp[0]) + carr(tp[1], i32) + TAGS) + TAGS
    r = c.call(90, 1, carr([g], lambda x: x) + TAGS)
    r.i32()
    out = {}

    def part(r, name, tid):
        p = dict(index=r.i32(), start=r.i64(), leader_epoch=r.i32(), lag=r.i64(), err=r.i16(), msg=r.cstr(),
                 topic_id=tid)
        r.tags()
        out[(name, p["index"])] = p

    def topic(r):
        name, tid = r.cstr(), r.uuid()
        r.carr(lambda r: part(r, name, tid))
        r.tags()

    def grp(r):
        gid = r.cstr()
        r.carr(topic)
        e = (gid, r.i16(), r.cstr())
        r.tags()
        return e
    gs = r.carr(grp)
    return gs[0][1], gs[0][2], out


def alter_offsets(c, group, topics):
    """topics: {name: {partition: offset}}. Returns (err, msg, {(topic, p): err})."""
    body = cstr(group) + carr(list(topics.items()), lambda tp: cstr(tp[0]) + carr(
        list(tp[1].items()), lambda po: i32(po[0]) + i64(po[1]) + TAGS) + TAGS) + TAGS
    r = c.call(91, 0, body)
    r.i32()
    err, msg = r.i16(), r.cstr()
    out = {}

    def topic(r):
        name, _tid = r.cstr(), r.uuid()
        for p, e, _m in r.carr(lambda r: (r.i32(), r.i16(), r.cstr(), r.tags())[:3]):
            out[(name, p)] = e
        r.tags()
    r.carr(topic)
    return err, msg, out


def delete_offsets(c, group, topics):
    r = c.call(92, 0, cstr(group) + carr(topics, lambda t: cstr(t) + TAGS) + TAGS)
    r.i32()
    err, msg = r.i16(), r.cstr()
    res = r.carr(lambda r: (r.cstr(), r.uuid(), r.i16(), r.cstr(), r.tags())[:4])
    return err, msg, {t: e for t, _u, e, _m in res}


def describe_group_configs(c, group, keys=None):
    res = i8(32) + cstr(group) + carr(keys, cstr) + TAGS
    r = c.call(32, 4, carr([res], lambda x: x) + boolean(False) + boolean(False) + TAGS)
    r.i32()

    def entry(r):
        e = dict(name=r.cstr(), value=r.cstr(), read_only=r.boolean(), source=r.i8(), sensitive=r.boolean())
        r.carr(lambda r: (r.cstr(), r.cstr(), r.i8(), r.tags()))
        e["type"] = r.i8()
        r.cstr()
        r.tags()
        return e

    def result(r):
        d = dict(err=r.i16(), msg=r.cstr(), type=r.i8(), name=r.cstr(), configs=r.carr(entry))
        r.tags()
        return d
    d = r.carr(result)[0]
    d["map"] = {e["name"]: e for e in d["configs"] or []}
    return d


def describe_group_configs_until(c, group, keys, settled, timeout=10.0):
    """Describes until settled(result) holds or timeout seconds pass; returns the last result.
    Apache Kafka applies an IncrementalAlterConfigs change to the broker's view through its
    metadata log, after it answers: a describe right behind it may still show the old value."""
    deadline = time.monotonic() + timeout
    while True:
        d = describe_group_configs(c, group, keys)
        if settled(d) or time.monotonic() > deadline:
            return d
        time.sleep(0.1)


def incr_alter_group_configs(c, group, ops, validate_only=False):
    """ops: [(name, op, value)]; op 0 SET, 1 DELETE, 2 APPEND, 3 SUBTRACT."""
    cfgs = carr(ops, lambda o: cstr(o[0]) + i8(o[1]) + cstr(o[2]) + TAGS)
    res = i8(32) + cstr(group) + cfgs + TAGS
    r = c.call(44, 1, carr([res], lambda x: x) + boolean(validate_only) + TAGS)
    r.i32()
    return r.carr(lambda r: (r.i16(), r.cstr(), r.i8(), r.cstr(), r.tags())[:2])[0]


def alter_group_configs(c, group, kv):
    cfgs = carr(list(kv.items()), lambda o: cstr(o[0]) + cstr(o[1]) + TAGS)
    res = i8(32) + cstr(group) + cfgs + TAGS
    r = c.call(33, 2, carr([res], lambda x: x) + boolean(False) + TAGS)
    r.i32()
    return r.carr(lambda r: (r.i16(), r.cstr(), r.i8(), r.cstr(), r.tags())[:2])[0]


def produce(c, topic, n, part=0):
    return pfw.produce(c, topic, pfw.batch([b"v%d" % i for i in range(n)]), acks=-1, part=part)["err"]


from share_coord_checks import run  # noqa: E402

if __name__ == "__main__":
    if len(sys.argv) < 3:
        print(__doc__)
        sys.exit(2)
    run(sys.modules[__name__], Conn(sys.argv[1]), sys.argv[2], sys.argv[3:])
    print("%d failed" % kwire.FAILED)
    sys.exit(1 if kwire.FAILED else 0)
