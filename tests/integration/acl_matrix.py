#!/usr/bin/env python3
"""The ACL matrix of tests/integration/test_acl.sh: every API that Kafka 4.4.0 authorizes,
with and without the ACL it needs, for the principal User:ANONYMOUS connecting from
127.0.0.1. Standard library only (kwire.py and the share helpers).

ACL management: an "admin" connection from 127.0.0.2 (also User:ANONYMOUS on a PLAINTEXT
listener) holds ALL on CLUSTER and on every TOPIC, GROUP and TRANSACTIONAL_ID through ACLs
restricted to host 127.0.0.2; the ACLs under test are granted to User:ANONYMOUS on host
127.0.0.1 only, so the two never mix. Kafka applies an ACL change asynchronously: after
each change the admin polls DescribeAcls until the broker reports the new set.

  acl_matrix.py bootstrap BOOT                 admin ACLs through BOOT (allow.everyone on)
  acl_matrix.py bootstrap-sasl BOOT CTRL       admin ACLs through Kafka's controller CTRL
                                               with SASL/PLAIN admin/admin-secret (super user)
  acl_matrix.py observe BOOT OUT.json          run the matrix, write the observations
  acl_matrix.py diff KAFKA.json GREGORD.json   compare; "ok - " / "FAIL - " lines
  acl_matrix.py disabled BOOT                  no authorizer: the ACL APIs say SECURITY_DISABLED
Each observation is also checked against the expected error codes (EXPECT) on its own.
"""
import json
import os
import sys
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kwire as kw  # noqa: E402
from kwire import TAGS, ZERO_UUID, boolean, carr, check, cstr, i8, i16, i32, i64  # noqa: E402
import acl_cases_groups as acg  # noqa: E402
import txn_coord_wire as tcw  # noqa: E402
import produce_fetch_wire as pfw  # noqa: E402
import share_coord_wire as scw  # noqa: E402
import share_fetch_wire as sfw  # noqa: E402
import txn_log_wire as tlw  # noqa: E402

ADMIN_HOST, CLIENT_HOST = "127.0.0.2", "127.0.0.1"
ANON = "User:ANONYMOUS"
# Kafka's codes
TOPIC, GROUP, CLUSTER, TXN = 2, 3, 4, 5
LITERAL, PREFIXED = 3, 4
ALL, READ, WRITE, CREATE, DELETE, ALTER, DESCRIBE, CLUSTER_ACTION = 2, 3, 4, 5, 6, 7, 8, 9
DESCRIBE_CONFIGS, ALTER_CONFIGS, IDEMPOTENT_WRITE = 10, 11, 12
ALLOW = 3

T, T2, TD = "acl-t", "acl-t2", "acl-del"
G1, G2, G3, G4 = "acl-g1", "acl-g2", "acl-g3", "acl-g4"
G5, G6, G7 = "acl-seed-g5", "acl-seed-g6", "acl-seed-g7"


# ------------------------------------------------------------------ ACL requests
def create_acls(c, acls):
    """acls: [(rtype, name, ptype, principal, host, op, perm)]; returns [(err, msg)]."""
    body = carr(acls, lambda a: i8(a[0]) + cstr(a[1]) + i8(a[2]) + cstr(a[3]) + cstr(a[4]) + i8(a[5]) + i8(a[6]) +
                TAGS) + TAGS
    r = c.call(30, 3, body)
    r.i32()
    return r.carr(lambda r: (r.i16(), r.cstr(), r.tags())[:2])


def _filter(rtype=1, name=None, ptype=1, principal=None, host=None, op=1, perm=1):
    return i8(rtype) + cstr(name) + i8(ptype) + cstr(principal) + cstr(host) + i8(op) + i8(perm)


def describe_acls(c, **f):
    """(err, msg, sorted [(rtype, name, ptype, principal, host, op, perm)])."""
    r = c.call(29, 3, _filter(**f) + TAGS)
    r.i32()
    err, msg, out = r.i16(), r.cstr(), []

    def res(r):
        rt, name, pt = r.i8(), r.cstr(), r.i8()
        for a in r.carr(lambda r: (r.cstr(), r.cstr(), r.i8(), r.i8(), r.tags())[:4]):
            out.append((rt, name, pt) + a)
        r.tags()
    r.carr(res)
    return err, msg, sorted(out)


def delete_acls(c, filters):
    """filters: [dict]; returns [(err, msg, n matched)]."""
    r = c.call(31, 3, carr(filters, lambda f: _filter(**f) + TAGS) + TAGS)
    r.i32()

    def fr(r):
        err, msg = r.i16(), r.cstr()
        n = len(r.carr(lambda r: (r.i16(), r.cstr(), r.i8(), r.cstr(), r.i8(), r.cstr(), r.cstr(), r.i8(), r.i8(),
                                  r.tags())))
        r.tags()
        return err, msg, n
    return r.carr(fr)


