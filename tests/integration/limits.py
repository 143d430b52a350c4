"""Resource-limit checks against a running gregord (tests/integration/test_limits.sh).

  limits.py BOOT PID memory      10 clients claim 100 MB frames, push 20 MB each, then trickle
  limits.py BOOT PID trickle     one client trickles a frame byte by byte: closed by the timeout
  limits.py BOOT PID conns N P   max.connections=N, max.connections.per.ip=P
  limits.py BOOT PID create N    CreateTopics with N partitions while a probe loop measures latency
  limits.py BOOT PID groups N    share-group cap N: heartbeat N+1 groups, the last gets error 81
  limits.py BOOT PID delete       DeleteTopics limits-big while a probe measures latency, then re-create it
  limits.py BOOT PID doomed N     create limits-doomed with N partitions and delete it (a restart follows)
  limits.py BOOT PID gone         limits-doomed is not listed (after the restart)
  limits.py BOOT PID produce N    one record to each of partitions 0..N-1 of limits-big
  limits.py BOOT PID offsets N    partitions 0..N-1 of limits-big end at offset 1 (after a restart)

Prints "ok - ..." / "FAIL - ..." lines (kwire.check); "# ..." lines are notes.
"""
import os
import socket
import struct
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kwire import (Conn, api_versions, carr, check, cstr, i32, TAGS)  # noqa: E402
import kwire  # noqa: E402

BOOT, PID = sys.argv[1], sys.argv[2]
HOST, PORT = BOOT.rsplit(":", 1)
PORT = int(PORT)


def note(msg):
    print("# " + msg, flush=True)


def rss_kb():
    with open("/proc/%s/status" % PID) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


def is_closed(s, wait=0.0):
    """True if the peer closed s (EOF or reset) within wait seconds."""
    s.settimeout(wait if wait > 0 else 0.001)
    try:
        return s.recv(1) == b""
    except socket.timeout:
        return False
    except OSError:
        return True


def raw(timeout=10):
    return socket.create_connection((HOST, PORT), timeout=timeout)


def push(s, n, secs):
    """Send up to n zero bytes within secs without blocking longer; returns bytes sent."""
    s.setblocking(False)
    chunk = b"\0" * (256 << 10)
    sent, end = 0, time.monotonic() + secs
    while sent < n and time.monotonic() < end:
        try:
            sent += s.send(chunk[:min(len(chunk), n - sent)])
        except BlockingIOError:
            time.sleep(0.01)
    s.setblocking(True)
    return sent


def memory():
    """10 x (header claiming 100 MB + 20 MB burst + trickle): the pool (16 MiB here) bounds RSS.
    The request timeout (8 s here) is longer than the burst (3 s) and the trickle (1 s)."""
    base = rss_kb()
    peak, stop = [base], [False]

    def sample():
        while not stop[0]:
            peak[0] = max(peak[0], rss_kb())
            time.sleep(0.05)
    sampler = threading.Thread(target=sample)
    sampler.start()
    socks = [raw() for _ in range(10)]
    for s in socks:
        s.sendall(struct.pack(">i", 100 << 20))
    sent = [0] * 10

    def burst(i):
        try:
            sent[i] = push(socks[i], 20 << 20, 3.0)
        except OSError:
            pass
    ths = [threading.Thread(target=burst, args=(i,)) for i in range(10)]
    for t in ths:
        t.start()
    for t in ths:
        t.join()
    for _ in range(5):  # trickle
        for s in socks:
            try:
                s.send(b"\0")
            except OSError:
                pass
        time.sleep(0.2)
    stop[0] = True
    sampler.join()
    note("VmRSS before %d kB, peak under 10 slow 100 MB frames %d kB; clients got %d MB in"
         % (base, peak[0], sum(sent) >> 20))
    check("VmRSS grows by less than 64 MB while 10 clients push 100 MB frames (%d -> %d kB)" % (base, peak[0]),
          peak[0] - base < 64 * 1024)
    # A well-behaved client is answered once the stuck frames time out and give their memory back.
    t0 = time.monotonic()
    c = Conn(BOOT, timeout=30)
    try:
        err, _ = api_versions(c)
        ok = err == 0
    except (OSError, ConnectionError):
        ok = False
    check("a new client is served after the stuck frames time out (%.1f s)" % (time.monotonic() - t0), ok)
    closed = sum(1 for s in socks if is_closed(s, 1.0))
    check("the 10 stuck connections were closed by socket.request.read.timeout.ms (%d closed)" % closed,
          closed == 10)
    c.close()
    for s in socks:
        s.close()


