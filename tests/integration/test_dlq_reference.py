#!/usr/bin/env python3
"""The share-group dead-letter queue (KIP-1191) of Apache Kafka 4.4.0, observed on the wire.

  test_dlq_reference.py observe PHASE BOOTSTRAP OUT.json
        run the scenarios of PHASE against one broker; write what a client observes (raw:
        record keys/values/headers in hex and decoded, timestamps, timings) as JSON.
  test_dlq_reference.py normalize OBS.json OUT.json
        the comparable part of an observation (timestamps and timings replaced by the facts
        they show, e.g. "DLQ timestamp is the write time, not the source record's").
  test_dlq_reference.py diff EXPECTED.json GOT.json [REPORT.txt]
        compare two normalized observations (kdiff.py); exit status 1 on any difference
        not in ALLOW.

Phases (tests/integration/test_dlq_reference.sh starts a broker for each):
  main        broker defaults for the DLQ (prefix "dlq.", auto-create off) and
              group.share.min.record.lock.duration.ms=1000: feature share.version (ApiVersions,
              UpdateFeatures; a fresh node finalizes 2 and is downgraded to 1 first),
              configs and their validation, nothing dead-lettered at share.version=1, then REJECT / delivery-count limit / lock timeout with
              copy.record off and on, the runtime refusals (no prefix, missing topic, topic
              without errors.deadletterqueue.group.enable), ordering against the share state.
  autocreate  errors.deadletterqueue.auto.create.topics.enable=true and
              errors.deadletterqueue.topic.name.prefix= (empty): the DLQ topic is created on
              the first dead-lettered record (its partitions and configs), any name accepted.
Requests are raw frames (kwire.py and friends); standard library only.
"""
import json
import os
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kdiff  # noqa: E402
import kwire as kw  # noqa: E402
from kwire import TAGS, boolean, carr, cstr, i8, i16, i32, s16  # noqa: E402
import produce_fetch_wire as pfw  # noqa: E402
import share_coord_wire as scw  # noqa: E402
import share_fetch_wire as sfw  # noqa: E402

ACCEPT, RELEASE, REJECT = 1, 2, 3
SRC = "dlqr-src"
N_PER_PART = 4
# The source records' CreateTime: one hour before the run (inside the 7-day retention, which
# would delete older records at once), set by produce_source(); a copied timestamp would show.
SRC_TS = [0]
RES_TOPIC, RES_BROKER, RES_GROUP = 2, 4, 32
# DLQ_FAST=1 (gregord): the waits for a late DLQ write shrink; gregord writes the DLQ records
# before it answers the acknowledgement (docs/dlq.md §6), so nothing can arrive late.
FAST = os.environ.get("DLQ_FAST") == "1"


def settle(secs):
    time.sleep(secs / 10 if FAST else secs)
DLQ_KEYS = ("errors.deadletterqueue.topic.name", "errors.deadletterqueue.copy.record.enable")
BROKER_KEYS = ("errors.deadletterqueue.topic.name.prefix", "errors.deadletterqueue.auto.create.topics.enable",
               "group.share.dlq.manager.class.name")
TOPIC_KEY = "errors.deadletterqueue.group.enable"


# ------------------------------------------------------------------ records
def zz(n):
    return kw.varint(n)


def vbytes(b):
    return zz(-1) if b is None else zz(len(b)) + b


def record_batch(recs, base_ts):
    """One uncompressed v2 batch; recs: [(key, value, [(hkey, hvalue)], timestamp)]."""
    body_all = b""
    for i, (k, v, hdrs, ts) in enumerate(recs):
        body = b"\x00" + zz(ts - base_ts) + zz(i) + vbytes(k) + vbytes(v) + zz(len(hdrs))
        for hk, hv in hdrs:
            body += zz(len(hk)) + hk + vbytes(hv)
        body_all += zz(len(body)) + body
    max_ts = max(r[3] for r in recs)
    after = struct.pack(">hiqqqhii", 0, len(recs) - 1, base_ts, max_ts, -1, -1, -1, len(recs)) + body_all
    body = struct.pack(">ib", -1, 2) + struct.pack(">I", kw.crc32c(after)) + after
    return struct.pack(">qi", 0, len(body)) + body


class RR(kw.Reader):
    def varint(self):
        n = self.uvarint()
        return (n >> 1) ^ -(n & 1)

    def vbytes(self):
        n = self.varint()
        if n < 0:
            return None
        b = self.b[self.p:self.p + n]
        self.p += n
        return b


def txt(b):
    if b is None:
        return None
    try:
        return b.decode()
    except UnicodeDecodeError:
        return None


