#!/usr/bin/env python3
"""Raw-wire views of the log side of transactions: Fetch with its LastStableOffset and
AbortedTransactions (both isolation levels), ListOffsets LATEST per isolation level,
DescribeProducers v0. Standard library only; used by tests/integration/test_txn_log.sh
and tests/interop/test_txn_read_committed.sh.

  txn_log_wire.py HOST:PORT TOPIC view     one line per fact (stable across brokers)
  txn_log_wire.py HOST:PORT TOPIC idem     the idempotent-producer scenario (see the test)
  txn_log_wire.py HOST:PORT TOPIC expire   then producer.id.expiration.ms=1000 (dynamic): the
                                           producer is forgotten; a later write is accepted
"""
import os
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kwire as kw  # noqa: E402
import produce_fetch_wire as w  # noqa: E402
from kwire import TAGS, boolean, carr, cstr, i8, i32, s16  # noqa: E402


def fetch_full(c, topic, offset, isolation, part=0, part_max=1 << 20):
    """Fetch v11 of one partition: dict with hwm, lso, aborted [(pid, first)] or None, and
    batches [(base, last, pid, control)]."""
    body = struct.pack(">iiiibii", -1, 0, 1, 50 << 20, isolation, 0, -1)
    body += struct.pack(">i", 1) + s16(topic) + struct.pack(">i", 1)
    body += struct.pack(">iiqqi", part, -1, offset, -1, part_max)
    body += struct.pack(">i", 0) + s16("")
    r = c.call(1, 11, body, False)
    r.take("ihi")
    out = None
    for _ in range(r.take("i")):
        r.string()
        for _ in range(r.take("i")):
            idx, perr, hwm, lso, start = r.take("ihqqq")
            n_ab = r.take("i")
            aborted = None if n_ab < 0 else sorted(r.take("qq") for _ in range(n_ab))
            r.take("i")
            recs = r.bytes_() or b""
            out = dict(err=perr, hwm=hwm, lso=lso, aborted=aborted, batches=batches(recs))
    return out


def batches(recs):
    out, p = [], 0
    while p + 61 <= len(recs):
        base, blen = struct.unpack_from(">qi", recs, p)
        if p + 12 + blen > len(recs):
            break
        attrs = struct.unpack_from(">h", recs, p + 21)[0]
        delta = struct.unpack_from(">i", recs, p + 23)[0]
        pid = struct.unpack_from(">q", recs, p + 43)[0]
        out.append((base, base + delta, pid, bool(attrs & 0x20)))
        p += 12 + blen
    return out


def describe_producers(c, topic, parts=(0,)):
    """DescribeProducers v0: [(partition, error, message, [(pid, epoch, last seq, last ts,
    coordinator epoch, txn start)])]."""
    t = cstr(topic) + carr(list(parts), i32) + TAGS
    r = c.call(61, 0, carr([t], lambda x: x) + TAGS, True)
    r.i32()
    out = []

    def prod(r):
        v = (r.i64(), r.i32(), r.i32(), r.i64(), r.i32(), r.i64())
        r.tags()
        return v

    def part(r):
        idx, err, msg = r.i32(), r.i16(), r.cstr()
        ps = r.carr(prod)
        r.tags()
        return (idx, err, msg, sorted(ps))

    def topic_(r):
        r.cstr()
        ps = r.carr(part)
        r.tags()
        return ps

    for ps in r.carr(topic_):
        out.extend(ps)
    return out


def view(c, topic, pid_names=None):
    """The facts both brokers must agree on, producer ids replaced by their order of appearance."""
    names = pid_names if pid_names is not None else {}

    def name(pid):
        if pid < 0:
            return "-"
        return names.setdefault(pid, "P%d" % len(names))

    lines = []
    for iso in (0, 1):
        f = fetch_full(c, topic, 0, iso)
        lines.append("fetch iso=%d err=%d hwm=%d lso=%d aborted=%s" % (
            iso, f["err"], f["hwm"], f["lso"],
            None if f["aborted"] is None else [(name(p), o) for p, o in f["aborted"]]))
        lines.append("fetch iso=%d batches=%s" % (iso, [(b, l, name(p), ctl) for b, l, p, ctl in f["batches"]]))
        lo = w.list_offsets(c, topic, -1, isolation=iso)[0]
        lines.append("list_offsets latest iso=%d err=%d offset=%d" % (iso, lo["err"], lo["offset"]))
    for idx, err, msg, ps in describe_producers(c, topic):
        lines.append("describe_producers p%d err=%d producers=%s" % (
            idx, err, sorted((name(p), e, seq, ce, -1 if start < 0 else start) for p, e, seq, _ts, ce, start in ps)))
    return lines


