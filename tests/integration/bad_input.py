#!/usr/bin/env python3
"""Bad-input catalogue against a running gregord (raw sockets, standard library only).

Used by tests/integration/test_bad_input.sh (issue 2, item 7):

  bad_input.py HOST:PORT GREGORD_PID GREGORD_LOG MAX_REQUEST_BYTES

The broker must have been started with socket.request.max.bytes=MAX_REQUEST_BYTES and a
fresh data dir. Every case checks the exact answer (an exact error code, exact bytes, or
"connection closed with exactly one log line naming the peer"), and after each case a
second, healthy connection must get a correct ApiVersions + Metadata answer promptly.
Prints "ok - ..." / "FAIL - ..." per check; exit status 1 on any FAIL.
"""
import os
import re
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kwire as kw  # noqa: E402
from kwire import TAGS, arr, batch, carr, check, crc32c, cstr, frame, i8, i16, i32, i64, s16, uvarint  # noqa: E402,F401

HOST, PORT, PID, LOG, MAX_REQ = "127.0.0.1", 0, 0, "", 0
CLOSE_TIMEOUT = 5.0   # a rejected connection must be closed within this
HEALTH_TIMEOUT = 5.0  # a healthy request must be answered within this
TOPIC, SMALL, BIG = "badin", "badin-small", "badin-big"
TOPIC_ID = b"\x00" * 16
BIG_ID = SMALL_ID = b"\x00" * 16


def header(key, ver, corr, flexible, client_id="bad-input"):
    return kw.header(key, ver, corr, flexible, client_id)


class Conn(kw.Conn):
    def __init__(self, timeout=HEALTH_TIMEOUT):
        super().__init__("%s:%d" % (HOST, PORT), client_id="bad-input", timeout=timeout)
        self.peer = "%s:%d" % self.s.getsockname()[:2]

    def wait_closed(self, timeout=CLOSE_TIMEOUT):
        """'closed' once EOF/RST arrives; 'answered' if bytes come back; 'hang' on timeout."""
        self.s.settimeout(0.2)
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                d = self.s.recv(65536)
            except socket.timeout:
                continue
            except (ConnectionResetError, BrokenPipeError, OSError):
                return "closed"
            return "closed" if d == b"" else "answered %r" % d[:32]
        return "hang"


# ------------------------------------------------------------------ broker state
def proc_status(key):
    with open("/proc/%d/status" % PID) as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])  # kB
    return -1


def fd_count():
    return len(os.listdir("/proc/%d/fd" % PID))


def alive():
    try:
        with open("/proc/%d/stat" % PID) as f:
            return f.read().split(") ")[1][0] != "Z"
    except OSError:
        return False


def log_size():
    return os.path.getsize(LOG)


def log_lines_since(off, peer):
    """Log lines written after offset `off` that name `peer` (port not followed by a digit)."""
    with open(LOG, "rb") as f:
        f.seek(off)
        text = f.read().decode(errors="replace")
    pat = re.compile(re.escape(peer) + r"(?!\d)")
    return [ln for ln in text.splitlines() if pat.search(ln)]


# ------------------------------------------------------------------ healthy requests
def api_versions_v3(c):
    r = c.call(18, 3, cstr("bad-input") + cstr("1.0") + TAGS, True)
    err = r.take("h")
    keys = r.carr(lambda r: (r.take("h"), r.take("h"), r.take("h"), r.tags())[:3])
    r.take("i")
    r.tags()
    return err, {k: (lo, hi) for k, lo, hi in keys}, r.done()


def metadata_v12(c, topics=None):
    tl = None if topics is None else carr([b"\x00" * 16 + cstr(t) + TAGS for t in topics])
    body = (uvarint(0) if tl is None else tl) + b"\x00\x00" + TAGS
    r = c.call(3, 12, body, True)
    r.take("i")
    brokers = r.carr(lambda r: (r.take("i"), r.cstr(), r.take("i"), r.cstr(), r.tags())[:3])
    r.cstr()
    r.take("i")

    def part(r):
        e, idx, leader, ep = r.take("hiii")
        for _ in range(3):
            r.carr(lambda r: r.take("i"))
        r.tags()
        return (idx, e, leader)

    def topic(r):
        e = r.take("h")
        name = r.cstr()
        tid = r.b[r.p:r.p + 16]
        r.p += 16
        r.take("b")
        parts = r.carr(part)
        r.take("i")
        r.tags()
        return name, e, tid, parts

    ts = r.carr(topic)
    r.tags()
    return brokers, {t[0]: t[1:] for t in ts}, r.done()


