#!/usr/bin/env python3
"""Client quotas on the wire (docs/quotas.md), standard library only.

  quota_wire.py produce BOOT TOPIC CLIENT_ID QUOTA SECONDS WINDOW_MS
      Produce (v9, acks=1, 8 KiB batches) as fast as the broker lets CLIENT_ID, honouring
      throttle_time_ms as a KIP-219 client does, and count the request bytes (what the
      broker records) over whole quota cycles of at least SECONDS (class Meter): the achieved
      rate must be within 10 % of QUOTA bytes/s. WINDOW_MS: quota.window.size.seconds * 1000.
  quota_wire.py fill BOOT TOPIC MB
      Produce MB MiB into partition 0 (for the fetch run; run under an unthrottled client id).
  quota_wire.py fetch BOOT TOPIC CLIENT_ID QUOTA SECONDS WINDOW_MS
      Fetch (v13) from offset 0 on, likewise: the response bytes per second within 10 %.
  quota_wire.py request BOOT CLIENT_ID PCT WINDOW_MS
      Metadata as fast as possible under request_percentage=PCT (set first): throttled and muted.
  quota_wire.py conn-rate BOOT RATE N
      N connections in a row with connection_creation_rate=RATE on 127.0.0.1 (set first).
  quota_wire.py set BOOT TYPE NAME KEY VALUE
      One AlterClientQuotas (NAME "<default>": the default entity).
"""
import struct
import sys
import time

import kwire
from kwire import TAGS, carr, check, cstr, i8, i16, i32, i64, uvarint

TOPIC_IDS = {}


def produce_body(topic, records):
    part = i32(0) + uvarint(len(records) + 1) + records + TAGS
    return uvarint(0) + i16(1) + i32(10000) + carr([cstr(topic) + carr([part]) + TAGS]) + TAGS


def produce_throttle(r):
    """Error code of the one partition and throttle_time_ms of a Produce v9 answer."""
    def part(r):
        idx, err, base, lat, lso = r.take("ihqqq")
        r.carr(lambda r: (r.take("i"), r.cstr(), r.tags()))
        r.cstr()
        r.tags()
        return err
    topics = r.carr(lambda r: (r.cstr(), r.carr(part), r.tags())[:2])
    return topics[0][1][0], r.i32()


class Meter:
    """Achieved rate over whole quota cycles. Kafka's windowed rate throttles in a sawtooth:
    small throttles while the window fills, one long throttle (about a window) when the
    oldest sample rolls over. The count starts when the first long throttle has been waited
    out and stops when another one has, after at least `seconds`: both ends are points where
    the broker's windowed rate is back at the quota."""

    def __init__(self, seconds, window_ms):
        self.seconds, self.long_ms = seconds, window_ms / 2
        self.start = self.stop = None
        self.bytes, self.throttles = 0, []

    def answer(self, nbytes, thr):
        """Account one answer (nbytes counted against the quota); sleeps its throttle time.
        True when the measurement is over."""
        if self.start is not None:
            self.bytes += nbytes
        if thr > 0:
            self.throttles.append(thr)
            time.sleep(thr / 1000.0)  # KIP-219: the client waits; the broker mutes the channel meanwhile
        now = time.time()
        if thr >= self.long_ms:
            if self.start is None:
                self.start = now
            elif now - self.start >= self.seconds:
                self.stop = now
                return True
        elif thr > 0 and self.start is not None and now - self.start >= 3 * self.seconds:
            self.stop = now  # no long throttle for a long while: end at a throttle point anyway
            return True
        return False

    def report(self, what, key, quota):
        secs = (self.stop or time.time()) - (self.start or time.time())
        rate = self.bytes / secs if secs > 0 else 0
        print("# %s: %d bytes in %.2f s = %.0f B/s against %s=%d (%+.1f %%), %d throttled answers, max %d ms"
              % (what, self.bytes, secs, rate, key, quota, 100.0 * (rate - quota) / quota, len(self.throttles),
                 max(self.throttles or [0])))
        check("%s throttled (throttle_time_ms > 0 answered)" % what, len(self.throttles) > 0)
        check("%s measured (over quota cycles)" % what, self.stop is not None)
        check("%s rate %.0f B/s within 10 %% of %d" % (what, rate, quota), abs(rate - quota) <= 0.1 * quota)