def idem(c, topic):
    """An idempotent producer, then the checks of DescribeProducers' answers and errors."""
    ts = int(time.time() * 1000)  # now: Kafka expires producers by their batches' timestamps
    for seq, vals in ((0, [b"a", b"b", b"c"]), (3, [b"d", b"e"])):
        for _ in range(50):  # Apache Kafka may need a moment before it leads the new partition
            r = w.produce(c, topic, kw.batch(vals, timestamps=[ts] * len(vals), pid=9001, epoch=2, seq=seq), acks=-1)
            if r["err"] not in (3, 6):
                break
            time.sleep(0.1)
        assert r["err"] == 0, r
    lines = view(c, topic)
    lines.append("describe_producers last ts is the batch's: %s" % [p[3] == ts for p in describe_producers(c, topic)[0][3]])
    lines.append("unknown partition: %s" % describe_producers(c, topic, (7,)))
    lines.append("unknown topic: %s" % describe_producers(c, topic + "-nope"))
    return lines


def expire(c, topic):
    """After idem: producer.id.expiration.ms=1000 as the cluster-wide dynamic default (the
    brokers run with producer.id.expiration.check.interval.ms=500): the idle producer leaves
    DescribeProducers; its next batch (sequence 5, not 0) is accepted as from a new producer."""
    ops = carr([("producer.id.expiration.ms", "1000")], lambda o: cstr(o[0]) + i8(0) + cstr(o[1]) + TAGS)
    r = c.call(44, 1, carr([i8(4) + cstr("") + ops + TAGS], lambda x: x) + boolean(False) + TAGS, True)
    r.i32()
    lines = ["alter producer.id.expiration.ms=1000: %s" % r.carr(lambda r: (r.i16(), r.cstr(), r.i8(), r.cstr(),
                                                                           r.tags())[0])]
    deadline, ps = time.time() + 20, None
    while time.time() < deadline:
        ps = describe_producers(c, topic)[0][3]
        if not ps:
            break
        time.sleep(0.2)
    lines.append("after the expiration: producers=%s" % ps)
    r = w.produce(c, topic, kw.batch([b"f"], timestamps=[int(time.time() * 1000)], pid=9001, epoch=2, seq=5), acks=-1)
    lines.append("a write with sequence 5 after the expiration: err=%d" % r["err"])
    lines.append("then: %s" % [(p[0], p[1], p[2]) for p in describe_producers(c, topic)[0][3]])
    return lines


def scenario(c, topic, d_state):
    """The facts of tests/interop/node/txn_scenario.js's log (A committed, B aborted, C
    committed, D open or aborted by the coordinator's timeout), as check lines."""
    u, rc = fetch_full(c, topic, 0, 0), fetch_full(c, topic, 0, 1)
    hwm = 9 if d_state == "open" else 10
    lso = 8 if d_state == "open" else hwm
    kw.check("high watermark %d" % hwm, u["hwm"] == hwm and rc["hwm"] == hwm, (u["hwm"], rc["hwm"]))
    kw.check("last stable offset %d in both isolation levels" % lso, u["lso"] == lso and rc["lso"] == lso,
             (u["lso"], rc["lso"]))
    kw.check("read_uncommitted: AbortedTransactions null", u["aborted"] is None, u["aborted"])
    pids = {b[2] for b in u["batches"]}
    pid = pids.pop() if len(pids) == 1 else None
    want = [(pid, 3)] + ([(pid, 8)] if d_state == "aborted" else [])
    kw.check("read_committed: AbortedTransactions %s" % want, rc["aborted"] == want, rc["aborted"])
    ctl = [b[0] for b in u["batches"] if b[3]]
    want_ctl = [2, 5, 7] + ([9] if d_state == "aborted" else [])
    kw.check("control batches at %s" % want_ctl, ctl == want_ctl, ctl)
    kw.check("read_committed returns nothing at or past the LSO", all(b[1] < lso for b in rc["batches"]),
             rc["batches"])
    kw.check("read_committed returns everything below the LSO", rc["batches"] and rc["batches"][-1][1] == lso - 1,
             rc["batches"])
    f8 = fetch_full(c, topic, 8, 1)
    kw.check("read_committed fetch at offset 8: no error", f8["err"] == 0, f8)
    lo = [w.list_offsets(c, topic, -1, isolation=i)[0]["offset"] for i in (0, 1)]
    kw.check("ListOffsets LATEST: %d read_uncommitted, %d read_committed" % (hwm, lso), lo == [hwm, lso], lo)
    dp = describe_producers(c, topic)[0]
    start = [p[5] for p in dp[3] if p[0] == pid]
    kw.check("DescribeProducers: transaction start %s" % (8 if d_state == "open" else -1),
             start == [8 if d_state == "open" else -1], dp)


def main():
    boot, topic, what = sys.argv[1], sys.argv[2], sys.argv[3]
    c = w.Conn(boot)
    if what == "create":
        for _ in range(50):
            err = w.create_topic(c, topic)
            if err in (0, 36):
                break
            time.sleep(0.2)
        sys.exit(0 if err in (0, 36) else 1)
    if what.startswith("scenario-"):
        scenario(c, topic, what[len("scenario-"):])
        sys.exit(1 if kw.FAILED else 0)
    lines = idem(c, topic) if what == "idem" else expire(c, topic) if what == "expire" else view(c, topic)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
