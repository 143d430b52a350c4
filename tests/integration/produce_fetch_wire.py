#!/usr/bin/env python3
"""Raw-wire checks of Produce / Fetch / ListOffsets / DeleteRecords against a broker.

Used by tests/integration/test_produce_fetch.sh. Standard library only: requests are
encoded by hand at non-flexible versions (Produce v8, Fetch v11, ListOffsets v5,
DeleteRecords v1), record batches are built here (CRC-32C included).

  produce_fetch_wire.py HOST:PORT TOPIC CHECK
Every check prints "ok - ..." / "FAIL - ..." lines; the exit status is 1 on any FAIL.
The topic must exist with 1 partition and be empty (the script creates nothing).
Checks: create, create3, errors, sessions, idempotence, timestamps, delete, longpoll, configs.
"""
import os
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kwire as kw  # noqa: E402
from kwire import batch, check, cstr, s16, uvarint  # noqa: E402,F401  (batch: used by importers too)


class Conn(kw.Conn):
    """A connection for the classic versions used here: call() defaults to header v1."""

    def __init__(self, boot):
        super().__init__(boot, client_id="wire-test", timeout=15)

    def call(self, key, ver, body, flexible=False):
        return super().call(key, ver, body, flexible)


# ------------------------------------------------------------------ requests
def produce(c, topic, records, acks=1, txn_id=None, part=0, send_only=False):
    body = s16(txn_id) + struct.pack(">hi", acks, 10000) + struct.pack(">i", 1) + s16(topic)
    body += struct.pack(">i", 1) + struct.pack(">i", part) + struct.pack(">i", len(records)) + records
    if send_only:
        c.send(0, 8, body, False)
        return None
    r = c.call(0, 8, body, False)
    out = []
    for _ in range(r.take("i")):
        r.string()
        for _ in range(r.take("i")):
            idx, err, base, lat, lso = r.take("ihqqq")
            errs = [(r.take("i"), r.string()) for _ in range(r.take("i"))]
            msg = r.string()
            out.append(dict(index=idx, err=err, base=base, log_append_time=lat, log_start=lso, record_errors=errs,
                            msg=msg))
    return out[0]


def fetch(c, topic, offset, max_wait=0, min_bytes=1, session_id=0, session_epoch=-1, part_max=1 << 20,
          max_bytes=50 << 20, isolation=0, replica_id=-1, leader_epoch=-1, send_only=False):
    body = struct.pack(">iiiibii", replica_id, max_wait, min_bytes, max_bytes, isolation, session_id, session_epoch)
    body += struct.pack(">i", 1) + s16(topic) + struct.pack(">i", 1)
    body += struct.pack(">iiqqi", 0, leader_epoch, offset, -1, part_max)
    body += struct.pack(">i", 0) + s16("")
    if send_only:
        c.send(1, 11, body, False)
        return None
    return parse_fetch(c.call(1, 11, body, False))


def parse_fetch(r):
    _thr, err, sid = r.take("ihi")
    parts = []
    for _ in range(r.take("i")):
        r.string()
        for _ in range(r.take("i")):
            idx, perr, hwm, lso, start = r.take("ihqqq")
            n_ab = r.take("i")
            for _ in range(max(n_ab, 0)):
                r.take("qq")
            pref = r.take("i")
            recs = r.bytes_()
            parts.append(dict(index=idx, err=perr, hwm=hwm, lso=lso, log_start=start, aborted=n_ab, pref=pref,
                              records=recs))
    return dict(err=err, session_id=sid, parts=parts)


def batch_offsets(records):
    """[(base_offset, last_offset)] of the whole batches in a Records blob."""
    out, p = [], 0
    while p + 12 <= len(records):
        base, blen = struct.unpack_from(">qi", records, p)
        if p + 12 + blen > len(records):
            break
        last_delta = struct.unpack_from(">i", records, p + 23)[0]
        out.append((base, base + last_delta))
        p += 12 + blen
    return out