def decode_batches(blob):
    """Every whole v2 batch of a Records blob, its records decoded (uncompressed batches only)."""
    out, p = [], 0
    while p + 12 <= len(blob):
        base, blen = struct.unpack_from(">qi", blob, p)
        if p + 12 + blen > len(blob):
            break
        r = RR(blob[p + 12:p + 12 + blen])
        b = dict(base_offset=base, leader_epoch=r.i32(), magic=r.i8())
        r.take("I")
        attrs = r.i16()
        b.update(attributes=attrs, compression=attrs & 7, timestamp_type="LogAppendTime" if attrs & 8 else
                 "CreateTime", transactional=bool(attrs & 16), control=bool(attrs & 32))
        b.update(last_offset_delta=r.i32(), base_timestamp=r.i64(), max_timestamp=r.i64(), producer_id=r.i64(),
                 producer_epoch=r.i16(), base_sequence=r.i32())
        n = r.i32()
        recs = []
        if attrs & 7 == 0:
            for _ in range(n):
                r.varint()
                rattr = r.i8()
                tsd, offd = r.varint(), r.varint()
                k, v = r.vbytes(), r.vbytes()
                hdrs = []
                for _ in range(r.varint()):
                    hk = r.vbytes()
                    hv = r.vbytes()
                    hdrs.append(dict(key=txt(hk), value_hex=None if hv is None else hv.hex(), value=txt(hv)))
                recs.append(dict(offset=base + offd, attributes=rattr, timestamp=b["base_timestamp"] + tsd,
                                 key_hex=None if k is None else k.hex(), key=txt(k),
                                 value_hex=None if v is None else v.hex(), value=txt(v), headers=hdrs))
        b["record_count"] = n
        b["records"] = recs
        out.append(b)
        p += 12 + blen
    return out


def fetch_part(c, topic, part, offset=0):
    """Fetch v11 of one partition from offset; (error, high watermark, log start, records blob)."""
    body = struct.pack(">iiiibii", -1, 0, 0, 8 << 20, 0, 0, -1)
    body += struct.pack(">i", 1) + s16(topic) + struct.pack(">i", 1)
    body += struct.pack(">iiqqi", part, -1, offset, -1, 8 << 20) + struct.pack(">i", 0) + s16("")
    f = pfw.parse_fetch(c.call(1, 11, body, False))
    p = f["parts"][0]
    return p["err"], p["hwm"], p["log_start"], p["records"] or b""


# ------------------------------------------------------------------ admin requests
def api_versions_features(c, ver=4):
    """ApiVersions v3/v4: (error, {feature: [min, max]} supported, finalized epoch, {feature: [min, max]})."""
    r = c.call(18, ver, cstr("dlqref") + cstr("1.0") + TAGS)
    err = r.i16()
    r.carr(lambda r: (r.i16(), r.i16(), r.i16(), r.tags()))
    r.i32()
    sup, fin, epoch = {}, {}, None
    for _ in range(r.uvarint()):
        tag, size = r.uvarint(), r.uvarint()
        end = r.p + size
        if tag == 0:
            for name, lo, hi in r.carr(lambda r: (r.cstr(), r.i16(), r.i16(), r.tags())[:3]):
                sup[name] = [lo, hi]
        elif tag == 1:
            epoch = r.i64()
        elif tag == 2:
            for name, hi, lo in r.carr(lambda r: (r.cstr(), r.i16(), r.i16(), r.tags())[:3]):
                fin[name] = [lo, hi]
        r.p = end
    return err, sup, epoch, fin


def update_features(c, updates, validate_only=False):
    """UpdateFeatures v1; updates [(feature, level, upgrade type 1 UPGRADE / 2 SAFE / 3 UNSAFE)]."""
    body = i32(30000) + carr(updates, lambda u: cstr(u[0]) + i16(u[1]) + i8(u[2]) + TAGS)
    body += boolean(validate_only) + TAGS
    r = c.call(57, 1, body)
    r.i32()
    err, msg = r.i16(), r.cstr()
    res = r.carr(lambda r: (r.cstr(), r.i16(), r.cstr(), r.tags())[:3])
    return dict(error=err, message=msg, results={n: dict(error=e, message=m) for n, e, m in res or []})


def incr_alter(c, rtype, name, ops, validate_only=False):
    """IncrementalAlterConfigs v1; ops [(key, op 0 SET / 1 DELETE, value)]. Returns dict(error, message)."""
    cfgs = carr(ops, lambda o: cstr(o[0]) + i8(o[1]) + cstr(o[2]) + TAGS)
    r = c.call(44, 1, carr([i8(rtype) + cstr(name) + cfgs + TAGS]) + boolean(validate_only) + TAGS)
    r.i32()
    err, msg = r.carr(lambda r: (r.i16(), r.cstr(), r.i8(), r.cstr(), r.tags())[:2])[0]
    return dict(error=err, message=msg)


SOURCES = {0: "UNKNOWN", 1: "DYNAMIC_TOPIC_CONFIG", 2: "DYNAMIC_BROKER_CONFIG", 3: "DYNAMIC_DEFAULT_BROKER_CONFIG",
           4: "STATIC_BROKER_CONFIG", 5: "DEFAULT_CONFIG", 6: "DYNAMIC_BROKER_LOGGER_CONFIG",
           7: "CLIENT_METRICS_CONFIG", 8: "GROUP_CONFIG"}
TYPES = {0: "UNKNOWN", 1: "BOOLEAN", 2: "STRING", 3: "INT", 4: "SHORT", 5: "LONG", 6: "DOUBLE", 7: "LIST",
         8: "CLASS", 9: "PASSWORD"}


def describe(c, rtype, name, keys):
    """DescribeConfigs v4 (synonyms on); {key: {value, source, read_only, type, synonyms}} or None."""
    res = i8(rtype) + cstr(name) + carr(list(keys), cstr) + TAGS
    r = c.call(32, 4, carr([res]) + boolean(True) + boolean(False) + TAGS)
    r.i32()

    def entry(r):
        e = dict(name=r.cstr(), value=r.cstr(), read_only=r.boolean())
        e["source"] = SOURCES.get(r.i8(), "?")
        e["sensitive"] = r.boolean()
        e["synonyms"] = [dict(name=n, value=v, source=SOURCES.get(s, "?"))
                         for n, v, s in r.carr(lambda r: (r.cstr(), r.cstr(), r.i8(), r.tags())[:3])]
        e["type"] = TYPES.get(r.i8(), "?")
        r.cstr()
        r.tags()
        return e

    def result(r):
        d = dict(error=r.i16(), message=r.cstr(), rtype=r.i8(), name=r.cstr(), configs=r.carr(entry))
        r.tags()
        return d
    d = r.carr(result)[0]
    return dict(error=d["error"], message=d["message"],
                configs={e.pop("name"): e for e in d["configs"] or []})