BYSTANDER = None


def healthy(what):
    """A second, new connection gets a correct ApiVersions v3 + Metadata v12 promptly, and
    the bystander connection (open since the start) still gets ApiVersions."""
    global BYSTANDER
    t0 = time.time()
    try:
        c = Conn()
        err, keys, done1 = api_versions_v3(c)
        brokers, topics, done2 = metadata_v12(c)
        c.close()
    except Exception as e:  # noqa: BLE001 - any failure is the finding
        return check("%s: broker alive and serving others" % what, False, "(%s: %s)" % (type(e).__name__, e))
    try:
        if BYSTANDER is None:
            BYSTANDER = Conn()
        e2, k2, d3 = api_versions_v3(BYSTANDER)
        done2 = done2 and e2 == 0 and d3
    except Exception as e:  # noqa: BLE001
        BYSTANDER = None
        return check("%s: the long-lived bystander connection still served" % what, False, repr(e))
    dt = time.time() - t0
    # ApiVersions 0-5 and Produce 0-13 as Apache Kafka 4.4 advertises them (Produce v0-2 are
    # advertised but refused, KAFKA-18659; see case_headers).
    good = (alive() and err == 0 and keys.get(18) == (0, 5) and keys.get(0) == (0, 13) and done1 and done2
            and len(brokers) == 1 and brokers[0][1:] == (HOST, PORT)
            and TOPIC in topics and topics[TOPIC][0] == 0 and dt < 2.0)
    return check("%s: another connection still served (ApiVersions+Metadata in %.0f ms)" % (what, dt * 1000), good,
                 (err, keys.get(18), brokers, list(topics)))


def expect_closed(what, data, size_in_log=None, quiet=False):
    """Send `data` on a fresh connection: the broker must close it with exactly one log line
    naming the peer (and the size, if given), then serve others. quiet: only report failures."""
    off = log_size()
    c = Conn()
    try:
        c.send_raw(data)
    except OSError:
        pass  # the broker may close before it took everything
    res = c.wait_closed()
    c.close()
    lines = []
    for _ in range(40):  # the log line is written before the close; allow for buffering
        lines = log_lines_since(off, c.peer)
        if lines:
            break
        time.sleep(0.025)
    time.sleep(0.01)
    lines = log_lines_since(off, c.peer)
    good = res == "closed" and len(lines) == 1
    if size_in_log is not None:
        good = good and re.search(r"(?<![\d-])%s(?!\d)" % re.escape(str(size_in_log)), lines[0] if lines else "")
    if not good or not quiet:
        check("%s -> closed, one log line" % what, good, "(%s; log: %r)" % (res, lines[:3]))
    if not quiet:
        healthy(what)
    return good


# ------------------------------------------------------------------ requests used below
def produce_v9_body(topic, records, acks=1):
    part = i32(0) + uvarint(len(records) + 1) + records + TAGS
    return uvarint(0) + i16(acks) + i32(10000) + carr([cstr(topic) + carr([part]) + TAGS]) + TAGS


def parse_produce_v9(r):
    def part(r):
        idx, err, base, lat, lso = r.take("ihqqq")
        r.carr(lambda r: (r.take("i"), r.cstr(), r.tags()))
        msg = r.cstr()
        r.tags()
        return dict(index=idx, err=err, base=base, msg=msg)

    topics = r.carr(lambda r: (r.cstr(), r.carr(part), r.tags())[:2])
    r.take("i")
    r.tags()
    return topics[0][1][0]


def produce(c, topic, records):
    return parse_produce_v9(c.call(0, 9, produce_v9_body(topic, records), True))


