#!/usr/bin/env python3
"""More cases of the ACL matrix (acl_matrix.py, tests/integration/test_acl.sh): the APIs that
landed beside the ACL work, checked as Apache Kafka 4.4.0 checks them —
Describe/AlterClientQuotas, UpdateFeatures, Describe/AlterUserScramCredentials, the classic group protocol
(JoinGroup, SyncGroup, Heartbeat, LeaveGroup), OffsetCommit / OffsetFetch / OffsetDelete,
DescribeGroups and DeleteGroups on classic groups, and ShareGroupHeartbeat's member-id check
before its topic check. Each observation keeps the error codes and the answer's shape
(which fields an error answer carries); partition lists are sorted. Standard library only.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kwire import TAGS, arr, boolean, carr, cstr, i8, i16, i32, i64, s16, uvarint  # noqa: E402
import cgroup_differential as cgd  # noqa: E402
import share_coord_wire as scw  # noqa: E402
import quota_wire as qw  # noqa: E402

TOPIC, GROUP, CLUSTER = 2, 3, 4
READ, DELETE, ALTER, DESCRIBE, CLUSTER_ACTION, DESCRIBE_CONFIGS, ALTER_CONFIGS = 3, 6, 7, 8, 9, 10, 11
T, T2 = "acl-t", "acl-t2"
CG1 = "acl-cg1"  # Empty classic group with offsets on T and T2 (OffsetCommit / OffsetFetch)
CG2 = "acl-cg2"  # JoinGroup, SyncGroup, Heartbeat, LeaveGroup
CG3 = "acl-cg3"  # OffsetDelete
CG4 = "acl-cg4"  # DeleteGroups
G4 = "acl-g4"    # the share group of acl_matrix's heartbeat cases
MISSING = "acl-missing"
MIN_INT = -2147483648


# ------------------------------------------------------------------ requests
def commit(c, group, topics, gen=-1, member=""):
    """OffsetCommit v9, offset 1 for every partition; topics [(name, [partitions])] ->
    sorted [[name, sorted [[partition, error]]]]."""
    part = lambda p: i32(p) + i64(1) + i32(-1) + cstr("") + TAGS  # noqa: E731
    body = cstr(group) + i32(gen) + cstr(member) + cstr(None) + \
        carr(topics, lambda t: cstr(t[0]) + carr(t[1], part) + TAGS) + TAGS
    r = c.call(8, 9, body)
    r.i32()
    ts = r.carr(lambda r: [r.cstr(), sorted(r.carr(lambda r: [r.i32(), r.i16(), r.tags()][:2])), r.tags()][:2])
    return sorted(ts)


def _fetch_part(r):
    p = [r.i32(), r.i64(), r.i32(), r.cstr(), r.i16()]
    r.tags()
    return p


def fetch(c, groups):
    """OffsetFetch v9; groups [(group, topics [(name, [partitions])] or None for all)] ->
    [[group, error, [[name, [[partition, offset, epoch, metadata, error]]]]]] in answer order."""
    def grp(g):
        ts = carr(None) if g[1] is None else carr(g[1], lambda t: cstr(t[0]) + carr(t[1], i32) + TAGS)
        return cstr(g[0]) + cstr(None) + i32(-1) + ts + TAGS
    r = c.call(9, 9, carr(groups, grp) + boolean(False) + TAGS)
    r.i32()

    def grp_(r):
        gid = r.cstr()
        ts = r.carr(lambda r: [r.cstr(), r.carr(_fetch_part), r.tags()][:2])
        err = r.i16()
        r.tags()
        return [gid, err, ts]
    return r.carr(grp_)


def fetch_v7(c, group, topics):
    """OffsetFetch v7 (one group, flexible): [top-level error, [[name, [[p, offset, error]]]]]."""
    body = cstr(group) + carr(topics, lambda t: cstr(t[0]) + carr(t[1], i32) + TAGS) + boolean(False) + TAGS
    r = c.call(9, 7, body)
    r.i32()
    ts = r.carr(lambda r: [r.cstr(), [[p[0], p[1], p[4]] for p in r.carr(_fetch_part)], r.tags()][:2])
    return [r.i16(), ts]


def fetch_v1(c, group, topics):
    """OffsetFetch v1 (no top-level error): [[name, [[p, offset, metadata, error]]]]."""
    body = s16(group) + arr(topics, lambda t: s16(t[0]) + arr(t[1], i32))
    r = c.call(9, 1, body, flexible=False)
    return r.arr(lambda r: [r.string(), r.arr(lambda r: [r.i32(), r.i64(), r.string(), r.i16()])])


def update_features(c):
    """UpdateFeatures v1, validate only: share.version at its fresh level 2 (UPGRADE).
    [error, message kind, [[feature, error]]] — Kafka's denial message names its request object."""
    body = i32(30000) + carr([("share.version", 2, 1)], lambda u: cstr(u[0]) + i16(u[1]) + i8(u[2]) + TAGS)
    r = c.call(57, 1, body + boolean(True) + TAGS)
    r.i32()
    err, msg = r.i16(), r.cstr()
    res = r.carr(lambda r: [r.cstr(), r.i16(), r.cstr(), r.tags()][:2])
    return [err, _denied_kind(msg), res]


