"""Minimal Kafka wire helpers for raw-socket tests (standard library only).

Encoders for classic and flexible (KIP-482) request bodies, uncompressed v2 record
batches (CRC-32C included), a reader for responses, and a connection that frames
requests with header v1 (classic) or v2 (flexible). The one copy of the framing every
raw-wire script uses: bad_input.py, produce_fetch_wire.py, share_fetch_wire.py,
share_coord_wire.py, admin_check.py and the two differential drivers.
Also check(): the "ok - ..." / "FAIL - ..." line those scripts print, counting failures
in FAILED.
"""
import socket
import struct
import time
import uuid as _uuid

FAILED = 0


def check(desc, cond, detail=""):
    """Print "ok - desc" or "FAIL - desc detail" (counted in FAILED); returns cond."""
    global FAILED
    if cond:
        print("ok - %s" % desc, flush=True)
    else:
        FAILED += 1
        print("FAIL - %s %s" % (desc, detail), flush=True)
    return cond


# ------------------------------------------------------------------ encoding
def i8(v): return struct.pack(">b", v)
def i16(v): return struct.pack(">h", v)
def i32(v): return struct.pack(">i", v)
def i64(v): return struct.pack(">q", v)
def boolean(v): return b"\x01" if v else b"\x00"


def uvarint(n):
    out = b""
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def varint(n):
    return uvarint((n << 1) ^ (n >> 63))


def s16(s):
    """Classic (nullable) string."""
    if s is None:
        return i16(-1)
    b = s.encode()
    return i16(len(b)) + b


def cstr(s):
    """Compact (nullable) string."""
    if s is None:
        return uvarint(0)
    b = s.encode()
    return uvarint(len(b) + 1) + b


def carr(items, enc=None):
    """Compact (nullable) array: items None -> null; enc None: items are already encoded."""
    if items is None:
        return uvarint(0)
    return uvarint(len(items) + 1) + b"".join(enc(x) if enc else x for x in items)


def arr(items, enc=None):
    """Classic (nullable) array, as carr."""
    if items is None:
        return i32(-1)
    return i32(len(items)) + b"".join(enc(x) if enc else x for x in items)


TAGS = b"\x00"  # no tagged fields


def uuid_bytes(u):
    return u if isinstance(u, bytes) else _uuid.UUID(u).bytes


ZERO_UUID = b"\x00" * 16


def _crc32c_table():
    t = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        t.append(c)
    return t


_T = _crc32c_table()


def crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c = _T[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def batch(values, timestamps=None, pid=-1, epoch=-1, seq=-1, transactional=False):
    """One uncompressed RecordBatch v2 of null-key records, baseOffset 0 (timestamps: now)."""
    now = int(time.time() * 1000)
    ts = timestamps or [now] * len(values)
    recs = b""
    for i, v in enumerate(values):
        body = b"\x00" + varint(ts[i] - ts[0]) + varint(i) + varint(-1) + varint(len(v)) + v + varint(0)
        recs += varint(len(body)) + body
    attrs = 0x10 if transactional else 0
    after_crc = struct.pack(">hiqqqhii", attrs, len(values) - 1, ts[0], max(ts), pid, epoch, seq, len(values)) + recs
    body = struct.pack(">ib", -1, 2) + struct.pack(">I", crc32c(after_crc)) + after_crc
    return struct.pack(">qi", 0, len(body)) + body


def header(key, ver, corr, flexible, client_id="kwire-test"):
    """Request header v1 (classic) or v2 (flexible: with an empty tag section)."""
    return struct.pack(">hhi", key, ver, corr) + s16(client_id) + (TAGS if flexible else b"")


def frame(payload):
    return i32(len(payload)) + payload


# ------------------------------------------------------------------ decoding
class Reader:
    def __init__(self, b):
        self.b, self.p = b, 0

    def take(self, fmt):
        v = struct.unpack_from(">" + fmt, self.b, self.p)
        self.p += struct.calcsize(">" + fmt)
        return v[0] if len(v) == 1 else v

    def i8(self): return self.take("b")
    def i16(self): return self.take("h")
    def i32(self): return self.take("i")
    def i64(self): return self.take("q")
    def boolean(self): return self.take("B") != 0

    def uuid(self):
        u = self.b[self.p:self.p + 16]
        self.p += 16
        return u

    def uvarint(self):
        n = shift = 0
        while True:
            c = self.b[self.p]
            self.p += 1
            n |= (c & 0x7F) << shift
            if not c & 0x80:
                return n
            shift += 7

    def bytes_(self):
        n = self.i32()
        if n < 0:
            return None
        s = self.b[self.p:self.p + n]
        self.p += n
        return s

    def string(self):
        n = self.i16()
        if n < 0:
            return None
        s = self.b[self.p:self.p + n].decode()
        self.p += n
        return s

    def cstr(self):
        n = self.uvarint() - 1
        if n < 0:
            return None
        s = self.b[self.p:self.p + n].decode()
        self.p += n
        return s

    def cbytes(self):
        n = self.uvarint() - 1
        if n < 0:
            return None
        s = self.b[self.p:self.p + n]
        self.p += n
        return s

    def carr(self, dec):
        n = self.uvarint() - 1
        if n < 0:
            return None
        return [dec(self) for _ in range(n)]

    def arr(self, dec):
        n = self.i32()
        if n < 0:
            return None
        return [dec(self) for _ in range(n)]

    def tags(self):
        for _ in range(self.uvarint()):
            self.uvarint()
            n = self.uvarint()  # not "self.p += self.uvarint()": that adds to the old p
            self.p += n

    def done(self):
        return self.p == len(self.b)


# ------------------------------------------------------------------ connection
class Conn:
    def __init__(self, boot, client_id="kwire-test", timeout=30, source=None):
        """source: a local address to connect from (e.g. "127.0.0.2"), for per-host ACLs."""
        host, port = boot.rsplit(":", 1)
        src = (source, 0) if source else None
        self.s = socket.create_connection((host, int(port)), timeout=timeout, source_address=src)
        self.corr = 0
        self.client_id = client_id

    def send_raw(self, data):
        self.s.sendall(data)

    def send(self, key, ver, body, flexible=False):
        """Frame and send one request; returns its correlation id."""
        self.corr += 1
        self.s.sendall(frame(header(key, ver, self.corr, flexible, self.client_id) + body))
        return self.corr

    def recv_frame(self):
        n = struct.unpack(">i", self._exact(4))[0]
        return self._exact(n)

    def recv_any(self, flexible=False):
        """(correlation id, Reader at the body) of the next response; flexible: header v1."""
        r = Reader(self.recv_frame())
        corr = r.i32()
        if flexible:
            r.tags()
        return corr, r

    def recv(self, flexible=False):
        return self.recv_any(flexible)[1]

    def _exact(self, n):
        buf = b""
        while len(buf) < n:
            chunk = self.s.recv(n - len(buf))
            if not chunk:
                raise ConnectionError("closed by the broker")
            buf += chunk
        return buf

    def call(self, key, ver, body, flexible=True):
        """Send and read the answer (its correlation id must match). Flexible bodies: the
        caller ends the body with TAGS. ApiVersions answers with header v0 at any version."""
        corr = self.send(key, ver, body, flexible)
        got, r = self.recv_any(flexible and key != 18)
        if got != corr:
            raise ValueError("correlation id %d, expected %d" % (got, corr))
        return r

    def close(self, rst=False):
        """rst: abort the connection (SO_LINGER 0) instead of a normal close."""
        if rst:
            self.s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.s.close()


# ------------------------------------------------------------------ a few common requests
def api_versions(c):
    r = c.call(18, 3, cstr("kwire") + cstr("1.0") + TAGS)
    err = r.i16()
    keys = r.carr(lambda r: (r.i16(), r.i16(), r.i16(), r.tags())[:3])
    return err, {k: (lo, hi) for k, lo, hi in keys}


def create_topic(c, name, partitions=1, configs=None):
    """CreateTopics v7; returns (error code, topic id bytes)."""
    cfg = list((configs or {}).items())
    topic = cstr(name) + i32(partitions) + i16(-1) + carr([], None) + \
        carr(cfg, lambda kv: cstr(kv[0]) + cstr(kv[1]) + TAGS) + TAGS
    r = c.call(19, 7, carr([topic], lambda x: x) + i32(30000) + boolean(False) + TAGS)
    r.i32()
    out = r.carr(lambda r: (r.cstr(), r.uuid(), r.i16(), r.cstr()))
    return out[0][2], out[0][1]


def delete_topic(c, name):
    """DeleteTopics v6 by name; returns the error code."""
    body = carr([name], lambda n: cstr(n) + ZERO_UUID + TAGS) + i32(30000) + TAGS
    r = c.call(20, 6, body)
    r.i32()
    res = r.carr(lambda r: (r.cstr(), r.uuid(), r.i16()))
    return res[0][2]