def list_offsets(c, topic, ts, parts=(0,), isolation=0, version=5):
    """ListOffsets v5 (classic) or v7+ (flexible: compact arrays, tag sections)."""
    flex = version >= 6
    arr = (lambda n: uvarint(n + 1)) if flex else (lambda n: struct.pack(">i", n))
    tags = b"\x00" if flex else b""
    body = struct.pack(">ib", -1, isolation) + arr(1) + (cstr(topic) if flex else s16(topic)) + arr(len(parts))
    for p in parts:
        body += struct.pack(">iiq", p, -1, ts) + tags
    body += tags + (struct.pack(">i", 5000) if version >= 10 else b"") + tags
    r = c.call(2, version, body, flex)
    r.take("i")

    def count():
        if not flex:
            return r.take("i")
        n = shift = 0
        while True:
            b = r.take("B")
            n |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                return n - 1

    out = []
    for _ in range(count()):
        if flex:
            n = count()  # compact string: length + 1
            r.p += n
        else:
            r.string()
        for _ in range(count()):
            idx, err, t, off, ep = r.take("ihqqi")
            if flex:
                r.take("b")
            out.append(dict(index=idx, err=err, ts=t, offset=off, epoch=ep))
        if flex:
            r.take("b")
    return out


def delete_records(c, topic, offset, part=0):
    body = struct.pack(">i", 1) + s16(topic) + struct.pack(">i", 1) + struct.pack(">iq", part, offset)
    body += struct.pack(">i", 5000)
    r = c.call(21, 1, body, False)
    r.take("i")
    r.take("i")
    r.string()
    r.take("i")
    idx, low, err = r.take("iqh")
    return dict(err=err, low=low)


def create_topic(c, topic, configs=None, partitions=1):
    cfg = configs or {}
    body = struct.pack(">i", 1) + s16(topic) + struct.pack(">ihi", partitions, 1, 0) + struct.pack(">i", len(cfg))
    for k, v in cfg.items():
        body += s16(k) + s16(v)
    body += struct.pack(">ib", 10000, 0)
    r = c.call(19, 2, body, False)
    r.take("i")
    r.take("i")
    r.string()
    err = r.take("h")
    for _ in range(80):  # Apache Kafka needs a moment before it leads the new partition
        if err or list_offsets(c, topic, -1)[0]["err"] == 0:
            break
        time.sleep(0.1)
    return err


# ------------------------------------------------------------------ checks
def t_create(boot, topic):
    err = create_topic(Conn(boot), topic)
    check("created topic %s" % topic, err == 0, err)


def t_create3(boot, topic):
    c = Conn(boot)
    err = create_topic(c, topic, partitions=3)
    for p in (1, 2):  # wait until every partition is served (Apache Kafka needs a moment)
        for _ in range(80):
            if err or list_offsets(c, topic, -1, parts=(p,))[0]["err"] == 0:
                break
            time.sleep(0.1)
    check("created topic %s with 3 partitions" % topic, err == 0, err)


def t_configs(boot, topic):
    c = Conn(boot)
    small, lat = topic + "-small", topic + "-lat"
    check("created %s with max.message.bytes=1000" % small,
          create_topic(c, small, {"max.message.bytes": "1000"}) == 0)
    r = produce(c, small, batch([b"z" * 2000]))
    check("batch above max.message.bytes -> MESSAGE_TOO_LARGE (10)", r["err"] == 10 and r["base"] == -1, r)
    r = produce(c, small, batch([b"z" * 500]))
    check("batch below max.message.bytes accepted", r["err"] == 0, r)
    check("created %s with message.timestamp.type=LogAppendTime" % lat,
          create_topic(c, lat, {"message.timestamp.type": "LogAppendTime"}) == 0)
    before = int(time.time() * 1000)
    r = produce(c, lat, batch([b"t"], timestamps=[1000]))
    check("LogAppendTime topic: LogAppendTimeMs is the broker time",
          r["err"] == 0 and abs(r["log_append_time"] - before) < 60000, r)
    recs = fetch(c, lat, 0)["parts"][0]["records"]
    attrs, = struct.unpack_from(">h", recs, 21)
    maxts, = struct.unpack_from(">q", recs, 35)
    check("stored batch has the LogAppendTime bit and maxTimestamp", attrs & 0x08 and maxts == r["log_append_time"],
          (attrs, maxts))
    r = produce(c, topic, batch([b"n"]))
    check("CreateTime topic: LogAppendTimeMs -1", r["err"] == 0 and r["log_append_time"] == -1, r)