def sasl_plain(c, user, password):
    """SaslHandshake v1 + SaslAuthenticate v2 (PLAIN) on a fresh connection."""
    r = c.call(17, 1, kw.s16("PLAIN"), flexible=False)
    assert r.i16() == 0, "SaslHandshake refused"
    tok = b"\0" + user.encode() + b"\0" + password.encode()
    r = c.call(36, 2, kw.uvarint(len(tok) + 1) + tok + TAGS)
    err = r.i16()
    assert err == 0, "SaslAuthenticate failed: %d %s" % (err, r.cstr())


ADMIN_ACLS = [(rt, name, LITERAL, ANON, ADMIN_HOST, ALL, ALLOW)
              for rt, name in ((CLUSTER, "kafka-cluster"), (TOPIC, "*"), (GROUP, "*"), (TXN, "*"))]


def bootstrap(c):
    res = create_acls(c, ADMIN_ACLS)
    assert all(e == 0 for e, _m in res), "admin ACLs: %r" % (res,)


# ------------------------------------------------------------------ the matrix driver
class Ctx:
    def __init__(self, boot):
        self.boot = boot
        self.admin = kw.Conn(boot, source=ADMIN_HOST)
        self.client = kw.Conn(boot, source=CLIENT_HOST)
        self.pc = pfw.Conn(boot)
        self.ids = {}

    def grant(self, acls):
        """Replace the client's ACLs by acls [(rtype, name, op)] (+ optional ptype) and wait
        until the broker reports exactly them."""
        delete_acls(self.admin, [dict(principal=ANON, host=CLIENT_HOST)])
        want = []
        if acls:
            full = [(a[0], a[1], a[3] if len(a) > 3 else LITERAL, ANON, CLIENT_HOST, a[2], ALLOW) for a in acls]
            res = create_acls(self.admin, full)
            assert all(e == 0 for e, _m in res), "grant %r: %r" % (acls, res)
            want = sorted(full)
        for _ in range(200):
            err, _msg, got = describe_acls(self.admin, principal=ANON, host=CLIENT_HOST)
            if err == 0 and got == want:
                # Kafka applies the ACLs to its authorizer just after DescribeAcls sees them.
                time.sleep(0.05)
                return
            time.sleep(0.05)
        raise RuntimeError("ACLs did not propagate: %r" % (want,))

    def fresh_client(self):
        self.client.close()
        self.client = kw.Conn(self.boot, source=CLIENT_HOST)
        return self.client


def metadata(c, topics, auto=False, ops=False):
    """Metadata v12 by name; {name: (err, ops)} plus the cluster-wide listing when topics is None."""
    body = carr(topics, lambda t: ZERO_UUID + cstr(t) + TAGS) + boolean(auto) + boolean(ops) + TAGS
    r = c.call(3, 12, body)
    r.i32()
    r.carr(lambda r: (r.i32(), r.cstr(), r.i32(), r.cstr(), r.tags()))
    r.cstr(), r.i32()
    out = {}

    def topic(r):
        err, name, _tid, _internal = r.i16(), r.cstr(), r.uuid(), r.boolean()
        r.carr(lambda r: (r.i16(), r.i32(), r.i32(), r.i32(), r.carr(lambda r: r.i32()), r.carr(lambda r: r.i32()),
                          r.carr(lambda r: r.i32()), r.tags()))
        out[name] = [err, r.i32()]
        r.tags()
    r.carr(topic)
    return out


def create_partitions(c, topic, count, validate=True):
    body = carr([topic], lambda t: cstr(t) + i32(count) + carr(None) + TAGS) + i32(30000) + boolean(validate) + TAGS
    r = c.call(37, 3, body)
    r.i32()
    return r.carr(lambda r: (r.cstr(), r.i16(), r.cstr(), r.tags())[1])[0]


def describe_configs(c, rtype, name, key):
    res = i8(rtype) + cstr(name) + carr([key], cstr) + TAGS
    r = c.call(32, 4, carr([res], lambda x: x) + boolean(False) + boolean(False) + TAGS)
    r.i32()

    def entry(r):
        r.cstr(), r.cstr(), r.boolean(), r.i8(), r.boolean()
        r.carr(lambda r: (r.cstr(), r.cstr(), r.i8(), r.tags()))
        r.i8(), r.cstr(), r.tags()

    def result(r):
        err = r.i16()
        r.cstr(), r.i8(), r.cstr(), r.carr(entry), r.tags()
        return err
    return r.carr(result)[0]


def incr_alter_configs(c, rtype, name, key, value):
    cfgs = carr([(key, value)], lambda o: cstr(o[0]) + i8(0) + cstr(o[1]) + TAGS)
    r = c.call(44, 1, carr([i8(rtype) + cstr(name) + cfgs + TAGS], lambda x: x) + boolean(True) + TAGS)
    r.i32()
    return r.carr(lambda r: (r.i16(), r.cstr(), r.i8(), r.cstr(), r.tags())[0])[0]


def init_producer_id(c, txn=None):
    r = c.call(22, 4, cstr(txn) + i32(60000) + i64(-1) + i16(-1) + TAGS)
    r.i32()
    return r.i16()


