#!/usr/bin/env python3
"""Driver of bench/share_memory.sh: gregord's memory per in-flight share record, against
backlog, and per share member / session, on the raw wire (standard library only; the wire
helpers of tests/integration: kwire.py, share_fetch_wire.py, share_coord_wire.py).

  share_memory.py produce  BOOT TOPIC PARTITIONS PER_PARTITION BATCH
  share_memory.py inflight BOOT PID TOPIC SHAPE [--members M] [--locks L] [--admin HOST:PORT]
                           [--heap-log GREGORD_LOG]
  share_memory.py members  BOOT PID COUNTS [--partitions P] [--admin HOST:PORT] [--heap-log LOG]

produce   creates TOPIC (PARTITIONS partitions) and appends PER_PARTITION records of 16 bytes to
          each partition, in log batches of BATCH records (pipelined Produce v8, acks=1).
inflight  TOPIC exists and holds its records: a warm-up group acquires and accepts a few records
          of a side topic (the code paths and buffers of a share fetch exist before the baseline),
          then RSS is sampled, a new group (share.auto.offset.reset=earliest,
          share.partition.max.record.locks=L (default 10000), share.record.lock.duration.ms=3600000)
          has M members (one connection each, the partitions dealt round-robin) acquire every
          record of TOPIC without acknowledging (up to L per partition), and RSS is sampled again.
          SHAPE:
            batch     as acquired (the share-partition keeps one range per acquisition);
            single    the same, for a topic produced one record per log batch (the shell's
                      BATCH 1): whether log batches of one record cost a range each;
            ack_half  then ACCEPT every other record (odd offsets), so no two neighbours share a
                      state: one range per record, half of them ACQUIRED;
            reacquire then RELEASE every other record and acquire them again (delivery count 2,
                      another deadline): one range per record, every record ACQUIRED.
          Prints the ACQUIRED count (ours, and gregord's gregor_share_in_flight_records with
          --admin), the window and the RSS figures. With --heap-log (gregord's stderr file) and gdb,
          also glibc's malloc totals before and after (malloc_stats() called through gdb): the
          bytes the structures hold, apart from what the allocator keeps resident.
members   COUNTS (ascending, e.g. 1,100,1000): for each count, the members missing are added in
          three steps, RSS sampled after each: a connection each (ApiVersions), a
          ShareGroupHeartbeat join (one group subscribed to a topic of P partitions), a share
          session each (ShareFetch epoch 0 with one partition of an empty topic). With --admin,
          gregord's gregor_share_group_members and _sessions of the group confirm the counts;
          with --heap-log, the heap bytes in use per connection, join and session (cumulative
          over the members, since the baseline's heap; RSS hides allocations that reuse freed memory).
Output: "key value" lines (RSS in bytes), "# " lines are progress.
"""
import os
import shutil
import struct
import subprocess
import sys
import time
import urllib.request
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "integration"))
import kwire as kw  # noqa: E402
from kwire import s16  # noqa: E402
import share_coord_wire as scw  # noqa: E402
import share_fetch_wire as sfw  # noqa: E402

ACCEPT, RELEASE = 1, 2
LOCKS = 10000           # share.partition.max.record.locks (--locks); the broker's highest bound
LOCK_MS = 3600000       # group.share.max.record.lock.duration.ms at its highest bound
VALUE = b"0123456789abcdef"


def say(msg):
    print("# " + msg, flush=True)


def put(k, v):
    print("%s %s" % (k, v), flush=True)


# ------------------------------------------------------------------ memory
def mem(pid):
    """VmRSS, RssAnon, RssFile (status) and Private_Dirty (smaps_rollup), in bytes."""
    out = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            k, _, v = line.partition(":")
            if k in ("VmRSS", "RssAnon", "RssFile"):
                out[k] = int(v.split()[0]) * 1024
    try:
        with open("/proc/%d/smaps_rollup" % pid) as f:
            for line in f:
                if line.startswith("Private_Dirty:"):
                    out["Private_Dirty"] = int(line.split()[1]) * 1024
    except OSError:
        out["Private_Dirty"] = 0
    return out