def t_errors(boot, topic):
    c = Conn(boot)
    r = produce(c, topic, batch([b"a"]), acks=2)
    check("acks=2 -> INVALID_REQUIRED_ACKS (21)", r["err"] == 21, r)
    r = produce(c, topic + "-does-not-exist", batch([b"a"]))
    check("unknown topic -> UNKNOWN_TOPIC_OR_PARTITION (3)", r["err"] == 3, r)
    r = produce(c, topic, batch([b"a"]), part=7)
    check("unknown partition -> UNKNOWN_TOPIC_OR_PARTITION (3)", r["err"] == 3, r)
    r = produce(c, topic, batch([b"a"], pid=5, epoch=0, seq=0, transactional=True))
    check("transactional batch without transactional id -> TRANSACTIONAL_ID_AUTHORIZATION_FAILED (53)",
          r["err"] == 53, r)
    r = produce(c, topic, batch([b"a"], pid=5, epoch=0, seq=0, transactional=True), txn_id="tx")
    # Kafka 4.4.0 before its transaction log exists (a fresh broker): NOT_ENOUGH_REPLICAS with
    # "... Underlying error: COORDINATOR_NOT_AVAILABLE"; once it exists: INVALID_PRODUCER_ID_MAPPING
    # (49), as gregord's coordinator (its log is always there).
    check("transactional batch of a producer id no coordinator knows -> NOT_ENOUGH_REPLICAS (19) with Kafka's "
          "message (no transaction log yet) or INVALID_PRODUCER_ID_MAPPING (49)",
          r["log_start"] == -1 and ((r["err"] == 19 and "COORDINATOR_NOT_AVAILABLE" in (r["msg"] or ""))
                                    or (r["err"] == 49 and r["msg"] is None)), r)
    bad = bytearray(batch([b"abc"]))
    bad[-1] ^= 0xFF
    r = produce(c, topic, bytes(bad))
    check("corrupted CRC -> CORRUPT_MESSAGE (2)", r["err"] == 2 and r["base"] == -1, r)
    r = produce(c, topic, b"")
    check("empty records -> INVALID_RECORD (87)", r["err"] == 87, r)
    r = produce(c, topic, batch([b"ok"]), acks=-1)
    check("acks=-1 produce answered after fsync", r["err"] == 0 and r["base"] == 0 and r["log_start"] == 0, r)
    f = fetch(c, topic, 99)
    p = f["parts"][0]
    check("fetch past the end -> OFFSET_OUT_OF_RANGE (1), offsets -1", p["err"] == 1 and p["hwm"] == -1, p)
    f = fetch(c, topic, 0, leader_epoch=5)
    check("fetch with a newer leader epoch -> UNKNOWN_LEADER_EPOCH (75)", f["parts"][0]["err"] == 75, f)
    f = fetch(c, topic, 0, replica_id=3)
    check("follower fetch -> NOT_LEADER_OR_FOLLOWER (6)", f["parts"][0]["err"] == 6, f)
    f = fetch(c, topic, 0, isolation=1)
    p = f["parts"][0]
    check("read_committed fetch: records, LSO = HWM, empty aborted list",
          p["err"] == 0 and p["lso"] == p["hwm"] == 1 and p["aborted"] == 0 and len(p["records"]) > 0, p)
    f = fetch(c, topic, 0)
    check("read_uncommitted fetch: null aborted list, preferred replica -1",
          f["parts"][0]["aborted"] == -1 and f["parts"][0]["pref"] == -1, f)
    lo = list_offsets(c, topic, -1, parts=(0, 0))
    check("ListOffsets duplicate partition -> answered once, INVALID_REQUEST (42)", [x["err"] for x in lo] == [42], lo)
    lo = list_offsets(c, topic, -3)
    check("ListOffsets v5 MAX_TIMESTAMP -> UNSUPPORTED_VERSION (35)", lo[0]["err"] == 35, lo)
    lo = list_offsets(c, topic, -7, version=11)
    check("ListOffsets unknown special timestamp -7 -> UNSUPPORTED_VERSION (35)", lo[0]["err"] == 35, lo)
    lo = list_offsets(c, topic + "-nope", -1)
    check("ListOffsets unknown topic -> 3", lo[0]["err"] == 3 and lo[0]["offset"] == -1, lo)
    # acks=0 with an error: Kafka closes the connection.
    c2 = Conn(boot)
    produce(c2, topic + "-does-not-exist", batch([b"a"]), acks=0, send_only=True)
    closed = False
    try:
        c2.s.settimeout(5)
        closed = c2.s.recv(1) == b""
    except (ConnectionError, OSError):
        closed = True
    check("acks=0 produce with an error closes the connection", closed)