def metadata_v12_body():
    return carr([TOPIC_ID + cstr(TOPIC) + TAGS]) + b"\x01\x00" + TAGS


def fetch_v13_body(max_wait=0, offset=0, part_max=1 << 20, max_bytes=50 << 20, tid=None):
    p = i32(0) + i32(-1) + i64(offset) + i32(-1) + i64(-1) + i32(part_max) + TAGS
    t = (tid or TOPIC_ID) + carr([p]) + TAGS
    return (i32(-1) + i32(max_wait) + i32(1) + i32(max_bytes) + i8(0) + i32(0) + i32(-1) + carr([t])
            + carr([]) + cstr("") + TAGS)


def create_topics_v7_body(name, partitions=1, configs=None, validate_only=False):
    cfg = [cstr(k) + cstr(v) + TAGS for k, v in (configs or {}).items()]
    t = cstr(name) + i32(partitions) + i16(-1) + carr([]) + carr(cfg) + TAGS
    return carr([t]) + i32(30000) + (b"\x01" if validate_only else b"\x00") + TAGS


def create_topic(c, name, configs=None, validate_only=False):
    r = c.call(19, 7, create_topics_v7_body(name, configs=configs, validate_only=validate_only), True)
    r.take("i")
    res = r.carr(lambda r: (r.cstr(), r.b[r.p:r.p + 16], r.take("16xh"), r.cstr()))
    return res[0][2], res[0][1]


# ------------------------------------------------------------------ cases
def case_frame_sizes():
    expect_closed("frame size -1", i32(-1), size_in_log=-1)
    expect_closed("frame size -2147483648", i32(-2147483648), size_in_log=-2147483648)
    expect_closed("frame size 0", i32(0))
    big = 2 << 20
    expect_closed("frame size 2 MiB > socket.request.max.bytes=%d" % MAX_REQ,
                  i32(big) + header(18, 3, 1, True) + b"\x00" * 65536, size_in_log=big)
    expect_closed("frame size max+1", i32(MAX_REQ + 1) + header(18, 0, 1, False), size_in_log=MAX_REQ + 1)


def case_headers():
    expect_closed("truncated header (frame of 3 bytes)", frame(b"\x00\x12\x00"))
    expect_closed("header without client_id (8 bytes)", frame(struct.pack(">hhi", 18, 0, 1)))
    expect_closed("client_id length 100 past the end of the frame",
                  frame(struct.pack(">hhih", 18, 0, 1, 100) + b"abc"))
    expect_closed("client_id length -2", frame(struct.pack(">hhih", 18, 0, 1, -2)))
    expect_closed("unknown api key 9999", frame(header(9999, 0, 1, False)))
    expect_closed("unknown api key -1", frame(header(-1, 0, 1, False)))
    expect_closed("api key 23 (OffsetForLeaderEpoch, not implemented)", frame(header(23, 4, 1, True) + b"\x00" * 8))
    # Advertised (Produce 0-13, as Kafka 4.x does) but refused: Kafka 4.4.0 closes the
    # connection on Produce v0-2 too.
    expect_closed("Produce v2 (advertised, below the implemented range)",
                  frame(header(0, 2, 1, False) + i16(1) + i32(1000) + arr([])))
    expect_closed("Produce v14 (above the supported range)", frame(header(0, 14, 1, True) + b"\x00" * 8))
    expect_closed("Fetch v99", frame(header(1, 99, 1, True) + b"\x00" * 8))
    expect_closed("Fetch v3 (below the supported range)", frame(header(1, 3, 1, False) + b"\x00" * 8))
    expect_closed("Metadata v-1", frame(header(3, -1, 1, False)))
    # flexible request header with a broken tagged-field section
    expect_closed("request header v2: tagged section size past the end",
                  frame(header(3, 12, 1, False) + b"\x01\x00\x40" + b"\x00" * 4))


