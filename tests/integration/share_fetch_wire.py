#!/usr/bin/env python3
"""Raw-wire checks of ShareFetch (78) and ShareAcknowledge (79) against a broker.

Used by tests/integration/test_share_fetch.sh. Standard library only: flexible
requests are built by hand (kwire.py), records are produced with Produce v8
(produce_fetch_wire.py). The share group is used only logically (the share-partition
leader does not check membership, spec §2.2.3); group configs are set with
IncrementalAlterConfigs on resource type GROUP (32).

  share_fetch_wire.py HOST:PORT CHECK [ARGS...]
Every check prints "ok - ..." / "FAIL - ..." lines; exit status 1 on any FAIL.
Checks: basic, sessions, acks, renew, redelivery, expiry, limit, cap, modes, longpoll,
        release, inclusion, limit_sessions, durable1 GROUP TOPIC, durable2 GROUP TOPIC.
"""
import os
import sys
import threading
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kwire as kw  # noqa: E402
from kwire import TAGS, boolean, carr, check, cstr, i8, i32, i64, uvarint  # noqa: E402
import produce_fetch_wire as pfw  # noqa: E402

GAP, ACCEPT, RELEASE, REJECT, RENEW = 0, 1, 2, 3, 4


# ------------------------------------------------------------------ requests
def _acks(batches):
    return carr(batches or [], lambda a: i64(a[0]) + i64(a[1]) + carr(a[2], i8) + TAGS)


def share_fetch(c, group, member, epoch, topics=(), forgotten=(), max_wait=0, min_bytes=1, max_bytes=1 << 20,
                max_records=500, batch_size=500, mode=0, renew=False, ver=1):
    """topics: [(topic_id, [(partition, [(first, last, [types])])])]."""
    body = share_fetch_body(group, member, epoch, topics, forgotten, max_wait, min_bytes, max_bytes, max_records,
                            batch_size, mode, renew, ver)
    return parse_fetch(c.call(78, ver, body))


def share_fetch_body(group, member, epoch, topics=(), forgotten=(), max_wait=0, min_bytes=1, max_bytes=1 << 20,
                     max_records=500, batch_size=500, mode=0, renew=False, ver=1):
    """The body of a ShareFetch: send it with c.send(78, ver, body, True), read parse_fetch(c.recv(True))."""
    def part(p):
        return i32(p[0]) + _acks(p[1] if len(p) > 1 else []) + TAGS

    def topic(t):
        return t[0] + carr(t[1], part) + TAGS

    body = cstr(group) + cstr(member) + i32(epoch) + i32(max_wait) + i32(min_bytes) + i32(max_bytes)
    body += i32(max_records) + i32(batch_size)
    if ver >= 2:
        body += i8(mode) + boolean(renew)
    body += carr(list(topics), topic)
    return body + carr(list(forgotten), lambda f: f[0] + carr(f[1], i32) + TAGS) + TAGS


def parse_fetch(r):
    out = dict(throttle=r.i32(), err=r.i16(), msg=r.cstr(), lock_ms=r.i32(), parts={})

    def acq(r):
        v = (r.i64(), r.i64(), r.i16())
        r.tags()
        return v

    for _ in range(r.uvarint() - 1):
        tid = r.uuid()
        for _ in range(r.uvarint() - 1):
            p = dict(index=r.i32(), err=r.i16(), msg=r.cstr(), ack_err=r.i16(), ack_msg=r.cstr())
            p["leader"] = (r.i32(), r.i32())
            r.tags()
            p["records"] = r.cbytes()
            p["acquired"] = r.carr(acq)
            r.tags()
            out["parts"][(tid, p["index"])] = p
        r.tags()
    out["endpoints"] = r.carr(lambda r: (r.i32(), r.cstr(), r.i32(), r.cstr(), r.tags())[:4])
    r.tags()
    return out