def t_sessions(boot, topic):
    c = Conn(boot)
    f = fetch(c, topic, 0, session_id=0, session_epoch=0)
    check("full fetch with epoch 0 -> no error (gregord creates no session: id 0)", f["err"] == 0, f)
    f = fetch(c, topic, 0, session_id=1234, session_epoch=3)
    check("incremental fetch of an unknown session -> FETCH_SESSION_ID_NOT_FOUND (70)",
          f["err"] == 70 and f["parts"] == [], f)
    f = fetch(c, topic, 0, session_id=0, session_epoch=5)
    check("epoch > 0 without a session -> FETCH_SESSION_ID_NOT_FOUND (70)", f["err"] == 70, f)
    f = fetch(c, topic, 0, session_id=77, session_epoch=-1)
    check("FINAL epoch closes (nothing) and fetches sessionless", f["err"] == 0 and f["session_id"] == 0, f)


def t_idempotence(boot, topic):
    c = Conn(boot)
    b0 = batch([b"i0", b"i1"], timestamps=[1700000000000, 1700000000005], pid=4242, epoch=0, seq=0)
    r1 = produce(c, topic, b0)
    r2 = produce(c, topic, b0)
    check("idempotent retry answered with the original offset and the batch's max timestamp",
          r1["err"] == 0 and r1["log_append_time"] == -1 and r2["base"] == r1["base"] and r2["err"] == 0
          and r2["log_append_time"] == 1700000000005, (r1, r2))
    lo = list_offsets(c, topic, -1)
    check("the retry was not appended again", lo[0]["offset"] == r1["base"] + 2, lo)
    r = produce(c, topic, batch([b"i5"], pid=4242, epoch=0, seq=5))
    check("sequence gap -> OUT_OF_ORDER_SEQUENCE_NUMBER (45)", r["err"] == 45, r)
    r = produce(c, topic, batch([b"i2"], pid=4242, epoch=0, seq=2))
    check("next sequence accepted", r["err"] == 0 and r["base"] == r1["base"] + 2, r)
    r = produce(c, topic, batch([b"x"], pid=4242, epoch=1, seq=0))
    check("new epoch from sequence 0 accepted", r["err"] == 0, r)
    r = produce(c, topic, batch([b"y"], pid=4242, epoch=0, seq=3))
    check("old epoch -> INVALID_PRODUCER_EPOCH (47)", r["err"] == 47, r)


def t_timestamps(boot, topic):
    c = Conn(boot)
    base_ts = 1700000000000
    ts = [base_ts + 1000 * i for i in range(10)]
    ts[7] = base_ts + 50000  # the maximum, in the middle of the batch
    r = produce(c, topic, batch([b"v%d" % i for i in range(10)], timestamps=ts))
    check("one batch of 10 records", r["err"] == 0 and r["base"] == 0, r)
    produce(c, topic, batch([b"w"], timestamps=[base_ts + 20000]))
    lo = list_offsets(c, topic, base_ts + 2500)[0]
    check("offset for a timestamp inside a batch is exact (record 3)",
          lo["offset"] == 3 and lo["ts"] == base_ts + 3000 and lo["epoch"] == 0, lo)
    lo = list_offsets(c, topic, base_ts)[0]
    check("offset for the first timestamp", lo["offset"] == 0 and lo["ts"] == base_ts, lo)
    lo = list_offsets(c, topic, base_ts + 60000)[0]
    check("timestamp after every record -> offset -1, timestamp -1", lo["offset"] == -1 and lo["ts"] == -1, lo)
    lo = list_offsets(c, topic, -3, version=11)[0]
    check("MAX_TIMESTAMP -> the record holding it (7)", lo["offset"] == 7 and lo["ts"] == base_ts + 50000, lo)
    lo = list_offsets(c, topic, -2)[0]
    check("EARLIEST -> 0", lo["offset"] == 0 and lo["ts"] == -1, lo)
    lo = list_offsets(c, topic, -1)[0]
    check("LATEST -> 11", lo["offset"] == 11, lo)
    lo = list_offsets(c, topic, -4, version=11)[0]
    check("EARLIEST_LOCAL -> 0", lo["offset"] == 0, lo)
    lo = list_offsets(c, topic, -5, version=11)[0]
    check("EARLIEST_PENDING_UPLOAD without tiered storage -> -1", lo["err"] == 0 and lo["offset"] == -1
          and lo["epoch"] == -1, lo)
    lo = list_offsets(c, topic, -6, version=11)[0]
    check("LATEST_TIERED without tiered storage -> -1", lo["err"] == 0 and lo["offset"] == -1, lo)
    lo = list_offsets(c, topic, base_ts + 2500, version=11)[0]
    check("v11 (flexible) timestamp lookup", lo["offset"] == 3 and lo["ts"] == base_ts + 3000, lo)