def case_api_versions():
    c = Conn()
    c.send_raw(frame(header(18, 99, 4242, True) + cstr("x") + cstr("y") + TAGS))
    try:
        resp = c.recv_frame()
    except Exception as e:  # noqa: BLE001
        resp = repr(e)
    want = i32(4242) + i16(35) + i32(1) + struct.pack(">hhh", 18, 0, 5)
    check("ApiVersions v99 -> v0-layout answer, error 35, ApiKeys [18: 0-5] (exact bytes)", resp == want,
          "(got %r, want %r)" % (resp, want))
    try:
        err, keys, done = api_versions_v3(c)
        check("ApiVersions v3 on the same connection after the v99 fallback", err == 0 and keys.get(18) == (0, 5)
              and done, (err, keys.get(18)))
    except Exception as e:  # noqa: BLE001
        check("ApiVersions v3 on the same connection after the v99 fallback", False, repr(e))
    c.close()
    c = Conn()
    # Kafka 4.4 supports ApiVersions v0-5, so v6 is just above the range.
    c.send_raw(frame(header(18, 6, 7, True) + cstr("x") + cstr("y") + TAGS))
    check("ApiVersions v6 (just above the range) -> the same fallback",
          c.recv_frame() == i32(7) + i16(35) + i32(1) + struct.pack(">hhh", 18, 0, 5))
    c.close()
    c = Conn()
    c.send_raw(frame(header(18, 7, 8, True) + cstr("x") + cstr("y") + TAGS))
    check("ApiVersions v7 -> the same fallback",
          c.recv_frame() == i32(8) + i16(35) + i32(1) + struct.pack(">hhh", 18, 0, 5))
    c.close()
    for v in range(6):
        c = Conn()
        flex = v >= 3
        body = b""
        if flex:
            body = cstr("bad-input") + cstr("1.0") + (cstr(None) + i32(-1) if v >= 5 else b"") + TAGS
        try:
            r = c.call(18, v, body, flex)
            err = r.take("h")
            if flex:
                keys = r.carr(lambda r: (r.take("h"), r.take("h"), r.take("h"), r.tags())[:3])
            else:
                keys = r.arr(lambda r: r.take("hhh"))
            if v >= 1:
                r.take("i")
            if flex:
                r.tags()
            km = {k: (lo, hi) for k, lo, hi in keys}
            check("ApiVersions v%d answered (error 0, Produce 0-13, ApiVersions 0-5, whole frame parsed)" % v,
                  err == 0 and km.get(18) == (0, 5) and km.get(0) == (0, 13) and r.done(), (err, km))
        except Exception as e:  # noqa: BLE001
            check("ApiVersions v%d answered" % v, False, repr(e))
        c.close()
    healthy("ApiVersions versions")


def case_prefixes():
    """Every proper prefix of a valid body closes the connection; the whole body is answered."""
    reqs = [
        ("Produce v9", 0, 9, produce_v9_body(TOPIC, batch([b"prefix-test"]))),
        ("Metadata v12", 3, 12, metadata_v12_body()),
        ("Fetch v13", 1, 13, fetch_v13_body()),
        ("CreateTopics v7", 19, 7, create_topics_v7_body("badin-prefix", 3, {"retention.ms": "60000",
                                                                             "cleanup.policy": "delete"},
                                                         validate_only=True)),
    ]
    for name, key, ver, body in reqs:
        c = Conn()
        try:
            r = c.call(key, ver, body, True)
            err = 0
            if key == 0:
                err = parse_produce_v9(r)["err"]
            elif key == 19:
                r.take("i")
                err = r.carr(lambda r: (r.cstr(), r.take("16xh")))[0][1]
            check("%s: the whole body (%d bytes) is answered, error %d" % (name, len(body), err), err == 0)
        except Exception as e:  # noqa: BLE001
            check("%s: the whole body (%d bytes) is answered" % (name, len(body)), False, repr(e))
        c.close()
        bad = []
        t0 = time.time()
        for n in range(len(body)):
            if len(bad) >= 5 and bad[-5] == n - 5:
                break  # five in a row: stop here (keeps a hanging broker from eating the time budget)
            if not expect_closed("%s cut at byte %d" % (name, n), frame(header(key, ver, 1, True) + body[:n]),
                                 quiet=True):
                bad.append(n)
            if n % 16 == 0 and not alive():
                break
        check("%s: each of the %d truncated bodies closed the connection with one log line" % (name, len(body)),
              not bad and alive(), "(bad prefixes: %s)" % bad[:20])
        healthy("%s truncations (%.1f s)" % (name, time.time() - t0))