def share_ack(c, group, member, epoch, topics=(), renew=False, ver=1):
    def part(p):
        return i32(p[0]) + _acks(p[1]) + TAGS

    body = cstr(group) + cstr(member) + i32(epoch)
    if ver >= 2:
        body += boolean(renew)
    body += carr(list(topics), lambda t: t[0] + carr(t[1], part) + TAGS) + TAGS
    r = c.call(79, ver, body)
    out = dict(throttle=r.i32(), err=r.i16(), msg=r.cstr(), parts={})
    if ver >= 2:
        out["lock_ms"] = r.i32()
    for _ in range(r.uvarint() - 1):
        tid = r.uuid()
        for _ in range(r.uvarint() - 1):
            idx, err, msg = r.i32(), r.i16(), r.cstr()
            r.i32(), r.i32(), r.tags()
            r.tags()
            out["parts"][(tid, idx)] = dict(err=err, msg=msg)
        r.tags()
    return out


def set_group_configs(c, group, configs):
    """IncrementalAlterConfigs v1, resource GROUP (32), SET operations."""
    cfg = carr(list(configs.items()), lambda kv: cstr(kv[0]) + i8(0) + cstr(str(kv[1])) + TAGS)
    body = carr([1], lambda _: i8(32) + cstr(group) + cfg + TAGS) + boolean(False) + TAGS
    r = c.call(44, 1, body)
    r.i32()
    res = r.carr(lambda r: (r.i16(), r.cstr(), r.i8(), r.cstr(), r.tags())[:2])
    return res[0]


class Env:
    """One topic (1 partition) and one group per check."""

    def __init__(self, boot, name, configs=None, partitions=1):
        self.boot = boot
        self.c = kw.Conn(boot)
        self.topic = "sf-%s-%s" % (name, uuid.uuid4().hex[:6])
        self.group = "g-%s-%s" % (name, uuid.uuid4().hex[:6])
        err, self.tid = kw.create_topic(self.c, self.topic, partitions)
        assert err == 0, "create topic: %d" % err
        cfg = {"share.auto.offset.reset": "earliest"}
        cfg.update(configs or {})
        err, msg = set_group_configs(self.c, self.group, cfg)
        assert err == 0, "group configs: %d %s" % (err, msg)
        self.pc = pfw.Conn(boot)

    def produce(self, n, per_batch=None, part=0):
        per_batch = per_batch or n
        base = None
        for i in range(0, n, per_batch):
            vals = [b"v%d" % j for j in range(i, min(n, i + per_batch))]
            r = pfw.produce(self.pc, self.topic, pfw.batch(vals), acks=-1, part=part)
            assert r["err"] == 0, r
            base = r["base"] if base is None else base
        return base

    def conn(self):
        return kw.Conn(self.boot)

    def tp(self, part=0):
        return (self.tid, part)


def member():
    return uuid.uuid4().hex[:22]


def acquired(resp, env, part=0):
    p = resp["parts"].get(env.tp(part))
    return p["acquired"] if p else []


def offsets(ranges):
    return [o for f, l, _ in ranges for o in range(f, l + 1)]


def counts(ranges):
    return {o: cnt for f, l, cnt in ranges for o in range(f, l + 1)}


def fetch1(env, c, m, epoch, acks=None, **kw_):
    return share_fetch(c, env.group, m, epoch, [(env.tid, [(0, acks or [])])], **kw_)


# ------------------------------------------------------------------ checks
def t_basic(boot):
    env = Env(boot, "basic")
    env.produce(10)
    c, m = env.conn(), member()
    r = fetch1(env, c, m, 0)
    check("epoch 0 fetch: no error", r["err"] == 0, r)
    check("AcquisitionLockTimeoutMs is the default 30000", r["lock_ms"] == 30000, r["lock_ms"])
    check("AcquiredRecords [0,9] count 1", acquired(r, env) == [(0, 9, 1)], acquired(r, env))
    recs = r["parts"][env.tp()]["records"]
    check("Records carry the batch", recs is not None and pfw.batch_offsets(recs) == [(0, 9)],
          recs and pfw.batch_offsets(recs))
    r = fetch1(env, c, m, 1)
    p = r["parts"].get(env.tp())
    check("nothing new: partition omitted at epoch 1", r["err"] == 0 and p is None, r)
    r = fetch1(env, c, m, 2, acks=[(0, 9, [ACCEPT])])
    p = r["parts"].get(env.tp())
    check("ack-only partition appears with AcknowledgeErrorCode 0", p is not None and p["ack_err"] == 0
          and p["err"] == 0, r)
    check("empty Records are not null", p is not None and p["records"] == b"", p)
    env.produce(5)
    r = fetch1(env, c, m, 3)
    check("new data after accept: [10,14]", acquired(r, env) == [(10, 14, 1)], acquired(r, env))
    r = share_fetch(c, env.group, m, 4, [(uuid.uuid4().bytes, [(0, [])])])
    unk = [p for k, p in r["parts"].items() if k[0] != env.tid]
    check("unknown topic id -> UNKNOWN_TOPIC_ID (100)", len(unk) == 1 and unk[0]["err"] == 100, r)
    r = share_fetch(c, env.group, m, 5, [(env.tid, [(7, [])])])
    check("unknown partition -> 3", r["parts"].get(env.tp(7), {}).get("err") == 3, r)