def create_topic(c, name, partitions, configs, validate_only=False):
    """CreateTopics v7: (error, message, topic id)."""
    topic = cstr(name) + i32(partitions) + i16(-1) + carr([]) + \
        carr(list(configs.items()), lambda kv: cstr(kv[0]) + cstr(kv[1]) + TAGS) + TAGS
    r = c.call(19, 7, carr([topic]) + i32(30000) + boolean(validate_only) + TAGS)
    r.i32()
    out = r.carr(lambda r: (r.cstr(), r.uuid(), r.i16(), r.cstr()))
    return out[0][2], out[0][3], out[0][1]


class Ctx:
    def __init__(self, boot):
        self.boot = boot
        self.c = kw.Conn(boot, client_id="gr-dlqref")
        self.pc = pfw.Conn(boot)
        self.tids = {}

    def conn(self):
        return kw.Conn(self.boot, client_id="gr-dlqref")

    def tid(self, name):
        if name not in self.tids:  # a topic this run did not create (a partial run): ask Metadata
            self.tids[name] = metadata_partitions(self, name)["id"]
        return self.tids[name]

    def wait_leader(self, name, partitions, secs=20):
        deadline = time.time() + secs
        while time.time() < deadline:
            if all(pfw.list_offsets(self.pc, name, -1, parts=(p,))[0]["err"] == 0 for p in range(partitions)):
                return True
            time.sleep(0.1)
        return False

    def topic(self, name, partitions=1, configs=None):
        err, msg, tid = create_topic(self.c, name, partitions, configs or {})
        self.tids[name] = tid
        if err == 0:  # a refused topic does not exist: no leader to wait for
            self.wait_leader(name, partitions)
        return dict(error=err, message=msg)

    def hwm(self, name, part=0):
        lo = pfw.list_offsets(self.pc, name, -1, parts=(part,))[0]
        return lo["offset"] if lo["err"] == 0 else "error %d" % lo["err"]

    def coordinator(self, group, secs=40):
        deadline, err = time.time() + secs, None
        while time.time() < deadline:
            r = self.c.call(10, 4, kw.i8(0) + kw.carr([group], kw.cstr) + kw.TAGS)
            r.i32()
            err = r.carr(lambda r: (r.cstr(), r.i32(), r.cstr(), r.i32(), r.i16(), r.cstr(), r.tags())[:6])[0][4]
            if err == 0:
                return err
            time.sleep(0.2)
        return err


def src_record(part, i):
    key = b"k-%d-%d" % (part, i)
    value = b"v-%d-%d" % (part, i) if i != 3 else None  # offset 3: a null value (a tombstone-like record)
    return key, value, [(b"src-h", b"p%d-o%d" % (part, i)), (b"src-null", None)], SRC_TS[0] + 1000 * part + i


def produce_source(ctx):
    SRC_TS[0] = (int(time.time()) - 3600) * 1000
    out = {"source_ts_base": SRC_TS[0]}
    for p in range(2):
        recs = [src_record(p, i) for i in range(N_PER_PART)]
        r = pfw.produce(ctx.pc, SRC, record_batch(recs, recs[0][3]), acks=-1, part=p)
        out[str(p)] = dict(error=r["err"], base_offset=r["base"])
    return out


def set_group(ctx, group, cfg):
    return incr_alter(ctx.c, RES_GROUP, group, [(k, 0, str(v)) for k, v in cfg.items()])


class Member:
    """A share group member: joined by ShareGroupHeartbeat (so the group's share state is
    initialized) and fetching with ShareFetch v1 on its own connection."""

    def __init__(self, ctx, group, parts=(0, 1)):
        self.ctx, self.group, self.parts = ctx, group, parts
        self.tid = ctx.tid(SRC)
        self.hc = ctx.conn()
        self.c = ctx.conn()
        self.name = "dlqr-m-" + group
        self.epoch = 0
        deadline, r = time.time() + 30, None
        while time.time() < deadline:
            r = scw.hb(self.hc, group, "dlqr-hb-" + group, 0, [SRC])
            if r["err"] not in (14, 15, 16):
                break
            time.sleep(0.2)
        self.join_error = r["err"]
        self.hb_epoch = r["epoch"]
        while time.time() < deadline and sum(len(p) for p in (r["assignment"] or {}).values()) < 2:
            time.sleep(0.2)
            r = scw.hb(self.hc, group, "dlqr-hb-" + group, self.hb_epoch)
            self.hb_epoch = r["epoch"] if r["err"] == 0 else self.hb_epoch

    def fetch(self, acks=None, max_wait=500):
        acks = acks or {}
        r = sfw.share_fetch(self.c, self.group, self.name, self.epoch,
                            [(self.tid, [(p, acks.get(p, [])) for p in self.parts])], max_wait=max_wait)
        if r["err"] == 0:
            self.epoch += 1
        return r

    def ack(self, acks):
        a = sfw.share_ack(self.c, self.group, self.name, self.epoch,
                          [(self.tid, [(p, b) for p, b in sorted(acks.items())])])
        if a["err"] == 0:
            self.epoch += 1
        return dict(error=a["err"], message=a["msg"],
                    partitions={str(p): dict(error=v["err"], message=v["msg"]) for (_t, p), v in a["parts"].items()})

    def acquire_all(self, secs=8, want=N_PER_PART):
        """Fetch until every partition of the member has `want` records acquired; returns
        {partition: [[first, last, delivery count]...]}."""
        got = {str(p): [] for p in self.parts}
        deadline = time.time() + secs
        while time.time() < deadline:
            r = self.fetch(max_wait=1000)
            for (_t, p), v in r["parts"].items():
                got[str(p)] += [list(x) for x in v["acquired"] or []]
            if all(sum(x[1] - x[0] + 1 for x in got[str(p)]) >= want for p in self.parts):
                break
        return {p: sorted(v) for p, v in got.items()}