SETTLE = float(os.environ.get("BENCH_SM_SETTLE", "0.3"))


def sample(pid, settle=None):
    time.sleep(SETTLE if settle is None else min(settle, SETTLE))  # the answer of the last request is out; let the loop finish its turn
    return mem(pid)


def heap(pid, log):
    """gregord's malloc totals (in use, system) through gdb and glibc's malloc_stats(), which
    prints them to gregord's stderr (its log file); None without --heap-log or gdb."""
    if not log or not shutil.which("gdb"):
        return None
    size = os.path.getsize(log)
    subprocess.run(["gdb", "-p", str(pid), "-batch", "-ex", "call (void)malloc_stats()"], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, timeout=60, check=False)
    with open(log, "rb") as f:
        f.seek(size)
        tail = f.read().decode(errors="replace")
    total = tail.rsplit("Total (incl. mmap):", 1)
    if len(total) < 2:
        return None
    vals = dict((k.strip(), int(v)) for k, v in (l.split("=") for l in total[1].splitlines()[:3] if "=" in l))
    return vals.get("in use bytes"), vals.get("system bytes")


def put_heap(prefix, h):
    if h:
        put(prefix + ".heap_in_use", h[0])
        put(prefix + ".heap_system", h[1])


def put_mem(prefix, m):
    put(prefix + ".rss", m["VmRSS"])
    put(prefix + ".rss_anon", m["RssAnon"])
    put(prefix + ".rss_file", m["RssFile"])
    put(prefix + ".private_dirty", m["Private_Dirty"])


# ------------------------------------------------------------------ produce
def produce_req(topic, parts, blob, acks=1):
    """Produce v8 body: the same records blob for every partition in parts."""
    body = s16(None) + struct.pack(">hi", acks, 30000) + struct.pack(">i", 1) + s16(topic)
    body += struct.pack(">i", len(parts))
    for p in parts:
        body += struct.pack(">ii", p, len(blob)) + blob
    return body


def check_produce(r):
    for _ in range(r.take("i")):
        r.string()
        for _ in range(r.take("i")):
            idx, err, _base, _lat, _lso = r.take("ihqqq")
            for _ in range(r.take("i")):
                r.take("i"), r.string()
            r.string()
            if err:
                raise RuntimeError("produce partition %d: error %d" % (idx, err))


def produce(boot, topic, partitions, per_part, batch_n):
    c = kw.Conn(boot, timeout=120)
    err, _tid = kw.create_topic(c, topic, partitions)
    if err not in (0, 36):
        raise RuntimeError("create topic %s: error %d" % (topic, err))
    # Produce v3+ takes exactly one batch per partition; the broker assigns the offsets, so the
    # same batch bytes serve every request.
    one = kw.batch([VALUE] * batch_n)
    body = produce_req(topic, list(range(partitions)), one)
    n_req, inflight, t0 = per_part // batch_n, 0, time.time()
    for _ in range(n_req):
        c.send(0, 8, body, False)
        inflight += 1
        if inflight >= 16:
            check_produce(c.recv())
            inflight -= 1
    for _ in range(inflight):
        check_produce(c.recv())
    rest = per_part % batch_n
    if rest:
        check_produce(c.call(0, 8, produce_req(topic, list(range(partitions)), kw.batch([VALUE] * rest)), False))
    c.close()
    n = partitions * per_part
    say("produced %d records into %s (%d partitions, batches of %d) in %.1f s" % (n, topic, partitions, batch_n,
                                                                                  time.time() - t0))