def find_coordinator(c, key_type, key):
    r = c.call(10, 6, i8(key_type) + carr([key], cstr) + TAGS)
    r.i32()
    return r.carr(lambda r: (r.cstr(), r.i32(), r.cstr(), r.i32(), r.i16(), r.cstr(), r.tags())[4])[0]


def describe_cluster(c):
    r = c.call(60, 1, boolean(True) + i8(1) + TAGS)
    r.i32()
    err = r.i16()
    r.cstr(), r.i8(), r.cstr(), r.i32()
    r.carr(lambda r: (r.i32(), r.cstr(), r.i32(), r.cstr(), r.tags()))
    return [err, r.i32()]


def dtp(c, topic):
    body = carr([topic], lambda t: cstr(t) + TAGS) + i32(100) + i8(-1) + TAGS
    r = c.call(75, 0, body)
    r.i32()
    n = r.uvarint() - 1
    return r.i16() if n > 0 else None


def filters(x):
    """Describe/Delete filter semantics (ANY, MATCH, PREFIXED, LITERAL "*") on ACLs of User:f."""
    f = "User:f"
    acls = [(TOPIC, "foo", LITERAL, f, "*", READ, ALLOW), (TOPIC, "*", LITERAL, f, "*", READ, ALLOW),
            (TOPIC, "fo", PREFIXED, f, "*", READ, 2), (TOPIC, "bar", PREFIXED, f, "*", WRITE, ALLOW),
            (GROUP, "foo", LITERAL, f, "*", READ, ALLOW)]
    create_acls(x.admin, acls)
    for _ in range(200):
        if len(describe_acls(x.admin, principal=f)[2]) == len(acls):
            break
        time.sleep(0.05)

    def names(**flt):
        return [[a[0], a[1], a[2]] for a in describe_acls(x.admin, principal=f, **flt)[2]]
    out = dict(match=names(rtype=TOPIC, name="foo", ptype=2), any=names(name="foo", ptype=1),
               prefixed=names(ptype=PREFIXED), star=names(name="*", ptype=LITERAL), deny=names(perm=2),
               write=names(op=WRITE), any_type_match=names(name="foo", ptype=2))
    out["delete_match"] = [n for _e, _m, n in delete_acls(x.admin, [dict(rtype=TOPIC, name="foo", ptype=2,
                                                                         principal=f)])]
    out["delete_unknown"] = _unknown_filter(x, lambda c: [[e, n] for e, _m, n in delete_acls(c, [dict(ptype=0)])])
    out["describe_unknown"] = _unknown_filter(x, lambda c: describe_acls(c, op=0)[0])
    for _ in range(200):
        left = names()
        if len(left) == 2:
            break
        time.sleep(0.05)
    out["left"] = left
    delete_acls(x.admin, [dict(principal=f)])
    return out


def _unknown_filter(x, fn):
    """A filter with an UNKNOWN code, on a connection of its own: "closed" if the broker closes it."""
    c = kw.Conn(x.boot, source=ADMIN_HOST)
    try:
        return fn(c)
    except (ConnectionError, OSError):
        return "closed"
    finally:
        c.close()


FILTERS = dict(match=[[2, "*", 3], [2, "fo", 4], [2, "foo", 3]], any=[[2, "foo", 3], [3, "foo", 3]],
               prefixed=[[2, "bar", 4], [2, "fo", 4]], star=[[2, "*", 3]], deny=[[2, "fo", 4]],
               write=[[2, "bar", 4]], any_type_match=[[2, "*", 3], [2, "fo", 4], [2, "foo", 3], [3, "foo", 3]],
               delete_match=[3], delete_unknown="closed", describe_unknown="closed", left=[[2, "bar", 4], [3, "foo", 3]])


def describe_group_ops(c, group):
    """DescribeGroups v5 with IncludeAuthorizedOperations: [error, authorized operations]."""
    r = c.call(15, 5, carr([group], cstr) + boolean(True) + TAGS)
    r.i32()

    def g(r):
        err = r.i16()
        r.cstr(), r.cstr(), r.cstr(), r.cstr()
        r.carr(lambda r: None)
        ops = r.i32()
        r.tags()
        return [err, ops]
    return r.carr(g)[0]


def dtp_ops(c, topic):
    """DescribeTopicPartitions v0 for one topic: [error, topic authorized operations]."""
    r = c.call(75, 0, carr([topic], lambda t: cstr(t) + TAGS) + i32(100) + i8(-1) + TAGS)
    r.i32()

    def part(r):
        r.i16(), r.i32(), r.i32(), r.i32()
        for _ in range(5):
            r.carr(lambda r: r.i32())
        r.tags()

    def t(r):
        err = r.i16()
        r.cstr(), r.uuid(), r.boolean(), r.carr(part)
        ops = r.i32()
        r.tags()
        return [err, ops]
    return r.carr(t)[0]