def _denied_kind(msg):
    if msg and msg.startswith("Request ") and msg.endswith(" needs ALTER permission."):
        return "Request ... needs ALTER permission."
    return msg


def describe_scram(c, users):
    """DescribeUserScramCredentials v0: [error, message, [[user, error, message]]] in answer order."""
    r = c.call(50, 0, carr(users, lambda u: cstr(u) + TAGS) + TAGS)
    r.i32()
    top = [r.i16(), r.cstr()]
    res = r.carr(lambda r: [r.cstr(), r.i16(), r.cstr(), r.carr(lambda r: r.tags()), r.tags()][:3])
    return top + [res]


def alter_scram(c, deletions, upsertions):
    """AlterUserScramCredentials v0 (SCRAM-SHA-256): [[user, error, message kind]] in answer order."""
    up = lambda u: cstr(u) + i8(1) + i32(4096) + cbytes(b"s" * 16) + cbytes(b"p" * 32) + TAGS  # noqa: E731
    body = carr(deletions, lambda u: cstr(u) + i8(1) + TAGS) + carr(upsertions, up) + TAGS
    r = c.call(51, 0, body)
    r.i32()
    return r.carr(lambda r: [r.cstr(), r.i16(), _denied_kind(r.cstr()), r.tags()][:3])


def join(c, group):
    """JoinGroup v7 without a member id: the error answer's fields, or MEMBER_ID_REQUIRED."""
    d = cgd.join(c, group, ver=7)
    if d["err"] == 79:
        return [79, bool(d["member"])]
    return [d["err"], d["gen"], d["ptype"], d["pname"], d["leader"], d["member"], d["members"]]


def offset_delete(c, group, topic):
    d = cgd.offset_delete(c, group, topic)
    return [d["err"], d["parts"]]


def cbytes(b):
    return uvarint(len(b) + 1) + b


def describe_ops(c, group):
    """DescribeGroups v5 with IncludeAuthorizedOperations: [error, state, authorized operations]."""
    r = c.call(15, 5, carr([group], cstr) + boolean(True) + TAGS)
    r.i32()

    def g(r):
        err = r.i16()
        _id, state, _pt, _pd = r.cstr(), r.cstr(), r.cstr(), r.cstr()
        r.carr(lambda r: (r.cstr(), r.cstr(), r.cstr(), r.cstr(), r.cbytes(), r.cbytes(), r.tags()))
        ops = r.i32()
        r.tags()
        return [err, state, ops]
    return r.carr(g)[0]


def describe_classic(c, group):
    g = scw.describe_groups(c, [group], 5)[0]
    return [g["err"], g["state"], g["protocol"]]


def describe_order(c, groups):
    """DescribeGroups v5: [[group, error]] in answer order."""
    return [[g["id"], g["err"]] for g in scw.describe_groups(c, groups, 5)]


def delete_order(c, groups):
    """DeleteGroups v2: [[group, error]] in answer order."""
    r = c.call(42, 2, carr(groups, cstr) + TAGS)
    r.i32()
    return r.carr(lambda r: [r.cstr(), r.i16(), r.tags()][:2])


def hb(c, member, topics):
    r = scw.hb(c, G4, member, 0, topics)
    return [r["err"], r["msg"], r["member"]]


# ------------------------------------------------------------------ fixtures and cases
def fixtures(admin):
    """Classic groups made by the admin: Empty groups with committed offsets (offset 1)."""
    for g, ts in ((CG1, [(T, [0]), (T2, [0])]), (CG3, [(T, [0])]), (CG4, [(T, [0])])):
        res = commit(admin, g, ts)
        assert all(e == 0 for _t, ps in res for _p, e in ps), "commit %s: %r" % (g, res)


OFF_T = [T, [[0, 1, -1, "", 0]]]
DENIED_T2 = [T2, [[0, -1, -1, "", 29]]]
SCRAM_DENIED = [31, None]