def t_sessions(boot):
    env = Env(boot, "sess")
    env.produce(4)
    c, m = env.conn(), member()
    r = fetch1(env, c, m, 3)
    check("unknown session, epoch 3 -> SHARE_SESSION_NOT_FOUND (122)", r["err"] == 122 and not r["parts"], r)
    r = fetch1(env, c, m, -1)
    check("unknown session, epoch -1 -> 122", r["err"] == 122, r)
    r = fetch1(env, c, m, 0, acks=[(0, 0, [ACCEPT])])
    check("acks on epoch 0 -> INVALID_REQUEST (42)", r["err"] == 42, r)
    r = fetch1(env, c, m, 0)
    check("open session", r["err"] == 0 and acquired(r, env) == [(0, 3, 1)], r)
    r = fetch1(env, c, m, 5)
    check("wrong epoch -> INVALID_SHARE_SESSION_EPOCH (123)", r["err"] == 123, r)
    r = fetch1(env, c, m, 1)
    check("epoch 1 accepted", r["err"] == 0, r)
    r = fetch1(env, c, m, 1)
    check("epoch 1 again -> 123", r["err"] == 123, r)
    a = share_ack(c, env.group, m, 0, [(env.tid, [(0, [(0, 0, [ACCEPT])])])])
    check("ShareAcknowledge epoch 0 -> 123", a["err"] == 123, a)
    a = share_ack(c, env.group, member(), 1, [(env.tid, [(0, [(0, 0, [ACCEPT])])])])
    check("ShareAcknowledge unknown session -> 122", a["err"] == 122, a)
    a = share_ack(c, env.group, m, 7, [(env.tid, [(0, [(0, 0, [ACCEPT])])])])
    check("ShareAcknowledge wrong epoch -> 123", a["err"] == 123, a)
    a = share_ack(c, env.group, m, 2, [(env.tid, [(0, [(0, 0, [ACCEPT])])])])
    check("ShareAcknowledge epoch 2 ACCEPT ok", a["err"] == 0 and a["parts"][env.tp()]["err"] == 0, a)
    r = fetch1(env, c, m, 3)
    check("epoch advanced by ShareAcknowledge", r["err"] == 0, r)
    r = share_fetch(c, env.group, "", 0, [(env.tid, [(0, [])])])
    check("empty MemberId -> 42", r["err"] == 42, r)
    r = share_fetch(c, env.group, m, 4, [], forgotten=[(env.tid, [0])])
    check("forget the partition", r["err"] == 0 and not r["parts"], r)
    a = share_ack(c, env.group, m, -1, [(env.tid, [(0, [(1, 1, [ACCEPT])])])])
    check("ack on a forgotten partition, closing epoch -1", a["err"] == 0 and a["parts"][env.tp()]["err"] == 0, a)
    r = fetch1(env, c, m, 6)
    check("closed session -> 122", r["err"] == 122, r)


