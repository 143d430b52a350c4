"""Minimal Kafka wire helpers for raw-socket tests (standard library only).

Encoders for classic and flexible (KIP-482) request bodies, a reader for responses,
and a connection that frames requests with header v1 (classic) or v2 (flexible).
Used by share_coord_wire.py; produce_fetch_wire.py has its own copy of the classic part.
"""
import socket
import struct
import uuid as _uuid


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


def carr(items, enc):
    """Compact (nullable) array: items None -> null."""
    if items is None:
        return uvarint(0)
    return uvarint(len(items) + 1) + b"".join(enc(x) for x in items)


def arr(items, enc):
    if items is None:
        return i32(-1)
    return i32(len(items)) + b"".join(enc(x) for x in items)


TAGS = b"\x00"  # no tagged fields


def uuid_bytes(u):
    return u if isinstance(u, bytes) else _uuid.UUID(u).bytes


ZERO_UUID = b"\x00" * 16


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
            self.p += self.uvarint()


# ------------------------------------------------------------------ connection
class Conn:
    def __init__(self, boot, client_id="kwire-test", timeout=30):
        host, port = boot.rsplit(":", 1)
        self.s = socket.create_connection((host, int(port)), timeout=timeout)
        self.corr = 0
        self.client_id = client_id

    def send(self, key, ver, body, flexible):
        self.corr += 1
        hdr = struct.pack(">hhi", key, ver, self.corr) + s16(self.client_id) + (TAGS if flexible else b"")
        msg = hdr + body
        self.s.sendall(struct.pack(">i", len(msg)) + msg)
        return self.corr

    def recv(self, flexible):
        n = struct.unpack(">i", self._exact(4))[0]
        r = Reader(self._exact(n))
        r.i32()  # correlation id
        if flexible:
            r.tags()
        return r

    def _exact(self, n):
        buf = b""
        while len(buf) < n:
            chunk = self.s.recv(n - len(buf))
            if not chunk:
                raise ConnectionError("closed")
            buf += chunk
        return buf

    def call(self, key, ver, body, flexible=True):
        """Flexible bodies: the caller ends the body with TAGS."""
        self.send(key, ver, body, flexible)
        return self.recv(flexible and key != 18)

    def close(self):
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