def case_malformed_fields():
    rss0, hwm0 = proc_status("VmRSS"), proc_status("VmHWM")
    h4 = header(3, 4, 1, False, client_id="")  # Metadata v4: non-flexible, nullable topics
    h12 = header(3, 12, 1, True, client_id="")
    cases = [
        ("Metadata v4: topics count -2", h4 + i32(-2) + b"\x01"),
        ("Metadata v0: topics count -1 (not nullable before v1)", header(3, 0, 1, False) + i32(-1)),
        ("Produce v8: topic_data count -1 (not nullable)", header(0, 8, 1, False) + s16(None) + i16(1) + i32(1000)
         + i32(-1)),
        ("Metadata v4: 2^31-1 topics in a 20-byte frame", h4 + i32(0x7FFFFFFF) + b"\x00\x03ab\x01"),
        ("Produce v8: 2^31-1 topics", header(0, 8, 1, False) + s16(None) + i16(1) + i32(1000) + i32(0x7FFFFFFF)),
        ("Produce v8: 1000 partitions in 16 bytes", header(0, 8, 1, False) + s16(None) + i16(1) + i32(1000) + i32(1)
         + s16(TOPIC) + i32(1000) + b"\x00" * 16),
        ("Metadata v4: topic name length -2", h4 + i32(1) + i16(-2) + b"\x01"),
        ("Metadata v4: topic name length 30000 past the end", h4 + i32(1) + i16(30000) + b"abc\x01"),
        ("CreateTopics v4: name length -1 (not nullable)", header(19, 4, 1, False) + i32(1) + i16(-1) + i32(1)
         + i16(1) + i32(0) + i32(0) + i32(1000) + b"\x00"),
        ("Produce v8: records length -2", header(0, 8, 1, False) + s16(None) + i16(1) + i32(1000) + i32(1)
         + s16(TOPIC) + i32(1) + i32(0) + i32(-2)),
        ("Produce v8: records length 2^31-1", header(0, 8, 1, False) + s16(None) + i16(1) + i32(1000) + i32(1)
         + s16(TOPIC) + i32(1) + i32(0) + i32(0x7FFFFFFF) + b"\x00" * 8),
        ("Metadata v12: compact array count 2^32-2 (uvarint ff ff ff ff 0f)", h12 + b"\xff\xff\xff\xff\x0f" + b"\x01\x00\x00"),
        ("Metadata v12: compact array count 2^31-1", h12 + uvarint(0x80000000) + b"\x01\x00\x00"),
        ("Metadata v12: compact string length overflowing (ff ff ff ff 0f)", h12 + uvarint(2) + TOPIC_ID
         + b"\xff\xff\xff\xff\x0f" + b"ab\x00\x01\x00\x00"),
        ("Metadata v12: compact string length 2^31", h12 + uvarint(2) + TOPIC_ID + uvarint(0x80000001)
         + b"ab\x00\x01\x00\x00"),
        ("Metadata v12: compact string length past the end", h12 + uvarint(2) + TOPIC_ID + uvarint(100)
         + b"ab\x00\x01\x00\x00"),
        ("Metadata v12: 6-byte varint array count", h12 + b"\x82\x80\x80\x80\x80\x00" + b"\x01\x00\x00"),
        ("Metadata v12: 10-byte varint array count", h12 + b"\xff" * 9 + b"\x01" + b"\x01\x00\x00"),
        ("Metadata v12: varint cut by the end of the frame", h12 + b"\x80\x80"),
        ("Metadata v12: tagged fields out of order (tag 5 then 2)", h12 + uvarint(0) + b"\x01\x00"
         + b"\x02\x05\x00\x02\x00"),
        ("Metadata v12: duplicate tag", h12 + uvarint(0) + b"\x01\x00" + b"\x02\x05\x00\x05\x00"),
        ("Metadata v12: tagged field size past the end", h12 + uvarint(0) + b"\x01\x00" + b"\x01\x05\x64abc"),
        ("Metadata v12: tagged field count past the end", h12 + uvarint(0) + b"\x01\x00" + b"\x7f\x01\x00"),
        ("Metadata v12: tagged field size 6-byte varint", h12 + uvarint(0) + b"\x01\x00"
         + b"\x01\x05\x80\x80\x80\x80\x80\x00"),
        ("Metadata v12: tagged field count 2^32-1", h12 + uvarint(0) + b"\x01\x00" + b"\xff\xff\xff\xff\x0f"),
        ("request header v2: tags out of order (3 then 1)", header(3, 12, 1, False) + b"\x02\x03\x00\x01\x00"
         + uvarint(0) + b"\x01\x00\x00"),
        ("Metadata v12: tag in an element struct past the end", h12 + uvarint(2) + TOPIC_ID + cstr(TOPIC)
         + b"\x01\x00\x40" + b"\x01\x00\x00"),
        ("Fetch v13: forgotten topic partitions count 2^31-2", header(1, 13, 1, True) + i32(-1) + i32(0) + i32(1)
         + i32(1000) + i8(0) + i32(0) + i32(-1) + carr([]) + uvarint(2) + TOPIC_ID
         + uvarint(0x7FFFFFFF) + b"\x00" * 4),
    ]
    for what, payload in cases:
        expect_closed(what, frame(payload))
    # Control: an unknown tag in good order is skipped (not an error).
    c = Conn()
    try:
        c.send_raw(frame(header(3, 12, 9, True) + carr([TOPIC_ID + cstr(TOPIC) + TAGS]) + b"\x01\x00"
                         + b"\x02\x05\x01\xaa\x07\x00"))
        corr, r = c.recv_any(True)
        check("Metadata v12 with unknown tags (5, 7) in order is answered", corr == 9)
    except Exception as e:  # noqa: BLE001
        check("Metadata v12 with unknown tags (5, 7) in order is answered", False, repr(e))
    c.close()
    rss1, hwm1 = proc_status("VmRSS"), proc_status("VmHWM")
    check("no large allocation: VmRSS %d -> %d kB, VmHWM %d -> %d kB (growth < 32 MiB)" % (rss0, rss1, hwm0, hwm1),
          rss1 - rss0 < 32768 and hwm1 - hwm0 < 32768)