def dlq_records(ctx, topic, partitions):
    out = {}
    for p in range(partitions):
        err, hwm, _ls, blob = fetch_part(ctx.pc, topic, p)
        out[str(p)] = dict(error=err, high_watermark=hwm, batches=decode_batches(blob) if err == 0 else [])
    return out


def wait_dlq(ctx, topic, partitions, want, secs=8):
    deadline = time.time() + secs
    total = None
    while time.time() < deadline:
        total = sum(ctx.hwm(topic, p) if isinstance(ctx.hwm(topic, p), int) else 0 for p in range(partitions))
        if total >= want:
            break
        time.sleep(0.1)
    return total


# ------------------------------------------------------------------ scenarios (phase main)
def s_fresh_features(ctx):
    """A fresh node finalizes share.version 2 (4.4.0's format default); the scenarios below
    start from 1, so this one downgrades safely (kafka-features.sh downgrade) and waits."""
    o = {}
    _e, _s, _ep, fin = api_versions_features(ctx.c)
    o["finalized_share_version_fresh"] = fin.get("share.version")
    o["safe_downgrade_1"] = update_features(ctx.c, [("share.version", 1, 2)])
    deadline = time.time() + 10
    while time.time() < deadline:
        _e, _s, _ep, fin = api_versions_features(ctx.c)
        if fin.get("share.version") == [1, 1]:
            break
        time.sleep(0.1)
    o["finalized_after_downgrade"] = fin.get("share.version")
    return o


def s_features_initial(ctx):
    o = {}
    for ver in (3, 4):
        err, sup, epoch, fin = api_versions_features(ctx.c, ver)
        o["v%d" % ver] = dict(error=err, supported_share_version=sup.get("share.version"),
                              finalized_share_version=fin.get("share.version"),
                              finalized_epoch_positive=(epoch or 0) > 0, supported_feature_names=sorted(sup))
    return o


def s_configs(ctx):
    o = {}
    g = "dlqr-cfg-g"
    o["describe_group_defaults"] = describe(ctx.c, RES_GROUP, g, DLQ_KEYS)
    name, copy = DLQ_KEYS
    for v in ("__dlq", "__consumer_offsets", "_dlq", "dlq.ok", "no-prefix", "", "dlq.missing", "a" * 250,
              "dlq.bad name", "dlq.x/y"):
        o["validate name=%r" % v] = incr_alter(ctx.c, RES_GROUP, g, [(name, 0, v)], validate_only=True)
    for v in ("true", "false", "TRUE", "yes", "1", ""):
        o["validate copy=%r" % v] = incr_alter(ctx.c, RES_GROUP, g, [(copy, 0, v)], validate_only=True)
    o["set_both"] = incr_alter(ctx.c, RES_GROUP, g, [(name, 0, "dlq.cfg"), (copy, 0, "true")])
    time.sleep(0.3)
    o["describe_group_set"] = describe(ctx.c, RES_GROUP, g, DLQ_KEYS)
    o["delete_both"] = incr_alter(ctx.c, RES_GROUP, g, [(name, 1, ""), (copy, 1, "")])
    time.sleep(0.3)
    o["describe_group_deleted"] = describe(ctx.c, RES_GROUP, g, DLQ_KEYS)
    o["describe_broker"] = describe(ctx.c, RES_BROKER, "1", BROKER_KEYS)
    o["alter_broker_prefix"] = incr_alter(ctx.c, RES_BROKER, "1", [(BROKER_KEYS[0], 0, "x.")], validate_only=True)
    o["alter_broker_autocreate"] = incr_alter(ctx.c, RES_BROKER, "1", [(BROKER_KEYS[1], 0, "true")],
                                              validate_only=True)
    o["alter_cluster_autocreate"] = incr_alter(ctx.c, RES_BROKER, "", [(BROKER_KEYS[1], 0, "true")],
                                               validate_only=True)
    for v in ("maybe", "true"):
        err, msg, _ = create_topic(ctx.c, "dlq.validate", 1, {TOPIC_KEY: v}, validate_only=True)
        o["create_topic_validate %s" % v] = dict(error=err, message=msg)
    o["create_plain_topic"] = ctx.topic("dlqr-plain")
    o["describe_topic_default"] = describe(ctx.c, RES_TOPIC, "dlqr-plain", [TOPIC_KEY])
    o["alter_topic_flag_bad"] = incr_alter(ctx.c, RES_TOPIC, "dlqr-plain", [(TOPIC_KEY, 0, "maybe")])
    o["alter_topic_flag"] = incr_alter(ctx.c, RES_TOPIC, "dlqr-plain", [(TOPIC_KEY, 0, "true")])
    time.sleep(0.3)
    o["describe_topic_set"] = describe(ctx.c, RES_TOPIC, "dlqr-plain", [TOPIC_KEY])
    o["create_internal_named_dlq"] = dict(zip(("error", "message"), create_topic(
        ctx.c, "__dlq.x", 1, {TOPIC_KEY: "true"}, validate_only=True)[:2]))
    return o