def t_acks(boot):
    env = Env(boot, "acks")
    env.produce(10)
    c, m = env.conn(), member()
    c2, m2 = env.conn(), member()
    fetch1(env, c, m, 0, max_records=5, mode=1, ver=2)  # record_limit: 0..4
    r = fetch1(env, c2, m2, 0)
    # 5-9 are offset-tracked after the record_limit split: one range per offset (§2.5).
    check("second member gets the rest [5,9]", counts(acquired(r, env)) == {o: 1 for o in range(5, 10)},
          acquired(r, env))

    def ack(batches, epoch, who=(c, m), ver=1, renew=False):
        a = share_ack(who[0], env.group, who[1], epoch, [(env.tid, [(0, batches)])], renew=renew, ver=ver)
        return a["err"], a["parts"].get(env.tp(), {}).get("err")

    check("ack a record held by another member -> 121", ack([(5, 5, [ACCEPT])], 1) == (0, 121))
    check("ack beyond the window -> 42", ack([(20, 22, [ACCEPT])], 2) == (0, 42))
    check("FirstOffset > LastOffset -> 42", ack([(3, 2, [ACCEPT])], 3) == (0, 42))
    check("batches out of order -> 42", ack([(3, 3, [ACCEPT]), (1, 1, [ACCEPT])], 4) == (0, 42))
    check("types length mismatch -> 42", ack([(0, 2, [ACCEPT, ACCEPT])], 5) == (0, 42))
    check("type 5 -> 42", ack([(0, 0, [5])], 6) == (0, 42))
    check("RENEW on v1 -> 42", ack([(0, 0, [RENEW])], 7) == (0, 42))
    check("RENEW on v2 without IsRenewAck -> 42", ack([(0, 0, [RENEW])], 8, ver=2) == (0, 42))
    check("failed acks changed nothing: ACCEPT 1 ok", ack([(1, 1, [ACCEPT])], 9) == (0, 0))
    check("ack twice -> 121", ack([(1, 1, [ACCEPT])], 10) == (0, 121))
    check("atomic per partition: [0 ok, 1 again] -> 121", ack([(0, 0, [ACCEPT]), (1, 1, [ACCEPT])], 11) == (0, 121))
    check("... and 0 is still held", ack([(0, 0, [ACCEPT]), (2, 2, [ACCEPT])], 12) == (0, 0))
    check("below SPSO is ignored", ack([(0, 0, [ACCEPT])], 13) == (0, 0))
    check("GAP archives", ack([(3, 3, [GAP])], 14) == (0, 0))
    check("REJECT archives", ack([(4, 4, [REJECT])], 15) == (0, 0))
    check("other member accepts 5-9", ack([(5, 9, [ACCEPT])], 1, who=(c2, m2)) == (0, 0))
    r = fetch1(env, c2, m2, 2, max_wait=200)
    check("nothing redelivered after GAP/REJECT/ACCEPT", not acquired(r, env), r)
    a = share_ack(c, env.group, m, 16, [(uuid.uuid4().bytes, [(0, [(0, 0, [ACCEPT])])])])
    check("ack on unknown topic id -> 100", list(a["parts"].values())[0]["err"] == 100, a)
    env2 = Env(boot, "acks2")
    a = share_ack(c, env.group, m, 17, [(env2.tid, [(0, [(0, 0, [ACCEPT])])])])
    check("ack on a share-partition never fetched -> 3", a["parts"][env2.tp()]["err"] == 3, a)