def case_record_batches():
    c = Conn()
    good = batch([b"fine"])
    r = produce(c, TOPIC, good)
    check("Produce v9 valid batch -> error 0", r["err"] == 0 and r["base"] >= 0, r)
    bad = bytearray(batch([b"crc"]))
    bad[-1] ^= 0xFF
    r = produce(c, TOPIC, bytes(bad))
    check("bad CRC -> CORRUPT_MESSAGE (2), base offset -1", r["err"] == 2 and r["base"] == -1, r)
    bad = bytearray(batch([b"magic"]))
    bad[16] = 1
    r = produce(c, TOPIC, bytes(bad))
    check("magic 1 -> INVALID_RECORD (87)", r["err"] == 87 and r["base"] == -1, r)
    bad = bytearray(batch([b"magic"]))
    bad[16] = 7
    r = produce(c, TOPIC, bytes(bad))
    check("magic 7 -> CORRUPT_MESSAGE (2)", r["err"] == 2 and r["base"] == -1, r)
    r = produce(c, TOPIC, batch([b"truncated-batch"])[:-5])
    check("truncated batch (last 5 bytes cut) -> INVALID_RECORD (87)", r["err"] == 87 and r["base"] == -1, r)
    r = produce(c, TOPIC, batch([b"truncated-batch"])[:30])
    check("batch cut inside its header -> INVALID_RECORD (87)", r["err"] == 87 and r["base"] == -1, r)
    bad = bytearray(batch([b"short"]))
    struct.pack_into(">i", bad, 8, 5)
    r = produce(c, TOPIC, bytes(bad))
    check("batchLength 5 (< 14) -> CORRUPT_MESSAGE (2)", r["err"] == 2 and r["base"] == -1, r)
    # a record cut short inside a batch whose length and CRC are consistent
    b = batch([b"x" * 20])
    cut = bytearray(b[:-8])
    struct.pack_into(">i", cut, 8, len(cut) - 12)
    struct.pack_into(">I", cut, 17, crc32c(bytes(cut[21:])))
    r = produce(c, TOPIC, bytes(cut))
    check("record cut short (consistent length, good CRC) -> INVALID_RECORD (87)", r["err"] == 87, r)
    r = produce(c, SMALL, batch([b"z" * 2000]))
    check("batch above max.message.bytes=1000 -> MESSAGE_TOO_LARGE (10)", r["err"] == 10 and r["base"] == -1, r)
    r = produce(c, SMALL, batch([b"z" * 500]))
    check("batch below max.message.bytes accepted on the same connection", r["err"] == 0, r)
    try:
        err, keys, done = api_versions_v3(c)
        check("connection still usable after the bad batches", err == 0 and done)
    except Exception as e:  # noqa: BLE001
        check("connection still usable after the bad batches", False, repr(e))
    c.close()
    healthy("corrupt record batches")