def s_setup(ctx):
    o = dict(source=ctx.topic(SRC, 2))
    o["produce"] = produce_source(ctx)
    on = {TOPIC_KEY: "true"}
    for name, parts, cfg in (("dlq.v1", 1, on), ("dlq.nc", 1, on), ("dlq.cp", 2, on), ("dlq.lim", 1, on),
                             ("dlq.lt", 1, on), ("noprefix-dlq", 1, on), ("dlq.noflag", 1, {}),
                             ("dlq.one", 1, on)):
        o["create " + name] = ctx.topic(name, parts, cfg)
    o["coordinator"] = ctx.coordinator("dlqr-v1-g")
    return o


BASE = {"share.auto.offset.reset": "earliest", "share.record.lock.duration.ms": "15000"}


def reject_flow(ctx, group, cfg, dlq, dlq_parts, want):
    """The REJECT flow every group of the main phase follows: p0 REJECT [1,2] + ACCEPT 0, 3;
    p1 REJECT 0 + ACCEPT [1,3]. Observes the DLQ high watermark and the share start offsets
    right after the ShareAcknowledge answer and then until both settle."""
    o = dict(configs=set_group(ctx, group, dict(BASE, **cfg)))
    m = Member(ctx, group)
    o["join_error"] = m.join_error
    o["acquired"] = m.acquire_all()
    acks = {0: [(0, 0, [ACCEPT]), (1, 2, [REJECT]), (3, 3, [ACCEPT])], 1: [(0, 0, [REJECT]), (1, 3, [ACCEPT])]}
    t0 = time.time()
    o["ack"] = m.ack(acks)
    t_ack = time.time()
    timeline = [(0.0, dlq_count(ctx, dlq, dlq_parts))]
    deadline = time.time() + 8
    while time.time() < deadline and timeline[-1][1] < want:
        time.sleep(0.01)
        h = dlq_count(ctx, dlq, dlq_parts)
        if h != timeline[-1][1]:
            timeline.append((round(time.time() - t_ack, 3), h))
    if want == 0:
        settle(3)  # nothing is expected: give a late write the time to show
        timeline.append((round(time.time() - t_ack, 3), dlq_count(ctx, dlq, dlq_parts)))
    o["ack_ms"] = round((t_ack - t0) * 1000)
    o["timeline"] = [dict(t=t, dlq_records=h) for t, h in timeline]
    o["ack_time_ms"] = int(t_ack * 1000)
    o["redelivered_after"] = {p: v for p, v in m.acquire_all(secs=1.5, want=1).items()}
    o["dlq"] = dlq_records(ctx, dlq, dlq_parts)
    return o


def dlq_count(ctx, dlq, parts):
    return sum(ctx.hwm(dlq, p) if isinstance(ctx.hwm(dlq, p), int) else 0 for p in range(parts))


def s_no_feature(ctx):
    """share.version=1 (after s_fresh_features' downgrade): a group with a DLQ topic, a REJECT."""
    o = reject_flow(ctx, "dlqr-v1-g", {DLQ_KEYS[0]: "dlq.v1"}, "dlq.v1", 1, 0)
    o["describe_group"] = describe(ctx.c, RES_GROUP, "dlqr-v1-g", DLQ_KEYS)
    return o


def s_upgrade(ctx):
    o = {}
    o["validate_level_3"] = update_features(ctx.c, [("share.version", 3, 1)], validate_only=True)
    o["validate_upgrade_2"] = update_features(ctx.c, [("share.version", 2, 1)], validate_only=True)
    _e, _s, _ep, fin = api_versions_features(ctx.c)
    o["after_validate_only"] = fin.get("share.version")
    o["upgrade_2"] = update_features(ctx.c, [("share.version", 2, 1)])
    deadline = time.time() + 10
    while time.time() < deadline:
        _e, _s, epoch, fin = api_versions_features(ctx.c)
        if fin.get("share.version") == [0, 2] or fin.get("share.version") == [2, 2]:
            break
        time.sleep(0.1)
    o["finalized_after_upgrade"] = fin.get("share.version")
    o["upgrade_2_again"] = update_features(ctx.c, [("share.version", 2, 1)])
    o["validate_safe_downgrade_1"] = update_features(ctx.c, [("share.version", 1, 2)], validate_only=True)
    o["validate_upgrade_type_as_downgrade"] = update_features(ctx.c, [("share.version", 1, 1)], validate_only=True)
    settle(2)
    o["v1_group_dlq_after_upgrade"] = dlq_records(ctx, "dlq.v1", 1)
    return o


def s_reject_nocopy(ctx):
    return reject_flow(ctx, "dlqr-nc-g", {DLQ_KEYS[0]: "dlq.nc"}, "dlq.nc", 1, 3)