def run_produce(boot, topic, client, quota, seconds, window_ms):
    c = kwire.Conn(boot, client_id=client)
    body = produce_body(topic, kwire.batch([b"x" * 8000]))
    req_bytes = len(kwire.header(0, 9, 1, True, client)) + len(body)  # the frame, as the broker counts it
    m = Meter(seconds, window_ms)
    side = kwire.Conn(boot, client_id="quota-side")  # another client, served while this one is muted
    side_ms = []
    deadline = time.time() + seconds + 20
    while time.time() < deadline:
        c.send(0, 9, body, True)
        err, thr = produce_throttle(c.recv(True))
        if err:
            raise SystemExit("produce error %d" % err)
        if thr >= window_ms / 2:
            t0 = time.time()
            kwire.api_versions(side)
            side_ms.append((time.time() - t0) * 1000)
        if m.answer(req_bytes, thr):
            break
    m.report("produce", "producer_byte_rate", quota)
    print("# another connection answered in at most %.1f ms while the producer was muted" % max(side_ms or [0]))
    check("other connections are served while a throttled one is muted", side_ms and max(side_ms) < 500)


def topic_id(c, topic):
    body = carr([b"\x00" * 16 + cstr(topic) + TAGS]) + b"\x00" + b"\x00" + TAGS
    r = c.call(3, 12, body, True)
    r.i32()
    r.carr(lambda r: (r.i32(), r.cstr(), r.i32(), r.cstr(), r.tags()))
    r.cstr()
    r.i32()
    t = r.carr(lambda r: (r.i16(), r.cstr(), r.uuid(), r.boolean(),
                          r.carr(lambda r: (r.i16(), r.i32(), r.i32(), r.i32(), r.carr(lambda r: r.i32()),
                                            r.carr(lambda r: r.i32()), r.carr(lambda r: r.i32()), r.tags())),
                          r.i32(), r.tags()))
    return t[0][2]


def fetch_body(tid, offset, max_bytes):
    p = i32(0) + i32(-1) + i64(offset) + i32(-1) + i64(-1) + i32(max_bytes) + TAGS
    t = tid + carr([p]) + TAGS
    return (i32(-1) + i32(0) + i32(1) + i32(max_bytes) + i8(0) + i32(0) + i32(-1) + carr([t])
            + carr([]) + cstr("") + TAGS)


def next_offset(records, offset):
    """The offset after the last whole batch in a Fetch answer's records."""
    p = 0
    while p + 12 <= len(records):
        base, length = struct.unpack_from(">qi", records, p)
        if p + 12 + length > len(records):
            break
        last_delta = struct.unpack_from(">i", records, p + 23)[0]
        offset = base + last_delta + 1
        p += 12 + length
    return offset


def parse_fetch(r):
    thr = r.i32()
    r.i16()
    r.i32()
    parts = r.carr(lambda r: (r.uuid(), r.carr(lambda r: (
        r.i32(), r.i16(), r.i64(), r.i64(), r.i64(),
        r.carr(lambda r: (r.i64(), r.i64(), r.tags())), r.i32(), r.cbytes(), r.tags()))))
    recs = b""
    for _, ps in parts:
        for p in ps:
            recs += p[7] or b""
    return thr, recs


def run_fill(boot, topic, mb):
    c = kwire.Conn(boot, client_id="quota-fill")
    body = produce_body(topic, kwire.batch([b"y" * 8000] * 2))
    for _ in range(int(mb * (1 << 20) / 16000) + 1):
        c.send(0, 9, body, True)
        err, _ = produce_throttle(c.recv(True))
        if err:
            raise SystemExit("fill: produce error %d" % err)


def run_fetch(boot, topic, client, quota, seconds, window_ms):
    c = kwire.Conn(boot, client_id=client)
    tid = topic_id(c, topic)
    offset, empty = 0, 0
    m = Meter(seconds, window_ms)
    deadline = time.time() + seconds + 20
    while time.time() < deadline:
        c.send(1, 13, fetch_body(tid, offset, 16384), True)  # small answers: the rate, not one burst, is measured
        frame = c.recv_frame()
        r = kwire.Reader(frame)
        r.i32()
        r.tags()
        thr, recs = parse_fetch(r)
        empty += not recs
        offset = next_offset(recs, offset)
        # The broker counts the response it sends: a throttled Fetch is answered empty and
        # its bytes are taken back, so the bytes that count are the records that arrive.
        if m.answer(len(frame) if recs else 0, thr):
            break
    print("# fetch: %d empty (throttled) answers, read up to offset %d" % (empty, offset))
    m.report("fetch", "consumer_byte_rate", quota)