def t_renew(boot):
    env = Env(boot, "renew", {"share.record.lock.duration.ms": 2000})
    env.produce(3)
    c, m = env.conn(), member()
    r = fetch1(env, c, m, 0, ver=2)
    check("fetch [0,2], lock 2000", acquired(r, env) == [(0, 2, 1)] and r["lock_ms"] == 2000, r)
    r = fetch1(env, c, m, 1, acks=[(0, 0, [RENEW])], ver=2, renew=True, max_records=5)
    check("IsRenewAck with non-zero limits -> top-level 42", r["err"] == 42, r)
    t0 = time.time()
    r = fetch1(env, c, m, 1, acks=[(0, 2, [RENEW])], ver=2, renew=True, max_records=0, max_bytes=0, min_bytes=0,
               max_wait=0)
    p = r["parts"].get(env.tp(), {})
    check("renew fetch: ack ok, no records, no wait", r["err"] == 0 and p.get("ack_err") == 0
          and not p.get("acquired") and time.time() - t0 < 1, r)
    time.sleep(1.5)
    a = share_ack(c, env.group, m, 2, [(env.tid, [(0, [(0, 2, [RENEW, ACCEPT, RELEASE])])])], renew=True, ver=2)
    check("mixed RENEW/ACCEPT/RELEASE on v2 ShareAcknowledge (lock renewed past 2 s)",
          a["err"] == 0 and a["parts"][env.tp()]["err"] == 0 and a["lock_ms"] == 2000, a)
    r = fetch1(env, c, m, 3, ver=2)
    check("RELEASEd 2 redelivered with count 2, renewed 0 not", acquired(r, env) == [(2, 2, 2)], acquired(r, env))
    time.sleep(2.5)
    a = share_ack(c, env.group, m, 4, [(env.tid, [(0, [(0, 0, [RENEW])])])], renew=True, ver=2)
    check("RENEW after the lock expired -> 121", a["parts"][env.tp()]["err"] == 121, a)
    env2 = Env(boot, "renew2", {"share.renew.acknowledge.enable": "false"})
    env2.produce(2)
    c2, m2 = env2.conn(), member()
    fetch1(env2, c2, m2, 0, ver=2)
    a = share_ack(c2, env2.group, m2, 1, [(env2.tid, [(0, [(0, 0, [RENEW]), (1, 1, [ACCEPT])])])], renew=True, ver=2)
    check("renew disabled -> 121 for the partition", a["parts"][env2.tp()]["err"] == 121, a)
    a = share_ack(c2, env2.group, m2, 2, [(env2.tid, [(0, [(1, 1, [ACCEPT])])])], ver=2)
    check("... nothing applied: 1 still held", a["parts"][env2.tp()]["err"] == 0, a)


def t_redelivery(boot):
    env = Env(boot, "redeliv", {"share.delivery.count.limit": 2})
    env.produce(4)
    c, m = env.conn(), member()
    r = fetch1(env, c, m, 0)
    check("first delivery count 1", acquired(r, env) == [(0, 3, 1)], acquired(r, env))
    r = fetch1(env, c, m, 1, acks=[(0, 3, [RELEASE])])
    check("RELEASE piggybacked, redelivered in the same request with count 2",
          acquired(r, env) == [(0, 3, 2)] and r["parts"][env.tp()]["ack_err"] == 0, r)
    r = fetch1(env, c, m, 2, acks=[(0, 1, [RELEASE]), (2, 3, [ACCEPT])], max_wait=300)
    check("delivery limit 2: released again -> ARCHIVED, nothing redelivered", not acquired(r, env), r)
    env.produce(1)
    r = fetch1(env, c, m, 3)
    check("SPSO moved past the archived records: next is 4", acquired(r, env) == [(4, 4, 1)], acquired(r, env))


def t_expiry(boot):
    env = Env(boot, "expiry", {"share.record.lock.duration.ms": 1000, "share.delivery.count.limit": 3})
    env.produce(1)
    c, m = env.conn(), member()
    c2, m2 = env.conn(), member()
    r = fetch1(env, c, m, 0)
    check("A acquires [0,1]", acquired(r, env) == [(0, 0, 1)], r)
    t0 = time.time()
    r = fetch1(env, c2, m2, 0, max_wait=5000)
    dt = time.time() - t0
    check("B's long poll is woken by A's lock expiry, count 2", acquired(r, env) == [(0, 0, 2)] and 0.7 < dt < 3,
          (acquired(r, env), dt))
    a = share_ack(c, env.group, m, 1, [(env.tid, [(0, [(0, 0, [ACCEPT])])])])
    check("A acks after its lock expired -> 121", a["parts"][env.tp()]["err"] == 121, a)
    time.sleep(1.3)
    r = fetch1(env, c, m, 2, max_wait=3000)
    check("third delivery after B's lock expired: count 3", acquired(r, env) == [(0, 0, 3)], acquired(r, env))
    time.sleep(1.3)
    env.produce(1)
    r = fetch1(env, c2, m2, 1, max_wait=3000)
    check("lock expiry at the delivery limit archives: only 1 comes", acquired(r, env) == [(1, 1, 1)],
          acquired(r, env))