def metadata_cluster_ops(c):
    """Metadata v10 without topics, IncludeClusterAuthorizedOperations: the cluster's bitfield."""
    r = c.call(3, 10, carr([]) + boolean(False) + boolean(True) + boolean(False) + TAGS)
    r.i32()
    r.carr(lambda r: (r.i32(), r.cstr(), r.i32(), r.cstr(), r.tags()))
    r.cstr(), r.i32()
    r.carr(lambda r: None)
    return r.i32()


def sg_describe_err(c, group):
    g = scw.sg_describe(c, [group])[0]
    return [g["err"], len(g["members"] or [])]


# ------------------------------------------------------------------ the cases
def fixtures(x):
    """Topics, records and groups made by the admin connection."""
    for t in (T, T2, TD):
        err, _tid = kw.create_topic(x.admin, t, 1)
        assert err == 0, "create %s: %d" % (t, err)
    # Kafka creates its coordinator topics on the first FindCoordinator: before any check.
    for kt, key in ((0, G1), (1, "acl-txn"), (2, "%s:AAAAAAAAAAAAAAAAAAAAAA:0" % G1)):
        for _ in range(100):
            if find_coordinator(x.admin, kt, key) == 0:
                break
            time.sleep(0.1)
    md = {}
    r = x.admin.call(3, 12, carr([T, T2, TD], lambda t: ZERO_UUID + cstr(t) + TAGS) + boolean(False) + boolean(False)
                     + TAGS)
    r.i32()
    r.carr(lambda r: (r.i32(), r.cstr(), r.i32(), r.cstr(), r.tags()))
    r.cstr(), r.i32()

    def topic(r):
        _err, name, tid, _int = r.i16(), r.cstr(), r.uuid(), r.boolean()
        r.carr(lambda r: (r.i16(), r.i32(), r.i32(), r.i32(), r.carr(lambda r: r.i32()), r.carr(lambda r: r.i32()),
                          r.carr(lambda r: r.i32()), r.tags()))
        r.i32(), r.tags()
        md[name] = tid
    r.carr(topic)
    x.ids.update(md)
    r = pfw.produce(as_pfw(x.admin), T, pfw.batch([b"a", b"b", b"c"]), acks=-1)
    assert r["err"] == 0, "produce fixture: %r" % (r,)
    sfw.set_group_configs(x.admin, G1, {"share.auto.offset.reset": "earliest"})
    # G1 gets a member (the admin's) holding T, for the describe cases.
    res = scw.join_until_assigned(x.admin, G1, uuid.uuid4().hex[:22], [T], 1)
    assert res["err"] == 0 and res["held"] == 1, "admin join: %r" % (res,)
    # Kafka fetches a block of producer ids from its controller on the first InitProducerId.
    for _ in range(100):
        if init_producer_id(x.admin) == 0:
            break
        time.sleep(0.1)
    # G6: an empty share group for the seeds' "Delete group" row.
    err, _m, _p = scw.alter_offsets(x.admin, G6, {T: {0: 0}})
    assert err == 0, "create %s: %d" % (G6, err)
    acg.fixtures(x.admin)


def _share_fetch(x, group, topic):
    out = sfw.share_fetch(x.client, group, uuid.uuid4().hex[:22], 0,
                          topics=[(x.ids[topic], [(0,)])], max_wait=0, min_bytes=1)
    # Kafka may answer a session's first fetch before the partition is ready (no entry):
    # only the partition errors are compared.
    parts = [[p["err"]] for p in out["parts"].values() if p["err"]]
    return [out["err"], parts]


def _share_ack(x, group, topic):
    out = sfw.share_ack(x.client, group, uuid.uuid4().hex[:22], 0, topics=[(x.ids[topic], [(0, [(0, 0, [1])])])])
    return [out["err"]]


def _hb(x, group, topics):
    return scw.hb(x.client, group, uuid.uuid4().hex[:22], 0, topics)["err"]


NO_COLON = "Could not parse principal from `bob` (no colon is present separating the principal type from the " \
    "principal name)"
VALIDATION = [[[42, NO_COLON]], [[42, "Invalid empty resource name"]], [[-1, None]], [[-1, None]],
              [[42, "The only valid name for the CLUSTER resource is kafka-cluster"]], [[-1, None]], [[-1, None]],
              [[-1, None]], [[42, "Invalid operation UNKNOWN"]], [[0, ""]]]