def trickle():
    """A 1000-byte frame trickled one byte per 100 ms is closed by the timeout (1500 ms in the test)."""
    s = raw()
    body = kwire.header(18, 3, 1, True) + cstr("x") + cstr("1") + TAGS
    data = struct.pack(">i", 1000) + b"\0" * 60  # 6 s of trickling, far from the 1000 bytes claimed
    t0 = time.monotonic()
    closed_after = None
    for b in data:
        try:
            s.send(bytes([b]))
        except OSError:
            closed_after = time.monotonic() - t0
            break
        if is_closed(s, 0.1):
            closed_after = time.monotonic() - t0
            break
    check("a client trickling one byte per 100 ms is closed by the request timeout (after %s s)"
          % ("%.1f" % closed_after if closed_after else "never"), closed_after is not None and closed_after < 5)
    s.close()
    # A frame sent in two halves 500 ms apart is answered (well inside the timeout).
    c = Conn(BOOT)
    f = kwire.frame(body)
    c.send_raw(f[:7])
    time.sleep(0.5)
    c.send_raw(f[7:])
    try:
        r = c.recv(False)
        ok = r.i16() == 0
    except (OSError, ConnectionError):
        ok = False
    check("a frame completed within the timeout is answered", ok)
    c.close()


def conns(n_max, per_ip):
    """max.connections.per.ip=per_ip for 127.0.0.1, max.connections=n_max (via 127.0.0.2)."""
    held = [raw() for _ in range(per_ip)]
    for s in held:
        s.sendall(b"")
    time.sleep(0.2)
    extra = raw()
    check("connection %d from 127.0.0.1 is closed at once (max.connections.per.ip=%d)" % (per_ip + 1, per_ip),
          is_closed(extra, 2.0))
    check("the first %d connections are still served" % per_ip, serve(held[0]))
    # Another address is not affected by 127.0.0.1's limit, up to max.connections.
    others = []
    for _ in range(n_max - per_ip):
        s = socket.socket()
        s.bind(("127.0.0.2", 0))
        s.connect((HOST, PORT))
        others.append(s)
    time.sleep(0.2)
    check("127.0.0.2 may still connect (per-IP limits are per address)", serve(others[0]))
    s = socket.socket()
    s.bind(("127.0.0.2", 0))
    s.connect((HOST, PORT))
    check("connection %d in all is closed at once (max.connections=%d)" % (n_max + 1, n_max), is_closed(s, 2.0))
    s.close()
    extra.close()
    for s in held + others:
        s.close()
    time.sleep(0.3)
    check("after they close, new connections are accepted again", serve(raw()))


def serve(s):
    """ApiVersions v0 over an already open socket s; True if answered with error 0."""
    try:
        s.settimeout(5)
        s.sendall(kwire.frame(kwire.header(18, 0, 7, False)))
        n = struct.unpack(">i", s.recv(4, socket.MSG_WAITALL))[0]
        b = s.recv(n, socket.MSG_WAITALL)
        return struct.unpack(">ih", b[:6]) == (7, 0)
    except (OSError, struct.error):
        return False