# ------------------------------------------------------------------ the two APIs (v1, flexible; v0 classic)
def cs(s, flexible):
    return kwire.cstr(s) if flexible else kwire.s16(s)


def arr(items, flexible):
    return carr(items, lambda x: x) if flexible else kwire.arr(items, lambda x: x)


def f64(v):
    return struct.pack(">d", v)


def alter_body(entries, validate_only=False, ver=1):
    """entries: [([(type, name|None)], [(key, value, remove)])]"""
    fl = ver >= 1
    t = TAGS if fl else b""
    enc = [arr([cs(ty, fl) + cs(nm, fl) + t for ty, nm in ent], fl) +
           arr([cs(k, fl) + f64(v) + (b"\x01" if rm else b"\x00") + t for k, v, rm in ops], fl) + t
           for ent, ops in entries]
    return arr(enc, fl) + (b"\x01" if validate_only else b"\x00") + t


def read_str(r, fl):
    return r.cstr() if fl else r.string()


def read_arr(r, fl, dec):
    return r.carr(dec) if fl else r.arr(dec)


def alter(c, entries, validate_only=False, ver=1):
    """[(error, message, [(type, name)])] of an AlterClientQuotas answer, and its throttle time."""
    fl = ver >= 1
    r = c.call(49, ver, alter_body(entries, validate_only, ver), fl)
    thr = r.i32()
    ent = lambda r: (read_str(r, fl), read_str(r, fl), r.tags() if fl else None)[:2]
    out = read_arr(r, fl, lambda r: (r.i16(), read_str(r, fl), read_arr(r, fl, ent), r.tags() if fl else None)[:3])
    return out, thr


def describe_body(components, strict=False, ver=1):
    fl = ver >= 1
    t = TAGS if fl else b""
    return arr([cs(ty, fl) + i8(mt) + cs(m, fl) + t for ty, mt, m in components], fl) + \
        (b"\x01" if strict else b"\x00") + t


def describe(c, components, strict=False, ver=1):
    """(error, message, entries|None, throttle): entries [([(type, name)], {key: value})]."""
    fl = ver >= 1
    r = c.call(48, ver, describe_body(components, strict, ver), fl)
    thr = r.i32()
    err = r.i16()
    msg = read_str(r, fl)
    ent = lambda r: (read_str(r, fl), read_str(r, fl), r.tags() if fl else None)[:2]
    val = lambda r: (read_str(r, fl), struct.unpack(">d", r.b[r.p:r.p + 8])[0], r.take("8x"),
                     r.tags() if fl else None)[:2]
    entries = read_arr(r, fl, lambda r: (read_arr(r, fl, ent), dict(read_arr(r, fl, val)), r.tags() if fl else None)[:2])
    return err, msg, entries, thr


def run_conn_rate(boot, rate, n):
    """n connections one after the other from 127.0.0.1 with connection_creation_rate=rate
    on its ip entity: the first ones are served, then connections past the rate get no answer
    and are closed by the broker after their throttle time (at most one window)."""
    served, held, held_s = 0, 0, []
    for _ in range(n):
        t0 = time.time()
        c = kwire.Conn(boot, client_id="conn-rate", timeout=5)
        try:
            kwire.api_versions(c)
            served += 1
        except (ConnectionError, OSError):
            held += 1
            held_s.append(time.time() - t0)
        c.close()
    print("# %d connections at connection_creation_rate=%d: %d served, %d throttled (closed after %.2f-%.2f s)"
          % (n, rate, served, held, min(held_s or [0]), max(held_s or [0])))
    check("connections within the rate are served", served >= rate)
    check("connections past the rate are throttled and closed", held > 0)
    check("a throttled connection is closed within one window (+0.5 s)", max(held_s or [0]) < 1.5)


def run_conn_burst(boot, rate, n):
    """n connections in a row under max.connection.creation.rate=rate: every one is served
    (Kafka's acceptor waits instead of refusing), at no more than the rate after the window's
    allowance."""
    t0 = time.time()
    served = 0
    for _ in range(n):
        c = kwire.Conn(boot, client_id="conn-burst", timeout=10)
        kwire.api_versions(c)
        served += 1
        c.close()
    secs = time.time() - t0
    print("# %d connections under max.connection.creation.rate=%d took %.2f s (%.1f/s)" % (n, rate, secs, n / secs))
    check("every connection is served (accepts wait, none refused)", served == n)
    check("connections are accepted at about the rate (%.1f/s)" % (n / secs), n / secs <= rate * 1.6)