def t_cap(boot):
    env = Env(boot, "cap", {"share.partition.max.record.locks": 100})
    env.produce(150, per_batch=10)
    c, m = env.conn(), member()
    c2, m2 = env.conn(), member()
    r = fetch1(env, c, m, 0, max_records=1000)
    got = offsets(acquired(r, env))
    check("A acquires up to the cap (100)", got == list(range(100)), (len(got), got[:3], got[-3:]))
    r = fetch1(env, c2, m2, 0, max_wait=300)
    check("B at the cap acquires nothing", not acquired(r, env), r)
    r = fetch1(env, c, m, 1, acks=[(0, 99, [ACCEPT])], max_records=1000)
    check("after A accepts, the window moves: [100,149]", offsets(acquired(r, env)) == list(range(100, 150)),
          acquired(r, env))


def t_modes(boot):
    env = Env(boot, "modes")
    env.produce(10)
    env.produce(10)
    c, m = env.conn(), member()
    r = fetch1(env, c, m, 0, max_records=3, batch_size=3, mode=1, ver=2)
    check("record_limit MaxRecords 3: [0,2]", acquired(r, env) == [(0, 2, 1)], acquired(r, env))
    r = fetch1(env, c, m, 1, max_records=3, batch_size=3, mode=0, ver=2)
    got = offsets(acquired(r, env))
    check("batch_optimized MaxRecords 3: rest of the batch [3,9]", got == list(range(3, 10)), acquired(r, env))
    r = fetch1(env, c, m, 2, max_records=3, mode=7, ver=2)
    check("unknown ShareAcquireMode -> 42", r["err"] == 42, r)
    r = fetch1(env, c, m, 2, max_records=500, batch_size=500, ver=2)
    check("second batch [10,19]", offsets(acquired(r, env)) == list(range(10, 20)), acquired(r, env))


def t_longpoll(boot):
    env = Env(boot, "lp")
    c, m = env.conn(), member()
    t0 = time.time()
    r = fetch1(env, c, m, 0, max_wait=500)
    dt = time.time() - t0
    check("empty partition: answered after ~MaxWaitMs without records", not acquired(r, env) and 0.4 < dt < 2,
          (r, dt))
    p = r["parts"].get(env.tp())
    check("epoch 0 lists every partition, Records empty not null", p is not None and p["records"] == b"", r)
    th = threading.Timer(0.4, lambda: env.produce(3))
    th.start()
    t0 = time.time()
    r = fetch1(env, c, m, 1, max_wait=5000)
    dt = time.time() - t0
    th.join()
    check("long poll woken by a produce", acquired(r, env) == [(0, 2, 1)] and dt < 2.5, (acquired(r, env), dt))
    th = threading.Timer(0.3, lambda: env.produce(1))
    th.start()
    t0 = time.time()
    r = fetch1(env, c, m, 2, max_wait=1500, min_bytes=1 << 20)
    dt = time.time() - t0
    th.join()
    check("MinBytes not reached: waits the full MaxWaitMs, then returns what there is",
          acquired(r, env) == [(3, 3, 1)] and dt > 1.3, (acquired(r, env), dt))


def t_release(boot):
    env = Env(boot, "rel")
    env.produce(4)
    c, m = env.conn(), member()
    c2, m2 = env.conn(), member()
    r = fetch1(env, c, m, 0)
    r = fetch1(env, c, m, 1, acks=[(0, 3, [RELEASE])])
    check("redelivery count 2", acquired(r, env) == [(0, 3, 2)], acquired(r, env))
    r = fetch1(env, c, m, -1, acks=[(0, 0, [ACCEPT])])
    check("epoch -1: acks applied, no data", r["err"] == 0 and not acquired(r, env)
          and r["parts"][env.tp()]["ack_err"] == 0, r)
    r = fetch1(env, c2, m2, 0)
    # Apache Kafka 4.4.0 keeps the delivery count when a session ends (docs/compatibility.md).
    check("session close released [1,3] with the count kept (2, next delivery 3)",
          counts(acquired(r, env)) == {1: 3, 2: 3, 3: 3}, acquired(r, env))
    c2.close()
    time.sleep(0.3)
    c3, m3 = env.conn(), member()
    r = fetch1(env, c3, m3, 0)
    # Count 3 reached the throttle limit (§1.9, max(2, ceil(5/2)) = 3): redelivered one at a time.
    check("TCP close released [1,3] (count kept at 3; next delivery 4, throttled to one record)",
          acquired(r, env) == [(1, 1, 4)], acquired(r, env))