def case_half_frame():
    c = Conn()
    c.send_raw(i32(100) + header(18, 0, 1, False)[:10])
    time.sleep(0.05)
    c.close()
    healthy("half a frame, then disconnect")
    c = Conn()
    c.send_raw(b"\x00\x00")  # half of the size prefix
    time.sleep(0.05)
    c.close(rst=True)
    healthy("half a size prefix, then RST")


def fetch_hwm(c, tid):
    """High watermark of partition 0 of topic id `tid` (Fetch v13, MaxWaitMs 0)."""
    r = c.call(1, 13, fetch_v13_body(max_wait=0, offset=0, part_max=1, max_bytes=1, tid=tid), True)
    _thr, err, _sid = r.take("ihi")
    r.uvarint()
    r.p += 16
    r.uvarint()
    _idx, perr, hwm = r.take("ihq")
    return hwm if err == 0 and perr == 0 else -1


def silent_for(c, secs):
    """True if nothing arrives on c for secs (the request is parked, not answered)."""
    c.s.settimeout(secs)
    try:
        c.s.recv(1)
        return False
    except socket.timeout:
        return True
    except OSError:
        return False


def case_parked_fetch():
    p = Conn()
    hwm = fetch_hwm(p, TOPIC_ID)
    c, c2 = Conn(), Conn()
    c.send(1, 13, fetch_v13_body(max_wait=30000, offset=hwm), True)
    c2.send(1, 13, fetch_v13_body(max_wait=30000, offset=hwm), True)
    check("Fetch MaxWaitMs=30000 at the end of the log (%d) is parked" % hwm, hwm > 0 and silent_for(c, 0.3))
    healthy("Fetch MaxWaitMs=30000 parked")
    c.close()
    c2.close(rst=True)
    time.sleep(0.1)
    healthy("parked Fetch's client disconnected")
    r = produce(p, TOPIC, batch([b"wake"]))
    check("produce after the parked fetchers left (wakes their fetches)", r["err"] == 0 and r["base"] == hwm, r)
    p.close()
    healthy("after waking the abandoned fetch")


def case_pipeline():
    c = Conn()
    hwm = fetch_hwm(c, SMALL_ID)  # these fetches park: nothing is produced to SMALL here
    data = b""
    for i in range(200):
        k = i % 4
        if k == 0:
            data += frame(header(18, 3, i, True) + cstr("p") + cstr("1") + TAGS)
        elif k == 1:
            data += frame(header(3, 12, i, True) + metadata_v12_body())
        elif k == 2:
            data += frame(header(0, 9, i, True) + produce_v9_body(TOPIC, batch([b"pipe%d" % i])))
        else:
            data += frame(header(1, 13, i, True) + fetch_v13_body(max_wait=500, offset=hwm, tid=SMALL_ID))
    c.send_raw(data)
    c.close()
    healthy("200 pipelined requests, closed before reading")
    time.sleep(0.7)  # let the parked fetches expire on the closed connection
    healthy("200 pipelined requests, after their fetches expired")