class Probe:
    """A second client sending ApiVersions + Metadata in a loop; records the slowest answer."""

    def __init__(self):
        self.c = Conn(BOOT)
        self.worst, self.count, self.stop = 0.0, 0, False
        self.th = threading.Thread(target=self.loop)
        self.th.start()
        time.sleep(0.2)

    def loop(self):
        while not self.stop:
            t = time.monotonic()
            api_versions(self.c)
            self.c.call(3, 12, carr([], None) + kwire.boolean(False) + kwire.boolean(False) + TAGS)
            self.worst = max(self.worst, time.monotonic() - t)
            self.count += 1
            time.sleep(0.005)

    def finish(self):
        time.sleep(0.1)
        self.stop = True
        self.th.join()
        return self.worst


def topic_metadata(c, name):
    """Metadata v12 for one topic: (topic error code, [error code of each partition])."""
    r = c.call(3, 12, carr([kwire.ZERO_UUID + cstr(name) + TAGS], None) + kwire.boolean(False) +
               kwire.boolean(False) + TAGS)
    r.i32()
    r.carr(lambda r: (r.i32(), r.cstr(), r.i32(), r.cstr(), r.tags()))
    r.cstr()
    r.i32()
    topics = r.carr(lambda r: (r.i16(), r.cstr(), r.uuid(), r.boolean(),
                               r.carr(lambda r: (r.i16(), r.i32(), r.i32(), r.i32(),
                                                 r.carr(lambda r: r.i32()), r.carr(lambda r: r.i32()),
                                                 r.carr(lambda r: r.i32()), r.tags())[0]),
                               r.i32(), r.tags()))
    return topics[0][0], topics[0][4]


def partition_errors(c, name):
    """The error code of each partition of one topic."""
    return topic_metadata(c, name)[1]


def create_partitions(c, name, count):
    """CreatePartitions v3; returns the error code."""
    topic = cstr(name) + i32(count) + carr(None) + TAGS
    r = c.call(37, 3, carr([topic], None) + i32(60000) + kwire.boolean(False) + TAGS)
    r.i32()
    return r.carr(lambda r: (r.cstr(), r.i16(), r.cstr(), r.tags()))[0][1]