def s_reject_copy(ctx):
    return reject_flow(ctx, "dlqr-cp-g", {DLQ_KEYS[0]: "dlq.cp", DLQ_KEYS[1]: "true"}, "dlq.cp", 2, 3)


def s_delivery_limit(ctx):
    """share.delivery.count.limit=2, copy on: p0 RELEASEd twice (archived at the limit), p1 accepted."""
    g = "dlqr-lim-g"
    o = dict(configs=set_group(ctx, g, dict(BASE, **{DLQ_KEYS[0]: "dlq.lim", DLQ_KEYS[1]: "true",
                                                     "share.delivery.count.limit": "2"})))
    m = Member(ctx, g)
    o["acquired_1"] = m.acquire_all()
    o["release_1"] = m.ack({0: [(0, 3, [RELEASE])], 1: [(0, 3, [ACCEPT])]})
    o["acquired_2"] = m.acquire_all(want=N_PER_PART)
    o["acquired_2"].pop("1", None)
    o["release_2"] = m.ack({0: [(0, 3, [RELEASE])]})
    o["dlq_total"] = wait_dlq(ctx, "dlq.lim", 1, N_PER_PART)
    o["dlq"] = dlq_records(ctx, "dlq.lim", 1)
    o["redelivered_after"] = m.acquire_all(secs=1.5, want=1)
    return o


def s_lock_timeout(ctx):
    """share.record.lock.duration.ms=1000, limit 2, copy off: p0 acquired twice and never
    acknowledged, so the second lock timeout archives it."""
    g = "dlqr-lt-g"
    o = dict(configs=set_group(ctx, g, dict(BASE, **{DLQ_KEYS[0]: "dlq.lt", "share.delivery.count.limit": "2",
                                                     "share.record.lock.duration.ms": "1000"})))
    m = Member(ctx, g, parts=(0,))
    o["acquired_1"] = m.acquire_all()
    time.sleep(1.6)
    o["acquired_2"] = m.acquire_all()
    o["dlq_right_after_acquire_2"] = ctx.hwm("dlq.lt")
    time.sleep(1.6)
    o["dlq_total"] = wait_dlq(ctx, "dlq.lt", 1, N_PER_PART)
    o["dlq"] = dlq_records(ctx, "dlq.lt", 1)
    o["redelivered_after"] = m.acquire_all(secs=1.5, want=1)
    return o


def refused(ctx, group, dlq, exists):
    """A DLQ the broker refuses at write time: REJECT p0 offset 0; the record is archived anyway."""
    o = dict(configs=set_group(ctx, group, dict(BASE, **{DLQ_KEYS[0]: dlq})))
    m = Member(ctx, group, parts=(0,))
    o["acquired"] = m.acquire_all()
    o["ack"] = m.ack({0: [(0, 0, [REJECT]), (1, 3, [ACCEPT])]})
    settle(3)
    o["dlq_high_watermark"] = ctx.hwm(dlq) if exists else None
    o["dlq_topic_after"] = pfw.list_offsets(ctx.pc, dlq, -1)[0]["err"]
    o["redelivered_after"] = m.acquire_all(secs=1.5, want=1)
    return o


def s_refusals(ctx):
    return {"no_prefix": refused(ctx, "dlqr-np-g", "noprefix-dlq", True),
            "missing_topic": refused(ctx, "dlqr-ms-g", "dlq.missing", False),
            "topic_without_flag": refused(ctx, "dlqr-nf-g", "dlq.noflag", True)}


def s_shared_dlq(ctx):
    """Two groups writing to one DLQ topic (headers tell them apart)."""
    o = {}
    for g in ("dlqr-s1-g", "dlqr-s2-g"):
        o[g] = set_group(ctx, g, dict(BASE, **{DLQ_KEYS[0]: "dlq.one"}))
        m = Member(ctx, g, parts=(1,))
        m.acquire_all()
        o[g + " ack"] = m.ack({1: [(0, 0, [REJECT]), (1, 3, [ACCEPT])]})
        wait_dlq(ctx, "dlq.one", 1, 1 if g.endswith("s1-g") else 2)
    o["dlq"] = dlq_records(ctx, "dlq.one", 1)
    return o


# ------------------------------------------------------------------ scenarios (phase autocreate)
def auto_flow(ctx, group, dlq, copy):
    cfg = {DLQ_KEYS[0]: dlq}
    if copy:
        cfg[DLQ_KEYS[1]] = "true"
    o = dict(configs=set_group(ctx, group, dict(BASE, **cfg)))
    o["topic_before"] = pfw.list_offsets(ctx.pc, dlq, -1)[0]["err"]
    m = Member(ctx, group)
    m.acquire_all()
    o["ack"] = m.ack({0: [(0, 0, [ACCEPT]), (1, 2, [REJECT]), (3, 3, [ACCEPT])],
                      1: [(0, 0, [REJECT]), (1, 3, [ACCEPT])]})
    deadline, n_parts = time.time() + 10, None
    while time.time() < deadline:
        md = metadata_partitions(ctx, dlq)
        if md["error"] == 0 and md["partitions"]:
            n_parts = len(md["partitions"])
            if wait_dlq(ctx, dlq, n_parts, 3, secs=0.5) >= 3:
                break
        time.sleep(0.3)
    o["metadata"] = metadata_partitions(ctx, dlq)
    o["metadata"].pop("id")
    o["describe_topic"] = describe(ctx.c, RES_TOPIC, dlq, [TOPIC_KEY, "message.timestamp.type", "cleanup.policy",
                                                         "retention.ms"])
    o["dlq"] = dlq_records(ctx, dlq, n_parts or 1)
    return o