def t_delete(boot, topic):
    c = Conn(boot)
    produce(c, topic, batch([b"d%d" % i for i in range(5)]))
    produce(c, topic, batch([b"e%d" % i for i in range(5)]))
    d = delete_records(c, topic, 3)
    check("DeleteRecords to 3 -> low watermark 3", d == dict(err=0, low=3), d)
    lo = list_offsets(c, topic, -2)[0]
    check("EARLIEST after DeleteRecords -> 3", lo["offset"] == 3, lo)
    f = fetch(c, topic, 1)
    check("fetch below the log start -> OFFSET_OUT_OF_RANGE", f["parts"][0]["err"] == 1, f)
    f = fetch(c, topic, 3)
    p = f["parts"][0]
    check("fetch at the new log start works, LogStartOffset 3", p["err"] == 0 and p["log_start"] == 3, p)
    d = delete_records(c, topic, 1000)
    check("DeleteRecords beyond the high watermark -> OFFSET_OUT_OF_RANGE", d["err"] == 1 and d["low"] == -1, d)
    d = delete_records(c, topic, -1)
    check("DeleteRecords -1 -> up to the high watermark (10)", d == dict(err=0, low=10), d)
    d = delete_records(c, topic + "-nope", 0)
    check("DeleteRecords unknown topic -> 3", d["err"] == 3, d)


def t_longpoll(boot, topic):
    c, p = Conn(boot), Conn(boot)
    produce(p, topic, batch([b"first"]))
    t0 = time.time()
    f = fetch(c, topic, 1, max_wait=400)
    dt = time.time() - t0
    check("long poll without data answers after MaxWaitMs (%.0f ms)" % (dt * 1000),
          0.35 <= dt < 2.0 and f["parts"][0]["records"] == b"", f)
    fetch(c, topic, 1, max_wait=10000, send_only=True)
    time.sleep(0.3)
    t0 = time.time()
    produce(p, topic, batch([b"second"]))
    f = parse_fetch(c.recv())
    dt = time.time() - t0
    part = f["parts"][0]
    check("parked fetch woken by a produce in %.1f ms" % (dt * 1000),
          dt < 0.5 and part["err"] == 0 and batch_offsets(part["records"]) == [(1, 1)], f)
    # MinBytes: a small produce does not satisfy it; the fetch answers at MaxWaitMs with the data.
    fetch(c, topic, 2, max_wait=800, min_bytes=100000, send_only=True)
    time.sleep(0.1)
    t0 = time.time()
    produce(p, topic, batch([b"third"]))
    f = parse_fetch(c.recv())
    dt = time.time() - t0
    check("MinBytes not reached: answered at MaxWaitMs with the data (%.0f ms)" % (dt * 1000),
          0.5 < dt < 2.0 and batch_offsets(f["parts"][0]["records"]) == [(2, 2)], f)
    # KIP-74: a batch larger than PartitionMaxBytes still comes back whole for the first partition.
    produce(p, topic, batch([b"x" * 5000]))
    f = fetch(c, topic, 3, part_max=100, max_bytes=100)
    check("first partition gets one whole batch above the size limits (KIP-74)",
          batch_offsets(f["parts"][0]["records"]) == [(3, 3)], f)
    # Client gone while parked: the broker must survive and keep serving.
    c3 = Conn(boot)
    fetch(c3, topic, 4, max_wait=5000, send_only=True)
    time.sleep(0.1)
    c3.s.close()
    time.sleep(0.1)
    r = produce(p, topic, batch([b"after-close"]))
    check("broker fine after a parked fetch's client disconnected", r["err"] == 0 and r["base"] == 4, r)


CHECKS = dict(create=t_create, create3=t_create3, configs=t_configs, errors=t_errors, sessions=t_sessions, idempotence=t_idempotence, timestamps=t_timestamps,
              delete=t_delete, longpoll=t_longpoll)

if __name__ == "__main__":
    boot, topic, what = sys.argv[1], sys.argv[2], sys.argv[3]
    CHECKS[what](boot, topic)
    sys.exit(1 if kw.FAILED else 0)