# (name, [needed ACLs (rtype, name, op[, ptype])], observe(x) -> JSON value,
#  expected without the ACLs, expected with them)
CASES = [
    ("Produce WRITE topic", [(TOPIC, T, WRITE)],
     lambda x: pfw.produce(x.client_pfw(), T, pfw.batch([b"x"]), acks=1)["err"], 29, 0),
    ("Fetch READ topic", [(TOPIC, T, READ)],
     lambda x: [p["err"] for p in pfw.fetch(x.client_pfw(), T, 0)["parts"]], [29], [0]),
    ("ListOffsets DESCRIBE topic", [(TOPIC, T, DESCRIBE)],
     lambda x: pfw.list_offsets(x.client_pfw(), T, -1)[0]["err"], 29, 0),
    ("DescribeProducers READ topic", [(TOPIC, T, READ)],
     lambda x: [p[1] for p in tlw.describe_producers(x.client, T)], [29], [0]),
    ("Metadata DESCRIBE topic", [(TOPIC, T, DESCRIBE)],
     lambda x: metadata(x.client, [T], ops=True)[T], [29, -2147483648], [0, 1 << 8]),
    ("Metadata READ implies DESCRIBE, authorized operations", [(TOPIC, T, READ), (TOPIC, T, ALTER_CONFIGS)],
     lambda x: metadata(x.client, [T], ops=True)[T], [29, -2147483648], [0, (1 << 3) | (1 << 8) | (1 << 10) | (1 << 11)]),
    ("Metadata all topics lists only DESCRIBE-able ones", [(TOPIC, "acl-t", DESCRIBE, PREFIXED)],
     lambda x: sorted(n for n in metadata(x.client, None) if n.startswith("acl-")), [], [T, T2]),
    # Kafka creates the topic asynchronously (its first answer says 3); authorized is "not 29".
    ("Metadata auto-create needs CREATE", [(TOPIC, "acl-auto", DESCRIBE), (TOPIC, "acl-auto", CREATE)],
     lambda x: metadata(x.client, ["acl-auto"], auto=True)["acl-auto"][0] == 29, True, False),
    ("Metadata auto-create: DESCRIBE without CREATE", [(TOPIC, "acl-auto2", DESCRIBE)],
     lambda x: metadata(x.client, ["acl-auto2"], auto=True)["acl-auto2"][0], 29, 29),
    ("CreateTopics CREATE topic", [(TOPIC, "acl-new", CREATE)],
     lambda x: kw.create_topic(x.client, "acl-new", 1)[0], 29, 0),
    ("CreateTopics CREATE cluster", [(CLUSTER, "kafka-cluster", CREATE)],
     lambda x: kw.create_topic(x.client, "acl-new2", 1)[0], 29, 0),
    ("DeleteTopics DESCRIBE only", [(TOPIC, TD, DESCRIBE)], lambda x: kw.delete_topic(x.client, TD), 29, 29),
    ("DeleteTopics unknown topic with DESCRIBE", [(TOPIC, "acl-nonexistent", DESCRIBE)],
     lambda x: kw.delete_topic(x.client, "acl-nonexistent"), 29, 3),
    ("DeleteTopics DELETE topic", [(TOPIC, TD, DELETE)], lambda x: kw.delete_topic(x.client, TD), 29, 0),
    ("CreatePartitions ALTER topic", [(TOPIC, T, ALTER)], lambda x: create_partitions(x.client, T, 2), 29, 0),
    ("DeleteRecords DELETE topic", [(TOPIC, T2, DELETE)],
     lambda x: pfw.delete_records(x.client_pfw(), T2, 0)["err"], 29, 0),
    ("DescribeConfigs topic DESCRIBE_CONFIGS", [(TOPIC, T, DESCRIBE_CONFIGS)],
     lambda x: describe_configs(x.client, 2, T, "retention.ms"), 29, 0),
    ("DescribeConfigs topic via ALTER_CONFIGS", [(TOPIC, T, ALTER_CONFIGS)],
     lambda x: describe_configs(x.client, 2, T, "retention.ms"), 29, 0),
    ("DescribeConfigs broker DESCRIBE_CONFIGS cluster", [(CLUSTER, "kafka-cluster", DESCRIBE_CONFIGS)],
     lambda x: describe_configs(x.client, 4, "1", "log.retention.ms"), 31, 0),
    ("DescribeConfigs group DESCRIBE_CONFIGS group", [(GROUP, G1, DESCRIBE_CONFIGS)],
     lambda x: describe_configs(x.client, 32, G1, "share.record.lock.duration.ms"), 30, 0),
    ("IncrementalAlterConfigs topic ALTER_CONFIGS", [(TOPIC, T, ALTER_CONFIGS)],
     lambda x: incr_alter_configs(x.client, 2, T, "retention.ms", "100000"), 29, 0),
    ("IncrementalAlterConfigs broker ALTER_CONFIGS cluster", [(CLUSTER, "kafka-cluster", ALTER_CONFIGS)],
     lambda x: incr_alter_configs(x.client, 4, "1", "log.retention.ms", "100000"), 31, 0),
    ("IncrementalAlterConfigs group ALTER_CONFIGS group", [(GROUP, G1, ALTER_CONFIGS)],
     lambda x: incr_alter_configs(x.client, 32, G1, "share.record.lock.duration.ms", "20000"), 30, 0),
    ("InitProducerId IDEMPOTENT_WRITE cluster", [(CLUSTER, "kafka-cluster", IDEMPOTENT_WRITE)],
     lambda x: init_producer_id(x.client), 31, 0),
    ("InitProducerId WRITE on some topic", [(TOPIC, "acl-any", WRITE, PREFIXED)],
     lambda x: init_producer_id(x.client), 31, 0),
    ("InitProducerId transactional WRITE txn id", [(TXN, "acl-txn", WRITE)],
     lambda x: init_producer_id(x.client, "acl-txn") == 53, True, False),
    # The transaction coordinator: the id "acl-txn2" does not exist, so an authorized request
    # gets INVALID_PRODUCER_ID_MAPPING (49) or TRANSACTIONAL_ID_NOT_FOUND (105).
    ("AddPartitionsToTxn WRITE txn id, no WRITE topic", [(TXN, "acl-txn2", WRITE)],
     lambda x: sorted(tcw.add_partitions(x.client, "acl-txn2", 5, 0, {T: [0]}).values()), [53], [29]),
    ("AddPartitionsToTxn WRITE txn id and topic", [(TXN, "acl-txn2", WRITE), (TOPIC, T, WRITE)],
     lambda x: sorted(tcw.add_partitions(x.client, "acl-txn2", 5, 0, {T: [0]}).values()), [53], [49]),
    ("AddOffsetsToTxn WRITE txn id, READ group", [(TXN, "acl-txn2", WRITE), (GROUP, G2, READ)],
     lambda x: tcw.add_offsets(x.client, "acl-txn2", 5, 0, G2), 53, 49),
    ("AddOffsetsToTxn WRITE txn id without READ group", [(TXN, "acl-txn2", WRITE)],
     lambda x: tcw.add_offsets(x.client, "acl-txn2", 5, 0, G2), 53, 30),
    ("EndTxn WRITE txn id", [(TXN, "acl-txn2", WRITE)], lambda x: tcw.end_txn(x.client, "acl-txn2", 5, 0, True), 53, 49),
    ("TxnOffsetCommit WRITE txn id, READ group and topic", [(TXN, "acl-txn2", WRITE), (GROUP, G2, READ),
                                                             (TOPIC, T, READ)],
     lambda x: tcw.txn_offset_commit(x.client, "acl-txn2", G2, 5, 0, T, {0: 1}), {"0": 53}, {"0": 49}),
    ("TxnOffsetCommit without READ topic", [(TXN, "acl-txn2", WRITE), (GROUP, G2, READ)],
     lambda x: tcw.txn_offset_commit(x.client, "acl-txn2", G2, 5, 0, T, {0: 1}), {"0": 53}, {"0": 29}),
    ("DescribeTransactions DESCRIBE txn id", [(TXN, "acl-txn2", DESCRIBE)],
     lambda x: tcw.describe(x.client, "acl-txn2")["err"], 53, 105),
    ("FindCoordinator group DESCRIBE group", [(GROUP, G1, DESCRIBE)],
     lambda x: find_coordinator(x.client, 0, G1), 30, 0),
    ("FindCoordinator transaction DESCRIBE txn id", [(TXN, "acl-txn", DESCRIBE)],
     lambda x: find_coordinator(x.client, 1, "acl-txn"), 53, 0),
    ("FindCoordinator share key CLUSTER_ACTION", [(CLUSTER, "kafka-cluster", CLUSTER_ACTION)],
     lambda x: find_coordinator(x.client, 2, "%s:AAAAAAAAAAAAAAAAAAAAAA:0" % G1), 31, 0),
    ("DescribeCluster authorized operations need DESCRIBE cluster", [(CLUSTER, "kafka-cluster", DESCRIBE)],
     lambda x: describe_cluster(x.client), [0, 0], [0, 1 << 8]),
    ("ListGroups shows DESCRIBE-able groups", [(GROUP, G1, DESCRIBE)],
     lambda x: sorted(g for g in scw.list_groups(x.client)[1] if g.startswith("acl-")), [], [G1]),
    ("ListGroups DESCRIBE cluster lists all", [(CLUSTER, "kafka-cluster", DESCRIBE)],
     lambda x: G1 in scw.list_groups(x.client)[1], False, True),
    ("DescribeGroups DESCRIBE group", [(GROUP, G1, DESCRIBE)],
     lambda x: scw.describe_groups(x.client, [G1], 5)[0]["err"], 30, 0),
    ("DescribeGroups authorized operations", [(GROUP, G1, DESCRIBE), (GROUP, G1, DELETE)],
     lambda x: describe_group_ops(x.client, G1), [30, -2147483648], [0, (1 << 6) | (1 << 8)]),
    ("DeleteGroups DELETE group", [(GROUP, G3, DELETE)], lambda x: scw.delete_groups(x.client, [G3])[G3], 30, 69),
    ("ShareGroupHeartbeat READ group, DESCRIBE topic", [(GROUP, G4, READ), (TOPIC, T2, DESCRIBE)],
     lambda x: _hb(x, G4, [T2]), 30, 0),
    ("ShareGroupHeartbeat READ group without DESCRIBE topic", [(GROUP, G4, READ)], lambda x: _hb(x, G4, [T2]), 30,
     29),
    ("ShareGroupDescribe DESCRIBE group and assigned topics", [(GROUP, G1, DESCRIBE), (TOPIC, T, DESCRIBE)],
     lambda x: sg_describe_err(x.client, G1)[0], 30, 0),
    ("ShareGroupDescribe hides a group with an undescribable topic", [(GROUP, G1, DESCRIBE)],
     lambda x: sg_describe_err(x.client, G1), [30, 0], [29, 0]),
    ("ShareFetch READ group and topic", [(GROUP, G1, READ), (TOPIC, T, READ)],
     lambda x: _share_fetch(x, G1, T), [30, []], [0, []]),
    ("ShareFetch READ group only", [(GROUP, G1, READ)], lambda x: _share_fetch(x, G1, T), [30, []], [0, [[29]]]),
    ("ShareAcknowledge READ group", [(GROUP, G1, READ), (TOPIC, T, READ)],
     lambda x: _share_ack(x, G1, T)[0] == 30, True, False),
    ("DescribeShareGroupOffsets DESCRIBE group and topic", [(GROUP, G1, DESCRIBE), (TOPIC, T, DESCRIBE)],
     lambda x: _desc_offsets(x, G1, T), [30, []], [0, [0]]),
    ("DescribeShareGroupOffsets DESCRIBE group only", [(GROUP, G1, DESCRIBE)],
     lambda x: _desc_offsets(x, G1, T), [30, []], [0, [29]]),
    ("AlterShareGroupOffsets READ group and topic", [(GROUP, G2, READ), (TOPIC, T, READ)],
     lambda x: _alter_offsets(x, G2, T), [30, []], [0, [0]]),
    ("AlterShareGroupOffsets READ group only", [(GROUP, G2, READ)],
     lambda x: _alter_offsets(x, G2, T), [30, []], [0, [29]]),
    ("DeleteShareGroupOffsets DELETE group and READ topic", [(GROUP, G2, DELETE), (TOPIC, T, READ)],
     lambda x: _delete_offsets(x, G2, T), [30, []], [0, [0]]),
    ("DeleteShareGroupOffsets DELETE group only", [(GROUP, G2, DELETE)],
     lambda x: _delete_offsets(x, G2, T), [30, []], [0, [29]]),
    ("DescribeTopicPartitions DESCRIBE topic", [(TOPIC, T, DESCRIBE)], lambda x: dtp(x.client, T), 29, 0),
    ("DescribeTopicPartitions authorized operations", [(TOPIC, T, READ)], lambda x: dtp_ops(x.client, T),
     [29, -2147483648], [0, (1 << 3) | (1 << 8)]),
    ("Metadata v10 cluster authorized operations", [(CLUSTER, "kafka-cluster", ALTER)],
     lambda x: metadata_cluster_ops(x.client), 0, (1 << 7) | (1 << 8)),
    ("CreateAcls ALTER cluster", [(CLUSTER, "kafka-cluster", ALTER)],
     lambda x: [e for e, _m in create_acls(x.client, [(TOPIC, "acl-x", LITERAL, "User:bob", "*", READ, ALLOW)])],
     [31], [0]),
    ("DescribeAcls DESCRIBE cluster", [(CLUSTER, "kafka-cluster", DESCRIBE)],
     lambda x: describe_acls(x.client, principal="User:bob")[0], 31, 0),
    ("DeleteAcls ALTER cluster", [(CLUSTER, "kafka-cluster", ALTER)],
     lambda x: [(e, n) for e, _m, n in delete_acls(x.client, [dict(principal="User:bob")])], [[31, 0]], [[0, 1]]),
    ("DescribeAcls / DeleteAcls filters", [], filters, FILTERS, FILTERS),
    # Kafka's validation of new ACLs (by the admin, which may create ACLs); one request each.
    ("CreateAcls validation", [],
     lambda x: [create_acls(x.admin, [a]) for a in (
         (TOPIC, "acl-v", LITERAL, "bob", "*", READ, ALLOW),
         (TOPIC, "", LITERAL, ANON, "*", READ, ALLOW),
         (TOPIC, "acl-v", 2, ANON, "*", READ, ALLOW),
         (TOPIC, "acl-v", 1, ANON, "*", READ, ALLOW),
         (CLUSTER, "not-the-cluster", LITERAL, "User:v", "*", ALTER, ALLOW),
         (1, "acl-v", LITERAL, "User:v", "*", ALTER, ALLOW),
         (TOPIC, "acl-v", LITERAL, "User:v", "*", 1, ALLOW),
         (TOPIC, "acl-v", LITERAL, "User:v", "*", READ, 1),
         (TOPIC, "acl-v", LITERAL, "User:v", "*", 99, ALLOW),
         (GROUP, "acl-v", PREFIXED, "User:v", "10.1.1.1", DESCRIBE, 2))],
     VALIDATION, VALIDATION),
    # The users' access table for share groups ("Manage access"), row by row, with the ACLs
    # docs/security.md maps each row to.
    ("seeds: Create a share group = READ group + READ topic", [(GROUP, G5, READ), (TOPIC, T, READ)],
     lambda x: _hb(x, G5, [T]), 30, 0),
    ("seeds: User read queue = READ group + READ topic", [(GROUP, G5, READ), (TOPIC, T, READ)],
     lambda x: _share_fetch(x, G5, T), [30, []], [0, []]),
    ("seeds: Delete group = DELETE group", [(GROUP, G6, DELETE)],
     lambda x: scw.delete_groups(x.client, [G6])[G6], 30, 0),
    ("seeds: Reset offsets = READ group + READ topic", [(GROUP, G7, READ), (TOPIC, T, READ)],
     lambda x: _alter_offsets(x, G7, T), [30, []], [0, [0]]),
    ("seeds: Delete offsets = DELETE group + READ topic", [(GROUP, G7, DELETE), (TOPIC, T, READ)],
     lambda x: _delete_offsets(x, G7, T), [30, []], [0, [0]]),
    ("seeds: View default settings = DESCRIBE_CONFIGS group", [(GROUP, G5, DESCRIBE_CONFIGS)],
     lambda x: describe_configs(x.client, 32, G5, "share.auto.offset.reset"), 30, 0),
    ("seeds: Alter default settings = ALTER_CONFIGS group", [(GROUP, G5, ALTER_CONFIGS)],
     lambda x: incr_alter_configs(x.client, 32, G5, "share.auto.offset.reset", "earliest"), 30, 0),
] + acg.CASES  # UpdateFeatures, SCRAM credentials, classic groups and their offsets