def t_logstart(boot):
    """§1.8: the log start moves past the window (DeleteRecords)."""
    env = Env(boot, "logstart")
    env.produce(10)
    c, m = env.conn(), member()
    c2, m2 = env.conn(), member()
    r = fetch1(env, c, m, 0, max_records=5, mode=1, ver=2)
    check("A holds [0,4]", acquired(r, env) == [(0, 4, 1)], acquired(r, env))
    d = pfw.delete_records(env.pc, env.topic, 8)
    check("DeleteRecords to 8", d["err"] == 0 and d["low"] == 8, d)
    r = fetch1(env, c2, m2, 0)
    check("B fetches from the new log start: [8,9]", offsets(acquired(r, env)) == [8, 9], acquired(r, env))
    a = share_ack(c, env.group, m, 1, [(env.tid, [(0, [(0, 4, [ACCEPT])])])])
    check("A's ack below the new SPSO is ignored (NONE)", a["parts"][env.tp()]["err"] == 0, a)


def t_limit_sessions(boot):
    env = Env(boot, "lim")
    conns = [env.conn() for _ in range(3)]
    for i, c in enumerate(conns[:2]):
        r = fetch1(env, c, member(), 0)
        check("session %d opened" % i, r["err"] == 0, r)
    t0 = time.time()
    r = fetch1(env, conns[2], member(), 0, max_wait=400)
    check("broker limit -> SHARE_SESSION_LIMIT_REACHED (133), delayed by MaxWaitMs",
          r["err"] == 133 and not r["parts"] and time.time() - t0 > 0.3, r)
    conns[0].close()
    time.sleep(0.3)
    r = fetch1(env, conns[2], member(), 0)
    check("a closed connection frees its session", r["err"] == 0, r)


def t_durable1(boot, group, topic_id_hex, topic):
    """Before kill -9: 0-9 ACCEPT, 10-11 REJECT, 12-13 RELEASE (count 1), 14-19 held."""
    tid = bytes.fromhex(topic_id_hex)
    c, m = kw.Conn(boot), member()
    pc = pfw.Conn(boot)
    pfw.produce(pc, topic, pfw.batch([b"d%d" % i for i in range(20)]), acks=-1)
    r = share_fetch(c, group, m, 0, [(tid, [(0, [])])])
    check("durable: acquired [0,19]", r["parts"][(tid, 0)]["acquired"] == [(0, 19, 1)], r)
    a = share_ack(c, group, m, 1, [(tid, [(0, [(0, 9, [ACCEPT]), (10, 11, [REJECT]), (12, 13, [RELEASE])])])])
    check("durable: acks answered ok (on disk)", a["parts"][(tid, 0)]["err"] == 0, a)
    print("READY")
    sys.stdout.flush()
    time.sleep(60)  # killed with the broker's kill -9 by the script


def t_durable2(boot, group, topic_id_hex, topic):
    tid = bytes.fromhex(topic_id_hex)
    c, m = kw.Conn(boot), member()
    r = share_fetch(c, group, m, 0, [(tid, [(0, [])])], max_wait=1000)
    got = r["parts"][(tid, 0)]["acquired"]
    offs = offsets(got)
    check("after kill -9: nothing below 12 comes back (ACCEPT/REJECT stay terminal)", offs and min(offs) >= 12, got)
    check("after kill -9: 12-19 come back (held records AVAILABLE again)", offs == list(range(12, 20)), got)
    counts = {o: cnt for f, l, cnt in got for o in range(f, l + 1)}
    check("released 12-13 keep their count: redelivered with count 2", counts.get(12) == 2 and counts.get(13) == 2,
          got)
    a = share_ack(c, group, m, 1, [(tid, [(0, [(5, 5, [ACCEPT])])])])
    check("SPSO did not move back: ack of 5 is below SPSO, ignored", a["parts"][(tid, 0)]["err"] == 0, a)


CHECKS = {n[2:]: f for n, f in globals().items() if n.startswith("t_")}

if __name__ == "__main__":
    boot, name = sys.argv[1], sys.argv[2]
    CHECKS[name](boot, *sys.argv[3:])
    sys.exit(1 if kw.FAILED else 0)