# ------------------------------------------------------------------ share fetch members
class Member:
    def __init__(self, boot, group, tid, parts):
        self.c = kw.Conn(boot, timeout=120)
        self.group, self.tid, self.parts = group, tid, parts
        self.id = uuid.uuid4().hex[:22]
        self.epoch = 0
        self.acquired = {p: [] for p in parts}  # partition -> [(first, last, count)]

    def fetch(self, max_wait=0, acks=None):
        acks = acks or {}
        topics = [(self.tid, [(p, acks.get(p, [])) for p in self.parts])] if self.epoch == 0 or acks else []
        r = sfw.share_fetch(self.c, self.group, self.id, self.epoch, topics, max_wait=max_wait,
                            max_bytes=64 << 20, max_records=LOCKS, batch_size=LOCKS)
        if r["err"]:
            raise RuntimeError("ShareFetch: error %d %s" % (r["err"], r["msg"]))
        self.epoch += 1
        n = 0
        for (tid, p), pd in r["parts"].items():
            if pd["err"]:
                raise RuntimeError("ShareFetch partition %d: error %d %s" % (p, pd["err"], pd["msg"]))
            self.acquired[p].extend(pd["acquired"])
            n += sum(last - first + 1 for first, last, _ in pd["acquired"])
        return n

    def ack(self, per_part):
        """per_part: partition -> [(first, last, [type])]."""
        topics = [(self.tid, [(p, b) for p, b in per_part.items()])]
        r = sfw.share_ack(self.c, self.group, self.id, self.epoch, topics)
        self.epoch += 1
        bad = [(k, v) for k, v in r["parts"].items() if v["err"]]
        if r["err"] or bad:
            raise RuntimeError("ShareAcknowledge: %d %s" % (r["err"], bad))


def acquire_all(members, want, secs=120):
    """Fetch until the members hold at least `want` records and a round acquires nothing more
    (or nothing comes for 5 s)."""
    got, last_progress, deadline = 0, time.time(), time.time() + secs
    while time.time() < deadline:
        n = sum(m.fetch(max_wait=50) for m in members)
        got += n
        if n:
            last_progress = time.time()
        elif got >= want or time.time() - last_progress > 5:
            break
    return got


def group_setup(c, group, extra=None):
    cfg = {"share.auto.offset.reset": "earliest", "share.partition.max.record.locks": LOCKS,
           "share.record.lock.duration.ms": LOCK_MS}
    cfg.update(extra or {})
    err, msg = sfw.set_group_configs(c, group, cfg)
    if err:
        raise RuntimeError("group configs of %s: error %d %s" % (group, err, msg))


def topic_id(c, topic):
    """(topic id, partition count) from Metadata v12."""
    r = c.call(3, 12, kw.carr([topic], lambda t: kw.ZERO_UUID + kw.cstr(t) + kw.TAGS) + kw.boolean(False) +
               kw.boolean(False) + kw.TAGS)
    r.i32()
    r.carr(lambda r: (r.i32(), r.cstr(), r.i32(), r.cstr(), r.tags()))
    r.cstr(), r.i32()
    out = []
    for _ in range(r.uvarint() - 1):
        err = r.i16()
        name, tid = r.cstr(), r.uuid()
        if err:
            raise RuntimeError("metadata of %s: error %d" % (name, err))
        r.boolean()
        n = r.carr(lambda r: (r.i16(), r.i32(), r.i32(), r.i32(), r.carr(lambda r: r.i32()),
                              r.carr(lambda r: r.i32()), r.carr(lambda r: r.i32()), r.tags())[1])
        r.i32(), r.tags()
        out.append((name, tid, len(n)))
    return out[0][1], out[0][2]


def warm_up(boot):
    """A short share-group round trip on a side topic: acquire, accept, so that the allocator
    and the share-state store have done their first allocations before the baseline."""
    topic = "smem-warm-%s" % uuid.uuid4().hex[:6]
    produce(boot, topic, 2, 200, 100)
    c = kw.Conn(boot)
    tid, nparts = topic_id(c, topic)
    group = "smem-warm-g-%s" % uuid.uuid4().hex[:6]
    group_setup(c, group)
    m = Member(boot, group, tid, list(range(nparts)))
    acquire_all([m], 400, secs=30)
    m.ack({p: [(f, l, [ACCEPT]) for f, l, _ in m.acquired[p]] for p in m.parts})
    m.c.close()
    c.close()