def metadata_partitions(ctx, topic):
    """Metadata v12 for one topic (no auto-creation): error and partition count."""
    body = carr([kw.ZERO_UUID + cstr(topic) + TAGS]) + boolean(False) + boolean(False) + TAGS
    r = ctx.c.call(3, 12, body)
    r.i32()
    r.carr(lambda r: (r.i32(), r.cstr(), r.i32(), r.cstr(), r.tags()))
    r.cstr()
    r.i32()

    def part(r):
        v = dict(error=r.i16(), index=r.i32(), leader=r.i32(), epoch=r.i32(), replicas=r.carr(lambda r: r.i32()),
                 isr=r.carr(lambda r: r.i32()), offline=r.carr(lambda r: r.i32()))
        r.tags()
        return v

    def topic_(r):
        t = dict(error=r.i16(), name=r.cstr(), id=r.uuid(), internal=r.boolean(), partitions=r.carr(part))
        r.i32()
        r.tags()
        return t
    t = r.carr(topic_)[0]
    return dict(error=t["error"], id=t["id"], partitions=[dict(index=p["index"], replicas=len(p["replicas"] or []))
                                              for p in t["partitions"] or []])


def s_autocreate(ctx):
    """errors.deadletterqueue.auto.create.topics.enable and the prefix are dynamic broker configs:
    turn auto-creation on (cluster default) and the prefix off (this node), then dead-letter
    into topics that do not exist yet."""
    o = dict(set_autocreate=incr_alter(ctx.c, RES_BROKER, "", [(BROKER_KEYS[1], 0, "true")]),
             set_prefix_empty=incr_alter(ctx.c, RES_BROKER, "1", [(BROKER_KEYS[0], 0, "")]))
    time.sleep(1)
    o["describe_broker"] = describe(ctx.c, RES_BROKER, "1", BROKER_KEYS)
    o["prefixed"] = auto_flow(ctx, "dlqr-ac-g", "dlq.auto", True)
    o["unprefixed"] = auto_flow(ctx, "dlqr-ac2-g", "anyname-dlq", False)
    return o


# ------------------------------------------------------------------ Kafka's share-state log
STATES = {0: "AVAILABLE", 1: "ACQUIRED", 2: "ACKNOWLEDGED", 3: "ARCHIVING", 4: "ARCHIVED"}


def decode_state_record(key, value):
    """A __share_group_state record: key int16 type (0 ShareSnapshot, 1 ShareUpdate) + GroupId,
    TopicId, Partition; value int16 version + SnapshotEpoch? (snapshot), ... StateBatches.
    Returns (group, partition, type, start offset, [[first, last, state, count]]) or None."""
    if key is None or value is None:
        return None
    k = RR(key)
    rtype = k.i16()
    if rtype not in (0, 1):
        return None
    n = k.i16()  # the key is not flexible: int16-length string
    group = k.b[k.p:k.p + n].decode()
    k.p += n
    k.uuid()
    part = k.i32()
    v = RR(value)
    v.i16()
    if rtype == 0:  # ShareSnapshotValue: SnapshotEpoch, StateEpoch, LeaderEpoch, StartOffset, (ts x2)
        v.i32(), v.i32(), v.i32()
        start = v.i64()
        v.i64(), v.i64()
    else:  # ShareUpdateValue: SnapshotEpoch, LeaderEpoch, StartOffset
        v.i32(), v.i32()
        start = v.i64()
    batches = v.carr(lambda r: (r.i64(), r.i64(), r.i8(), r.i16(), r.tags())[:4])
    return group, part, "snapshot" if rtype == 0 else "update", start, [
        [f, last, STATES.get(st, st), c] for f, last, st, c in batches or []]


def s_state_log(ctx):
    """Kafka only: the share-state writes of two groups in __share_group_state, in order. Shows
    ARCHIVING persisted before the DLQ write and ARCHIVED after it."""
    err, hwm, _ls, blob = fetch_part(ctx.pc, "__share_group_state", 0)
    o = dict(error=err)
    if err:
        return o
    for g in ("dlqr-nc-g", "dlqr-lim-g", "dlqr-lt-g"):
        seq = []
        for b in decode_batches(blob):
            for r in b["records"]:
                k = bytes.fromhex(r["key_hex"]) if r["key_hex"] else None
                v = bytes.fromhex(r["value_hex"]) if r["value_hex"] else None
                try:
                    d = decode_state_record(k, v)
                except Exception:  # noqa: BLE001 - a record this decoder does not know
                    d = None
                if d and d[0] == g:
                    seq.append(dict(partition=d[1], kind=d[2], batches=d[4]))
        o[g] = seq
    return o


PHASES = {
    "main": [("fresh_features", s_fresh_features), ("features_initial", s_features_initial), ("configs", s_configs), ("setup", s_setup),
             ("no_feature", s_no_feature), ("upgrade", s_upgrade), ("reject_nocopy", s_reject_nocopy),
             ("reject_copy", s_reject_copy), ("delivery_limit", s_delivery_limit),
             ("lock_timeout", s_lock_timeout), ("refusals", s_refusals), ("shared_dlq", s_shared_dlq),
             ("autocreate", s_autocreate), ("state_log", s_state_log)],
}