def follower_fetch(x):
    """Fetch v11 with replica id 5 (a follower's fetch): the partition errors."""
    import produce_fetch_wire as pfw
    return [p["err"] for p in pfw.fetch(x.client_pfw(), T, 0, replica_id=5)["parts"]]


def describe_quotas(c):
    err, msg, entries, _ = qw.describe(c, [("user", 0, "acl-nobody")])
    return [err, msg, entries]


def alter_quotas(c):
    res, _ = qw.alter(c, [([("user", "acl-q")], [("producer_byte_rate", 1024, False)])], validate_only=True)
    return [[e, m, [list(p) for p in ent]] for e, m, ent in res]


CASES = [
    ("DescribeClientQuotas DESCRIBE_CONFIGS cluster", [(CLUSTER, "kafka-cluster", DESCRIBE_CONFIGS)],
     lambda x: describe_quotas(x.client), [31, None, None], [0, "", []]),
    ("AlterClientQuotas ALTER_CONFIGS cluster", [(CLUSTER, "kafka-cluster", ALTER_CONFIGS)],
     lambda x: alter_quotas(x.client), [[31, "Cluster authorization failed.", [["user", "acl-q"]]]],
     [[0, None, [["user", "acl-q"]]]]),
    ("Fetch from a follower: READ on the topic is not enough", [(TOPIC, T, READ)], follower_fetch, [29], [29]),
    ("Fetch from a follower needs CLUSTER_ACTION", [(CLUSTER, "kafka-cluster", CLUSTER_ACTION)], follower_fetch,
     [29], [6]),
    ("UpdateFeatures ALTER cluster", [(CLUSTER, "kafka-cluster", ALTER)], lambda x: update_features(x.client),
     [31, "Request ... needs ALTER permission.", []], [0, None, [["share.version", 0]]]),
    ("DescribeUserScramCredentials DESCRIBE cluster", [(CLUSTER, "kafka-cluster", DESCRIBE)],
     lambda x: describe_scram(x.client, ["acl-nobody", "acl-nobody2"]),
     SCRAM_DENIED + [[["", 31, None], ["", 31, None]]],
     [0, "", [["acl-nobody", 91, "Attempt to describe a user credential that does not exist: acl-nobody"],
                ["acl-nobody2", 91, "Attempt to describe a user credential that does not exist: acl-nobody2"]]]),
    ("AlterUserScramCredentials ALTER cluster", [(CLUSTER, "kafka-cluster", ALTER)],
     lambda x: alter_scram(x.client, ["acl-zed"], ["acl-amy", "acl-amy"]),
     [["acl-amy", 31, "Request ... needs ALTER permission."], ["acl-zed", 31, "Request ... needs ALTER permission."]],
     [["acl-zed", 91, "Attempt to delete a user credential that does not exist"],
      ["acl-amy", 92, "A user credential cannot be altered twice in the same request"]]),
    ("JoinGroup READ group", [(GROUP, CG2, READ)], lambda x: join(x.client, CG2),
     [30, -1, None, None, "", "", []], [79, True]),
    ("SyncGroup READ group", [(GROUP, CG2, READ)], lambda x: cgd.sync(x.client, CG2, 1, "nope"),
     dict(err=30, ptype=None, pname=None, assignment=""), dict(err=25, ptype=None, pname=None, assignment="")),
    ("Heartbeat READ group", [(GROUP, CG2, READ)], lambda x: cgd.heartbeat(x.client, CG2, 1, "nope"), 30, 25),
    ("LeaveGroup READ group (batch)", [(GROUP, CG2, READ)], lambda x: cgd.leave(x.client, CG2, [("nope", None)]),
     dict(err=30, members=[]), dict(err=0, members=[25])),
    ("OffsetCommit READ group and topic", [(GROUP, CG1, READ), (TOPIC, T, READ)],
     lambda x: commit(x.client, CG1, [(T, [0])]), [[T, [[0, 30]]]], [[T, [[0, 0]]]]),
    ("OffsetCommit READ group only", [(GROUP, CG1, READ)],
     lambda x: commit(x.client, CG1, [(T, [0])]), [[T, [[0, 30]]]], [[T, [[0, 29]]]]),
    ("OffsetCommit an unknown topic without READ is 29", [(GROUP, CG1, READ), (TOPIC, T, READ)],
     lambda x: commit(x.client, CG1, [(T, [0, 5]), (MISSING, [0])]),
     [[MISSING, [[0, 30]]], [T, [[0, 30], [5, 30]]]], [[MISSING, [[0, 29]]], [T, [[0, 0], [5, 3]]]]),
    ("OffsetCommit an unknown topic with READ is 3", [(GROUP, CG1, READ), (TOPIC, MISSING, READ)],
     lambda x: commit(x.client, CG1, [(MISSING, [0])]), [[MISSING, [[0, 30]]]], [[MISSING, [[0, 3]]]]),
    ("OffsetFetch DESCRIBE group and each named topic", [(GROUP, CG1, DESCRIBE), (TOPIC, T, DESCRIBE)],
     lambda x: fetch(x.client, [(CG1, [(T2, [0]), (T, [0])])]),
     [[CG1, 30, []]], [[CG1, 0, [OFF_T, DENIED_T2]]]),
    ("OffsetFetch all topics leaves the undescribable out", [(GROUP, CG1, DESCRIBE), (TOPIC, T, DESCRIBE)],
     lambda x: fetch(x.client, [(CG1, None)]), [[CG1, 30, []]], [[CG1, 0, [OFF_T]]]),
    ("OffsetFetch DESCRIBE per group", [(GROUP, CG1, DESCRIBE), (TOPIC, T, READ)],
     lambda x: fetch(x.client, [(CG3, [(T, [0])]), (CG1, [(T, [0])])]),
     [[CG3, 30, []], [CG1, 30, []]], [[CG3, 30, []], [CG1, 0, [OFF_T]]]),
    ("OffsetFetch v7 group denied at the top level", [(GROUP, CG1, DESCRIBE), (TOPIC, T, DESCRIBE)],
     lambda x: fetch_v7(x.client, CG1, [(T, [0]), (T2, [0])]), [30, []], [0, [[T, [[0, 1, 0]]], [T2, [[0, -1, 29]]]]]),
    ("OffsetFetch v1 group denied per partition", [(GROUP, CG1, DESCRIBE), (TOPIC, T, DESCRIBE)],
     lambda x: fetch_v1(x.client, CG1, [(T, [0])]), [[T, [[0, -1, "", 30]]]], [[T, [[0, 1, "", 0]]]]),
    ("OffsetDelete DELETE group only", [(GROUP, CG3, DELETE)], lambda x: offset_delete(x.client, CG3, T),
     [30, []], [0, [29]]),
    ("OffsetDelete DELETE group and READ topic", [(GROUP, CG3, DELETE), (TOPIC, T, READ)],
     lambda x: offset_delete(x.client, CG3, T), [30, []], [0, [0]]),
    ("DescribeGroups classic group DESCRIBE group", [(GROUP, CG1, DESCRIBE)],
     lambda x: describe_classic(x.client, CG1), [30, "", ""], [0, "Empty", ""]),
    ("DescribeGroups classic group authorized operations", [(GROUP, CG1, DESCRIBE), (GROUP, CG1, READ)],
     lambda x: describe_ops(x.client, CG1), [30, "", MIN_INT], [0, "Empty", (1 << 3) | (1 << 8)]),
    ("DeleteGroups classic group DELETE group", [(GROUP, CG4, DELETE)],
     lambda x: scw.delete_groups(x.client, [CG4])[CG4], 30, 0),
    ("DescribeGroups answers the denied groups first", [(GROUP, CG1, DESCRIBE)],
     lambda x: describe_order(x.client, [CG1, "acl-cg-x"]), [[CG1, 30], ["acl-cg-x", 30]],
     [["acl-cg-x", 30], [CG1, 0]]),
    ("DeleteGroups answers the denied groups last", [(GROUP, "acl-cg-none", DELETE)],
     lambda x: delete_order(x.client, ["acl-cg5", "acl-cg-none"]), [["acl-cg5", 30], ["acl-cg-none", 30]],
     [["acl-cg-none", 69], ["acl-cg5", 30]]),
    ("ShareGroupDescribe answers the denied groups first, the code alone",
     [(GROUP, "acl-g1", DESCRIBE), (TOPIC, T, DESCRIBE)],
     lambda x: [[g["id"], g["err"], g["msg"]] for g in scw.sg_describe(x.client, ["acl-g1", "acl-g-x"])],
     [["acl-g1", 30, None], ["acl-g-x", 30, None]], [["acl-g-x", 30, None], ["acl-g1", 0, None]]),
    ("ShareGroupHeartbeat member id before the topics", [(GROUP, G4, READ)], lambda x: hb(x.client, "", [T2]),
     [30, None, None], [42, None, None]),
    ("ShareGroupHeartbeat member id longer than 36", [(GROUP, G4, READ), (TOPIC, T2, DESCRIBE)],
     lambda x: hb(x.client, "m" * 37, [T2]), [30, None, None], [42, None, None]),
]