def run_request(boot, client, pct, window_ms):
    """Metadata requests as fast as possible from a client-id with request_percentage=pct:
    an answer carries ThrottleTimeMs > 0 (at most one window, Kafka's bound for request
    quotas), and the next request is not read before the throttle time has passed."""
    c = kwire.Conn(boot, client_id=client)
    body = carr([]) + b"\x00" + b"\x00" + TAGS  # Metadata v12, no topics
    thr, n = 0, 0
    while n < 20000 and thr < 50:  # no waiting on our side: the broker mutes us
        thr = c.call(3, 12, body, True).i32()
        n += 1
    t0 = time.time()
    c.call(3, 12, body, True)
    waited = (time.time() - t0) * 1000
    print("# request_percentage=%g: throttled after %d requests for %d ms; the next answer took %.0f ms"
          % (pct, n, thr, waited))
    check("a request-quota'd client gets ThrottleTimeMs > 0", thr > 0)
    check("bounded by one window", 0 < thr <= window_ms)
    check("the connection is muted for the throttle time", waited >= thr * 0.8)


def run_share(boot, quota):
    """ShareFetch under consumer_byte_rate (set for client-id "kwire-test", the share
    connections' id): throttled answers carry ThrottleTimeMs and still their acquired records
    (gregord's divergence, docs/compatibility.md), and every answer parses."""
    import share_fetch_wire as sfw
    import produce_fetch_wire as pfw
    env = sfw.Env(boot, "quota")
    for _ in range(40):
        r = pfw.produce(env.pc, env.topic, pfw.batch([b"z" * 4000] * 4), acks=1)
        if r["err"]:
            raise SystemExit("produce error %d" % r["err"])
    c, m = env.conn(), sfw.member()
    epoch, acks, got, thr_with_records, throttles = 0, [], 0, 0, []
    t0 = time.time()
    while got < 160 and time.time() - t0 < 20:
        r = sfw.fetch1(env, c, m, epoch, acks=acks, max_bytes=16384)
        epoch += 1
        ranges = sfw.acquired(r, env)
        n = sum(last - first + 1 for first, last, _ in ranges)
        got += n
        acks = [(first, last, [sfw.ACCEPT]) for first, last, _ in ranges]
        if r["throttle"] > 0:
            throttles.append(r["throttle"])
            thr_with_records += n > 0
            time.sleep(r["throttle"] / 1000.0)
    secs = time.time() - t0
    print("# share fetch: %d records (~%d B) in %.2f s = %.0f B/s against consumer_byte_rate=%d, %d throttled "
          "answers (%d with records)" % (got, got * 4000, secs, got * 4000 / secs, quota, len(throttles),
                                        thr_with_records))
    check("ShareFetch answers carry ThrottleTimeMs under consumer_byte_rate", len(throttles) > 0)
    check("a throttled ShareFetch still carries its acquired records", thr_with_records > 0)
    check("every record was delivered once and parsed", got == 160)


def main():
    mode, boot = sys.argv[1], sys.argv[2]
    if mode == "produce":
        run_produce(boot, sys.argv[3], sys.argv[4], int(sys.argv[5]), float(sys.argv[6]), int(sys.argv[7]))
    elif mode == "fill":
        run_fill(boot, sys.argv[3], float(sys.argv[4]))
    elif mode == "set":  # set BOOT TYPE NAME KEY VALUE (NAME "<default>" for the default entity)
        c = kwire.Conn(boot)
        nm = None if sys.argv[4] == "<default>" else sys.argv[4]
        res, _ = alter(c, [([(sys.argv[3], nm)], [(sys.argv[5], float(sys.argv[6]), False)])])
        if res[0][0]:
            raise SystemExit("AlterClientQuotas: %s" % (res,))
    elif mode == "request":
        run_request(boot, sys.argv[3], float(sys.argv[4]), int(sys.argv[5]))
    elif mode == "share":
        run_share(boot, int(sys.argv[3]))
    elif mode == "conn-rate":
        run_conn_rate(boot, int(sys.argv[3]), int(sys.argv[4]))
    elif mode == "conn-burst":
        run_conn_burst(boot, int(sys.argv[3]), int(sys.argv[4]))
    elif mode == "fetch":
        run_fetch(boot, sys.argv[3], sys.argv[4], int(sys.argv[5]), float(sys.argv[6]), int(sys.argv[7]))
    else:
        raise SystemExit(__doc__)
    sys.exit(1 if kwire.FAILED else 0)


if __name__ == "__main__":
    main()