def observe(phase, boot, out_path, only=None):
    scen = [(n, f) for n, f in PHASES[phase] if not only or n in only]

    def fresh(old):
        ctx = Ctx(boot)
        if old:
            ctx.tids = old.tids
        return ctx
    kdiff.observe(boot, out_path, scen, fresh, convert=jsonable)


def jsonable(v):
    if isinstance(v, (bytes, bytearray)):
        return v.hex()
    if isinstance(v, (list, tuple)):
        return [jsonable(x) for x in v]
    if isinstance(v, dict):
        return {str(k): jsonable(x) for k, x in v.items()}
    return v


# ------------------------------------------------------------------ normalization
def norm_dlq(dlq, t_ref_ms):
    """The DLQ records, flattened and ordered by their source (partition, offset): which DLQ
    partition, key, value, headers, and facts instead of timestamps and offsets (the order in
    which two share-partitions' records reach one DLQ partition, and how they are batched,
    are races)."""
    out, batches = [], 0
    for dpart, part in sorted((dlq or {}).items()):
        if not isinstance(part, dict):
            continue
        for b in part.get("batches", []):
            batches += 1
            for r in b["records"]:
                hd = {h["key"]: h["value"] for h in r["headers"]}
                src = None
                if "__dlq.errors.partition" in hd and "__dlq.errors.offset" in hd:
                    src = SRC_TS[0] + 1000 * int(hd["__dlq.errors.partition"]) + int(hd["__dlq.errors.offset"])
                out.append(dict(
                    dlq_partition=int(dpart), key=r["key"], key_hex=r["key_hex"], value=r["value"],
                    value_hex=r["value_hex"], headers=r["headers"], record_attributes=r["attributes"],
                    timestamp_is_source_timestamp=r["timestamp"] == src,
                    timestamp_within_60s_of_ack=t_ref_ms is not None and abs(r["timestamp"] - t_ref_ms) < 60000,
                    batch=dict(magic=b["magic"], compression=b["compression"], timestamp_type=b["timestamp_type"],
                               transactional=b["transactional"], control=b["control"],
                               producer_id=b["producer_id"], producer_epoch=b["producer_epoch"],
                               base_sequence=b["base_sequence"])))
    out.sort(key=lambda r: (int({h["key"]: h["value"] for h in r["headers"]}.get("__dlq.errors.partition") or -1),
                            int({h["key"]: h["value"] for h in r["headers"]}.get("__dlq.errors.offset") or -1),
                            {h["key"]: h["value"] for h in r["headers"]}.get("__dlq.errors.group") or ""))
    hwm = {p: v.get("high_watermark") for p, v in sorted((dlq or {}).items()) if isinstance(v, dict)}
    return dict(records=out, high_watermarks=hwm, batch_count_at_most_records=batches <= max(len(out), 1))


def normalize(obs):
    o = json.loads(json.dumps(obs))
    SRC_TS[0] = o.get("setup", {}).get("produce", {}).pop("source_ts_base", 0)

    def walk(x):
        if isinstance(x, dict):
            t_ref = x.pop("ack_time_ms", None)
            for k in list(x):
                if k in ("dlq", "v1_group_dlq_after_upgrade"):
                    x[k] = norm_dlq(x[k], t_ref if t_ref is not None else int(time.time() * 1000))
                elif k == "timeline":
                    tl = x.pop(k)
                    x["dlq_records_at_ack_answer"] = tl[0]["dlq_records"]
                    x["dlq_records_final"] = tl[-1]["dlq_records"]
                elif k in ("ack_ms",):
                    x.pop(k)
                else:
                    walk(x[k])
        elif isinstance(x, list):
            for y in x:
                walk(y)
    walk(o)
    return o


ALLOW = [
    ("*/throttle_ms", "ignore", "throttle times depend on load"),
    ("state_log/*", "any", "Kafka's internal __share_group_state topic, evidence of the write order; "
     "gregord keeps share state in its own store (docs/share-state.md)"),
    ("features_initial/v4/supported_feature_names", "ignore", "gregord lists the features it has (group.version, "
     "metadata.version, share.version), not Kafka's KRaft, ELR, streams and transaction features "
     "(docs/compatibility.md)"),
    ("*/dlq_records_at_ack_answer", "ignore", "a race: Kafka starts the DLQ write once the ARCHIVING state is "
     "persisted, as it answers the acknowledgement (docs/dlq.md); either may be seen first"),
]


def diff(ref_path, got_path, report_path=None):
    ref, got = json.load(open(ref_path)), json.load(open(got_path))
    names = sorted(set(ref) | set(got))
    tmp_a, tmp_b = got_path + ".n-ref", got_path + ".n-got"
    with open(tmp_a, "w") as f:
        json.dump(ref, f)
    with open(tmp_b, "w") as f:
        json.dump(got, f)
    return kdiff.diff(tmp_a, tmp_b, report_path, names, ALLOW, allowed_values=True)


if __name__ == "__main__":
    a = sys.argv
    if len(a) >= 5 and a[1] == "observe":
        observe(a[2], a[3], a[4], a[5].split(",") if len(a) > 5 else None)
    elif len(a) >= 4 and a[1] == "normalize":
        with open(a[3], "w") as f:
            json.dump(normalize(json.load(open(a[2]))), f, indent=1, sort_keys=True)
    elif len(a) >= 4 and a[1] == "diff":
        sys.exit(diff(a[2], a[3], a[4] if len(a) > 4 else None))
    else:
        sys.exit(__doc__)