def case_backpressure():
    rss0 = proc_status("VmRSS")
    hogs = []
    for _ in range(3):
        h = Conn()
        data = b""
        for i in range(100):
            data += frame(header(1, 13, i, True) + fetch_v13_body(offset=0, part_max=8 << 20, max_bytes=64 << 20,
                                                                 tid=BIG_ID))
        h.s.settimeout(10)
        try:
            h.send_raw(data)
        except OSError as e:
            check("backpressure client could send its fetches", False, repr(e))
        hogs.append(h)
    time.sleep(1.0)
    rss1 = proc_status("VmRSS")
    healthy("3 clients x 100 large fetches never read (backpressure)")
    check("memory bounded under backpressure: VmRSS %d -> %d kB (growth < 64 MiB)" % (rss0, rss1),
          rss1 - rss0 < 65536)
    # the hog still gets correct bytes if it starts reading: the first response is whole
    h = hogs[0]
    try:
        h.s.settimeout(10)
        corr, r = h.recv_any(True)
        _thr, err, _sid = r.take("ihi")
        check("a paused client that starts reading gets its first fetch answer (correlation id 0, %d bytes)"
              % len(r.b), corr == 0 and err == 0 and len(r.b) > 4000000, (corr, err, len(r.b)))
    except Exception as e:  # noqa: BLE001
        check("a paused client that starts reading gets its first fetch answer", False, repr(e))
    for h in hogs:
        h.close(rst=True)
    time.sleep(0.3)
    healthy("backpressure clients gone")


def case_abrupt():
    for i in range(50):
        c = Conn()
        k = i % 5
        if k == 1:
            c.send_raw(i32(50))
        elif k == 2:
            c.send_raw(frame(header(3, 12, 1, True) + metadata_v12_body()))
        elif k == 3:
            c.send_raw(frame(header(1, 13, 1, True) + fetch_v13_body(max_wait=5000)))
        elif k == 4:
            c.send_raw(frame(header(18, 3, 1, True) + cstr("a") + cstr("b") + TAGS) * 10)
        c.close(rst=i % 2 == 0)
    healthy("50 connections opened and closed abruptly")


def main():
    global HOST, PORT, PID, LOG, MAX_REQ, TOPIC_ID, BIG_ID, SMALL_ID
    host, port = sys.argv[1].rsplit(":", 1)
    HOST, PORT, PID, LOG, MAX_REQ = host, int(port), int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    t0 = time.time()
    c = Conn()
    e1, TOPIC_ID = create_topic(c, TOPIC)
    e2, SMALL_ID = create_topic(c, SMALL, {"max.message.bytes": "1000"})
    e3, BIG_ID = create_topic(c, BIG)
    ok_setup = e1 == e2 == e3 == 0
    for i in range(8):  # 8 x 512 KiB for the backpressure case
        r = produce(c, BIG, batch([bytes([65 + i]) * 1000] * 512))
        ok_setup = ok_setup and r["err"] == 0
    c.close()
    check("set-up: topics %s, %s (max.message.bytes=1000), %s (4 MiB)" % (TOPIC, SMALL, BIG), ok_setup, (e1, e2, e3))
    healthy("set-up")
    fds0 = fd_count()
    for case in (case_frame_sizes, case_headers, case_api_versions, case_record_batches, case_malformed_fields,
                 case_prefixes, case_half_frame, case_parked_fetch, case_pipeline, case_backpressure, case_abrupt):
        t = time.time()
        case()
        print("# %s: %.1f s" % (case.__name__, time.time() - t), flush=True)
        if not alive():
            check("gregord still running after %s" % case.__name__, False)
            break
    fds = fd_count()
    for _ in range(50):
        if fds <= fds0:
            break
        time.sleep(0.1)
        fds = fd_count()
    check("no descriptor leak: %d open fds before the cases, %d after" % (fds0, fds), fds <= fds0)
    print("# total %.1f s" % (time.time() - t0), flush=True)
    sys.exit(1 if kw.FAILED else 0)


if __name__ == "__main__":
    main()