def _desc_offsets(x, group, topic):
    err, _msg, parts = scw.describe_offsets(x.client, group, {topic: [0]})
    return [err, [p["err"] for p in parts.values()]]


def _alter_offsets(x, group, topic):
    err, _msg, parts = scw.alter_offsets(x.client, group, {topic: {0: 0}})
    return [err, list(parts.values())]


def _delete_offsets(x, group, topic):
    err, _msg, parts = scw.delete_offsets(x.client, group, [topic])
    return [err, list(parts.values())]


def as_pfw(conn):
    """The produce_fetch_wire helpers (classic versions) on an existing connection."""
    c = pfw.Conn.__new__(pfw.Conn)
    c.s, c.corr, c.client_id = conn.s, conn.corr + 1000, "wire-test"
    return c


Ctx.client_pfw = lambda self: as_pfw(self.client)


def observe(boot, out_path):
    x = Ctx(boot)
    fixtures(x)
    obs = {}
    for name, acls, fn, want_without, want_with in CASES:
        row = {}
        for label, granted, want in (("without", [], want_without), ("with", acls, want_with)):
            x.grant(granted)
            x.fresh_client()
            try:
                got = fn(x)
            except (ConnectionError, OSError, AssertionError, ValueError, IndexError) as e:
                got = "exception: %s" % type(e).__name__
            got = json.loads(json.dumps(got))
            want = json.loads(json.dumps(want))
            row[label] = got
            check("%s, %s the ACL: %s" % (name, label, got), got == want, "(expected %s)" % (want,))
        obs[name] = row
    x.grant([])
    with open(out_path, "w") as f:
        json.dump(obs, f, indent=1, sort_keys=True)