def every_other(members, start, types):
    """Acknowledge offsets start, start+2, ... of everything acquired, with `types`."""
    for m in members:
        per = {}
        for p, ranges in m.acquired.items():
            per[p] = [(o, o, types) for f, l, _ in ranges for o in range(f + ((start - f) % 2), l + 1, 2)]
        m.ack(per)


def metric(admin, name, group):
    """The sum of gregord's /metrics samples `name` of `group` (None without --admin)."""
    if not admin:
        return None
    txt = urllib.request.urlopen("http://%s/metrics" % admin, timeout=10).read().decode()
    tot = 0
    for line in txt.splitlines():
        if line.startswith(name + "{") and ('group="%s"' % group) in line:
            tot += int(float(line.rsplit(" ", 1)[1]))
    return tot


def inflight(boot, pid, topic, shape, n_members, admin, heap_log):
    warm_up(boot)
    c = kw.Conn(boot)
    tid, nparts = topic_id(c, topic)
    group = "smem-%s-%s" % (shape, uuid.uuid4().hex[:6])
    group_setup(c, group)
    before = sample(pid, 1.0)
    put_mem("before", before)
    h0 = heap(pid, heap_log)
    put_heap("before", h0)
    members = [Member(boot, group, tid, list(range(i, nparts, n_members))) for i in range(n_members)]
    t0 = time.time()
    got = acquire_all(members, nparts * LOCKS)
    say("%s: %d records acquired by %d members in %.1f s" % (shape, got, n_members, time.time() - t0))
    window = got
    acquired = got
    if shape == "ack_half":
        every_other(members, 1, [ACCEPT])
        acquired = got - sum((l - f + 1 + (f % 2)) // 2 for m in members for r in m.acquired.values()
                             for f, l, _ in r)
    elif shape == "reacquire":
        every_other(members, 1, [RELEASE])
        for m in members:
            m.acquired = {p: [] for p in m.parts}
        again = acquire_all(members, got // 2, secs=120)
        say("reacquire: %d released records acquired again" % again)
        put("reacquired", again)
    after = sample(pid, 1.0)
    put("shape", shape)
    put("partitions", nparts)
    put("members", n_members)
    put("window", window)
    put("acquired", acquired)
    broker = metric(admin, "gregor_share_in_flight_records", group)
    if broker is not None:
        put("broker_in_flight", broker)
    put_mem("after", after)
    h1 = heap(pid, heap_log)
    put_heap("after", h1)
    if h0 and h1:
        put("heap_bytes_per_acquired", "%.2f" % ((h1[0] - h0[0]) / max(acquired, 1)))
    put("bytes_per_acquired", "%.2f" % ((after["VmRSS"] - before["VmRSS"]) / max(acquired, 1)))
    put("bytes_per_window_record", "%.2f" % ((after["VmRSS"] - before["VmRSS"]) / max(window, 1)))
    for m in members:
        m.c.close()
    c.close()


# ------------------------------------------------------------------ members and sessions
def members(boot, pid, counts, parts, admin, heap_log):
    c = kw.Conn(boot)
    sub = "smem-sub-%s" % uuid.uuid4().hex[:6]
    err, _ = kw.create_topic(c, sub, parts)
    empty = "smem-empty-%s" % uuid.uuid4().hex[:6]
    err2, etid = kw.create_topic(c, empty, parts)
    if err or err2:
        raise RuntimeError("create topics: %d %d" % (err, err2))
    group = "smem-members-%s" % uuid.uuid4().hex[:6]
    group_setup(c, group)
    warm_up(boot)
    base = sample(pid, 1.0)
    put_mem("base", base)
    hb0 = heap(pid, heap_log)
    put_heap("base", hb0)
    prev, tot = hb0, [0, 0, 0]
    conns, mids = [], []
    for n in counts:
        new = range(len(conns), n)
        for _ in new:
            mc = kw.Conn(boot, timeout=60)
            kw.api_versions(mc)
            conns.append(mc)
        m_conn = sample(pid)
        h_conn = heap(pid, heap_log)
        for i in new:
            mid = uuid.uuid4().hex[:22]
            r = scw.hb(conns[i], group, mid, 0, [sub])
            if r["err"]:
                raise RuntimeError("heartbeat of member %d: error %d %s" % (i, r["err"], r["msg"]))
            mids.append(mid)
        m_join = sample(pid)
        h_join = heap(pid, heap_log)
        for i in new:
            r = sfw.share_fetch(conns[i], group, mids[i], 0, [(etid, [(i % parts, [])])], max_wait=0)
            if r["err"]:
                raise RuntimeError("share session of member %d: error %d %s" % (i, r["err"], r["msg"]))
        m_sess = sample(pid)
        h_sess = heap(pid, heap_log)
        if hb0 and h_conn and h_join and h_sess:  # heap bytes in use per connection, join, session
            tot[0] += h_conn[0] - prev[0]
            tot[1] += h_join[0] - h_conn[0]
            tot[2] += h_sess[0] - h_join[0]
            prev = h_sess
            for i, x in enumerate(("conn", "join", "session")):
                put("m%d.heap_%s_bytes" % (n, x), "%.0f" % (tot[i] / n))
        put("m%d.conn_rss" % n, m_conn["VmRSS"])
        put("m%d.join_rss" % n, m_join["VmRSS"])
        put("m%d.session_rss" % n, m_sess["VmRSS"])
        if admin:
            put("m%d.broker_members" % n, metric(admin, "gregor_share_group_members", group))
            put("m%d.broker_sessions" % n, metric(admin, "gregor_share_group_sessions", group))
        put("m%d.bytes_per_member" % n, "%.0f" % ((m_sess["VmRSS"] - base["VmRSS"]) / n))
        say("%d members: RSS +%.2f MB over the baseline (connections %.2f, joins %.2f, sessions %.2f)" % (
            n, (m_sess["VmRSS"] - base["VmRSS"]) / 1e6, (m_conn["VmRSS"] - base["VmRSS"]) / 1e6,
            (m_join["VmRSS"] - m_conn["VmRSS"]) / 1e6, (m_sess["VmRSS"] - m_join["VmRSS"]) / 1e6))
    for mc in conns:
        mc.close()
    c.close()


def opt(args, name, default):
    if name in args:
        i = args.index(name)
        v = args[i + 1]
        del args[i:i + 2]
        return v
    return default


def main(argv):
    args = list(argv[1:])
    if not args:
        print(__doc__)
        return 2
    cmd = args.pop(0)
    if cmd == "produce":
        boot, topic, parts, per, bn = args
        produce(boot, topic, int(parts), int(per), int(bn))
    elif cmd == "inflight":
        n_members = int(opt(args, "--members", "4"))
        admin = opt(args, "--admin", None)
        global LOCKS
        LOCKS = int(opt(args, "--locks", str(LOCKS)))
        heap_log = opt(args, "--heap-log", None)
        boot, pid, topic, shape = args
        if shape not in ("batch", "single", "ack_half", "reacquire"):
            raise SystemExit("unknown shape %s" % shape)
        inflight(boot, int(pid), topic, shape, n_members, admin, heap_log)
    elif cmd == "members":
        parts = int(opt(args, "--partitions", "8"))
        admin = opt(args, "--admin", None)
        heap_log = opt(args, "--heap-log", None)
        boot, pid, counts = args
        members(boot, int(pid), [int(x) for x in counts.split(",")], parts, admin, heap_log)
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