def create(n):
    """CreateTopics with n partitions, then CreatePartitions adding up to 500; meanwhile a probe's
    ApiVersions + Metadata are answered within 100 ms."""
    c = Conn(BOOT, timeout=300)
    probe = Probe()
    t0 = time.monotonic()
    err, _ = kwire.create_topic(c, "limits-big", n)
    took = time.monotonic() - t0
    worst = probe.finish()
    note("CreateTopics of %d partitions took %.1f s; %d probes, the slowest %.1f ms"
         % (n, took, probe.count, worst * 1000))
    check("CreateTopics with %d partitions succeeds" % n, err == 0, "error %d" % err)
    check("ApiVersions+Metadata answered within 100 ms during the create (worst %.1f ms)" % (worst * 1000),
          worst < 0.100)
    parts = partition_errors(c, "limits-big")
    check("Metadata lists %d partitions, all without error" % n, len(parts) == n and not any(parts))
    grown = n + min(n // 4, 500)  # each partition holds a file descriptor: stay well under the fd limit
    probe = Probe()
    t0 = time.monotonic()
    err = create_partitions(c, "limits-big", grown)
    took = time.monotonic() - t0
    worst = probe.finish()
    note("CreatePartitions to %d took %.1f s; the slowest probe %.1f ms" % (grown, took, worst * 1000))
    check("CreatePartitions to %d succeeds" % grown, err == 0, "error %d" % err)
    check("ApiVersions+Metadata answered within 100 ms during CreatePartitions (worst %.1f ms)" % (worst * 1000),
          worst < 0.100)
    parts = partition_errors(c, "limits-big")
    check("Metadata lists %d partitions, all without error" % grown, len(parts) == grown and not any(parts))


def groups(cap):
    """group.share.max.groups=cap: heartbeats of cap new groups succeed, the next gets 81."""
    c = Conn(BOOT)

    def hb(gid):
        body = cstr(gid) + cstr("m-" + gid) + i32(0) + cstr(None) + carr(["limits-t"], cstr) + TAGS
        r = c.call(76, 1, body)
        r.i32()
        err = r.i16()
        msg = r.cstr()
        return err, msg
    errs = [hb("limits-g%d" % i)[0] for i in range(cap)]
    check("%d share groups are created" % cap, errs == [0] * cap, str(errs))
    err, msg = hb("limits-g-over")
    check("group %d is refused with GROUP_MAX_SIZE_REACHED (81): %s" % (cap + 1, msg), err == 81, "error %d" % err)
    err, _ = hb("limits-g0")
    check("an existing group still accepts heartbeats at the cap", err == 0, "error %d" % err)
    # AlterShareGroupOffsets would create the group too: the same cap and error.
    part = i32(0) + kwire.i64(0) + TAGS
    body = cstr("limits-g-alter") + carr([cstr("limits-t") + carr([part], None) + TAGS], None) + TAGS
    r = c.call(91, 0, body)
    r.i32()
    err = r.i16()
    check("AlterShareGroupOffsets creating group %d is refused with 81" % (cap + 1), err == 81, "error %d" % err)
    # Their members stop heartbeating: after the session timeout (2 s here) the groups, which
    # never held share state, are forgotten and make room for new ones.
    deadline, err = time.monotonic() + 15, -1
    while time.monotonic() < deadline and err != 0:
        time.sleep(0.5)
        err, _ = hb("limits-g-over")
    check("once the idle groups expired, a new group is accepted", err == 0, "error %d" % err)
    group_configs(c, cap, hb)


def incr_alter_group(c, group, op, value="earliest"):
    """IncrementalAlterConfigs v1 of share.auto.offset.reset on GROUP group (op 0 SET, 1 DELETE)."""
    cfg = carr([cstr("share.auto.offset.reset") + kwire.i8(op) + cstr(value) + TAGS], None)
    r = c.call(44, 1, carr([kwire.i8(32) + cstr(group) + cfg + TAGS], None) + kwire.boolean(False) + TAGS)
    r.i32()
    return r.carr(lambda r: (r.i16(), r.cstr(), r.i8(), r.cstr(), r.tags()))[0][:2]


def group_configs(c, cap, hb):
    """Configs of groups that do not exist are stored (as in Kafka) and count toward the cap:
    the alter that would store one group too many gets POLICY_VIOLATION (44)."""
    err, _ = hb("limits-g-over")  # its member stays for the session timeout (2 s): one group held
    check("limits-g-over is alive", err == 0, "error %d" % err)
    errs, msg = [], ""
    for i in range(cap + 1):
        err, m = incr_alter_group(c, "limits-cfg%d" % i, 0)
        errs.append(err)
        if err:
            msg = m
            break
    stored = errs.count(0)
    check("config-only groups are stored up to the cap, the next alter gets POLICY_VIOLATION (44): %s" % msg,
          stored == cap - 1 and errs[-1] == 44, str(errs))
    err, _ = incr_alter_group(c, "limits-cfg0", 0, "latest")
    check("a group that already has configs may still change them at the cap", err == 0, "error %d" % err)
    err, _ = hb("limits-g-new")
    check("a heartbeat creating a group is refused at the cap counting config-only groups (81)", err == 81,
          "error %d" % err)
    err, _ = incr_alter_group(c, "limits-cfg0", 1)
    check("deleting a config-only group's configs is allowed", err == 0, "error %d" % err)
    err, _ = incr_alter_group(c, "limits-cfg%d" % stored, 0)
    check("after that, configs for one more group are stored", err == 0, "error %d" % err)


def topic_error(c, name):
    """The error code of one topic in Metadata."""
    return topic_metadata(c, name)[0]


def delete():
    """DeleteTopics of the big topic while a probe's ApiVersions + Metadata are answered within
    100 ms; a topic re-created with the same name at once starts empty (no old file reused)."""
    from produce_fetch_wire import list_offsets, produce
    c = Conn(BOOT, timeout=300)
    res = produce(c, "limits-big", kwire.batch([b"old"]), part=0)
    check("a record is produced to limits-big partition 0 before the delete", res["err"] == 0, str(res))
    n = len(partition_errors(c, "limits-big"))
    probe = Probe()
    t0 = time.monotonic()
    err = kwire.delete_topic(c, "limits-big")
    took = time.monotonic() - t0
    worst_delete = probe.worst
    t1 = time.monotonic()
    err2, _ = kwire.create_topic(c, "limits-big", 3)
    took2 = time.monotonic() - t1
    worst = probe.finish()
    note("DeleteTopics of %d partitions answered in %.3f s; the re-create waited %.1f s for the old directories; "
         "%d probes, the slowest %.1f ms (%.1f ms until the delete was answered)"
         % (n, took, took2, probe.count, worst * 1000, worst_delete * 1000))
    check("DeleteTopics of %d partitions succeeds" % n, err == 0, "error %d" % err)
    check("ApiVersions+Metadata answered within 100 ms while the deleted partitions are removed (worst %.1f ms)"
          % (worst * 1000), worst < 0.100)
    check("limits-big re-created right after the delete (3 partitions)", err2 == 0, "error %d" % err2)
    parts = partition_errors(c, "limits-big")
    check("Metadata lists the 3 new partitions without error", len(parts) == 3 and not any(parts), str(parts))
    offs = list_offsets(c, "limits-big", -1, parts=(0, 1, 2))
    check("the re-created topic is empty (end offsets %s): no file of the old topic reused"
          % [o["offset"] for o in offs], [o["offset"] for o in offs] == [0, 0, 0] and not any(o["err"] for o in offs))


def doomed(n):
    """Create limits-doomed (n partitions) and delete it: the shell stops gregord at once."""
    c = Conn(BOOT, timeout=300)
    err, _ = kwire.create_topic(c, "limits-doomed", n)
    check("limits-doomed with %d partitions created" % n, err == 0, "error %d" % err)
    err = kwire.delete_topic(c, "limits-doomed")
    check("limits-doomed deleted", err == 0, "error %d" % err)


def gone():
    c = Conn(BOOT)
    err = topic_error(c, "limits-doomed")
    check("after the restart limits-doomed is not listed (error %d, UNKNOWN_TOPIC_OR_PARTITION)" % err, err == 3)


def produce_some(n):
    from produce_fetch_wire import produce
    c = Conn(BOOT, timeout=60)
    errs = [produce(c, "limits-big", kwire.batch([b"p%d" % p]), part=p)["err"] for p in range(n)]
    check("a record produced to each of %d partitions of limits-big" % n, not any(errs), str(set(errs)))


def offsets(n):
    from produce_fetch_wire import list_offsets
    c = Conn(BOOT, timeout=60)
    offs = list_offsets(c, "limits-big", -1, parts=tuple(range(n)))
    bad = [(o["index"], o["err"], o["offset"]) for o in offs if o["err"] or o["offset"] != 1]
    check("after the restart the %d written partitions end at offset 1" % n, len(offs) == n and not bad, str(bad[:5]))


cmd = sys.argv[3]
if cmd == "memory":
    memory()
elif cmd == "trickle":
    trickle()
elif cmd == "conns":
    conns(int(sys.argv[4]), int(sys.argv[5]))
elif cmd == "create":
    create(int(sys.argv[4]))
elif cmd == "groups":
    groups(int(sys.argv[4]))
elif cmd == "delete":
    delete()
elif cmd == "doomed":
    doomed(int(sys.argv[4]))
elif cmd == "gone":
    gone()
elif cmd == "produce":
    produce_some(int(sys.argv[4]))
elif cmd == "offsets":
    offsets(int(sys.argv[4]))
sys.exit(1 if kwire.FAILED else 0)