def diff(kafka_path, gregord_path):
    k, g = json.load(open(kafka_path)), json.load(open(gregord_path))
    for name, _a, _f, _w1, _w2 in CASES:
        check("%s: gregord answers as Apache Kafka 4.4.0 (%s)" % (name, k.get(name)), k.get(name) == g.get(name),
              "(gregord %s)" % (g.get(name),))


def disabled(boot):
    c = kw.Conn(boot)
    res = create_acls(c, [(TOPIC, "t", LITERAL, ANON, "*", READ, ALLOW)])
    check("CreateAcls without an authorizer: SECURITY_DISABLED", res == [(54, "No Authorizer is configured.")], res)
    err, msg, _ = describe_acls(c)
    check("DescribeAcls without an authorizer: SECURITY_DISABLED", (err, msg) ==
          (54, "No Authorizer is configured on the broker"), (err, msg))
    res = delete_acls(c, [dict()])
    check("DeleteAcls without an authorizer: SECURITY_DISABLED", res == [(54, "No Authorizer is configured.", 0)], res)


def main():
    cmd = sys.argv[1]
    if cmd == "bootstrap":
        bootstrap(kw.Conn(sys.argv[2], source=ADMIN_HOST))
    elif cmd == "bootstrap-sasl":
        c = kw.Conn(sys.argv[3])
        sasl_plain(c, "admin", "admin-secret")
        bootstrap(c)
        admin = kw.Conn(sys.argv[2], source=ADMIN_HOST)
        for _ in range(200):  # until the broker applies them
            if describe_acls(admin)[0] == 0:
                break
            time.sleep(0.05)
    elif cmd == "observe":
        observe(sys.argv[2], sys.argv[3])
    elif cmd == "diff":
        diff(sys.argv[2], sys.argv[3])
    elif cmd == "disabled":
        disabled(sys.argv[2])
    sys.exit(1 if kw.FAILED else 0)


if __name__ == "__main__":
    main()
