#!/usr/bin/env python3
"""Differential test: the same scenarios against Apache Kafka and against gregord.

  differential.py observe BOOTSTRAP OUT.json
        run every scenario against one broker and write what a client observes as JSON
        (raw values: nothing is normalized here, so the file is evidence on its own).
  differential.py diff REF.json GREGORD.json [REPORT.txt]
        compare the two observations scenario by scenario; every difference must match
        an entry of ALLOW (path glob, rule, one-line reason; docs/compatibility-differential.md
        lists them). Prints "ok   - <scenario>" / "FAIL - <scenario>" per scenario, then the
        unexplained differences, then "diff summary: ..." ; exit status 1 on any.
  differential.py allowlist
        print the allow-list (for docs/compatibility-differential.md).

Requests are raw frames (tests/integration/kwire.py for flexible versions,
tests/integration/produce_fetch_wire.py for Produce v8 / Fetch v11 / ListOffsets /
DeleteRecords); confluent-kafka (librdkafka) produces and consumes in scenario 4.
Both brokers must run with auto.create.topics.enable=false and node.id=1
(tests/integration/test_differential.sh starts them).
"""
import hashlib
import os
import sys
import time
import uuid as uuidmod

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kdiff  # noqa: E402
import kwire as kw  # noqa: E402
import produce_fetch_wire as pfw  # noqa: E402
from kwire import TAGS, boolean, carr, cstr, i8, i16, i32, i64  # noqa: E402

T0 = 1700000000000  # record timestamps (fixed, so stored batches are byte-identical)


def hexid(u):
    return u.hex() if isinstance(u, (bytes, bytearray)) else u


# ====================================================================== request helpers
class Broker:
    def __init__(self, boot):
        self.boot = boot
        self.fc = kw.Conn(boot, client_id="gr-diff")   # flexible / any
        self.cc = pfw.Conn(boot)                       # classic (Produce v8, Fetch v11, ...)

    # ---------------------------------------------------------------- metadata v12
    def metadata(self, topics=None, ids=None, auto=False, ops=False):
        """topics: list of names, None for all; ids: list of topic-id bytes (name null)."""
        if topics is None and ids is None:
            t = carr(None, None)
        else:
            items = [(kw.ZERO_UUID, n) for n in (topics or [])] + [(u, None) for u in (ids or [])]
            t = carr(items, lambda x: x[0] + cstr(x[1]) + TAGS)
        r = self.fc.call(3, 12, t + boolean(auto) + boolean(ops) + TAGS)
        out = {"throttle_ms": r.i32()}
        out["brokers"] = r.carr(lambda r: dict(node_id=r.i32(), host=r.cstr(), port=r.i32(), rack=r.cstr(),
                                               _t=r.tags()))
        for b in out["brokers"]:
            b.pop("_t")
        out["cluster_id"] = r.cstr()
        out["controller_id"] = r.i32()

        def part(r):
            d = dict(error=r.i16(), index=r.i32(), leader=r.i32(), leader_epoch=r.i32(),
                     replicas=r.carr(lambda r: r.i32()), isr=r.carr(lambda r: r.i32()),
                     offline=r.carr(lambda r: r.i32()))
            r.tags()
            return d

        def topic(r):
            d = dict(error=r.i16(), name=r.cstr(), topic_id=hexid(r.uuid()), internal=r.boolean(),
                     partitions=r.carr(part), authorized_ops=r.i32())
            r.tags()
            return d
        out["topics"] = r.carr(topic)
        r.tags()
        return out

    def wait_leader(self, name, partitions=1, secs=20):
        """Apache Kafka needs a moment before it leads a new partition: poll Metadata + ListOffsets."""
        deadline = time.time() + secs
        while time.time() < deadline:
            md = self.metadata([name])
            t = md["topics"][0]
            if t["error"] == 0 and len(t["partitions"]) == partitions and all(p["leader"] >= 0 for p in t["partitions"]):
                if all(pfw.list_offsets(self.cc, name, -1, parts=(p,))[0]["err"] == 0 for p in range(partitions)):
                    return True
            time.sleep(0.1)
        return False

    # ---------------------------------------------------------------- CreateTopics v7
    def create_topics(self, topics, validate_only=False, timeout_ms=30000):
        """topics: list of dicts name, partitions=1, rf=-1, configs={}, assignments=None."""
        def enc(t):
            asg = t.get("assignments")
            a = carr(list(enumerate(asg)) if asg else [],
                     lambda ia: i32(ia[0]) + carr(ia[1], i32) + TAGS)
            cfg = list((t.get("configs") or {}).items())
            return (cstr(t["name"]) + i32(t.get("partitions", 1)) + i16(t.get("rf", -1)) + a +
                    carr(cfg, lambda kv: cstr(kv[0]) + cstr(kv[1]) + TAGS) + TAGS)
        r = self.fc.call(19, 7, carr(topics, enc) + i32(timeout_ms) + boolean(validate_only) + TAGS)
        throttle = r.i32()

        def res(r):
            d = dict(name=r.cstr(), topic_id=hexid(r.uuid()), error=r.i16(), message=r.cstr(),
                     num_partitions=r.i32(), replication_factor=r.i16())
            cfgs = r.carr(lambda r: (r.cstr(), r.cstr(), r.boolean(), r.i8(), r.boolean(), r.tags()))
            d["configs"] = None if cfgs is None else {c[0]: dict(value=c[1], read_only=c[2], source=c[3],
                                                                 sensitive=c[4]) for c in cfgs}
            # tagged: TopicConfigErrorCode (tag 0)
            for _ in range(r.uvarint()):
                tag, size = r.uvarint(), r.uvarint()
                if tag == 0:
                    d["topic_config_error"] = r.i16()
                else:
                    r.p += size
            return d
        out = r.carr(res)
        r.tags()
        return throttle, out

    def create1(self, **t):
        validate = t.pop("validate_only", False)
        return self.create_topics([t], validate_only=validate)[1][0]

    # ---------------------------------------------------------------- DeleteTopics v6
    def delete_topics(self, names=(), ids=()):
        items = [(n, kw.ZERO_UUID) for n in names] + [(None, u) for u in ids]
        r = self.fc.call(20, 6, carr(items, lambda x: cstr(x[0]) + x[1] + TAGS) + i32(30000) + TAGS)
        r.i32()
        out = r.carr(lambda r: dict(name=r.cstr(), topic_id=hexid(r.uuid()), error=r.i16(), message=r.cstr(),
                                    _t=r.tags()))
        for d in out:
            d.pop("_t")
        return out

    # ---------------------------------------------------------------- CreatePartitions v3
    def create_partitions(self, name, count, validate_only=False):
        t = cstr(name) + i32(count) + carr(None, None) + TAGS
        r = self.fc.call(37, 3, carr([t], lambda x: x) + i32(30000) + boolean(validate_only) + TAGS)
        r.i32()
        out = r.carr(lambda r: dict(name=r.cstr(), error=r.i16(), message=r.cstr(), _t=r.tags()))
        out[0].pop("_t")
        return out[0]

    # ---------------------------------------------------------------- InitProducerId v4
    def init_pid(self, txn_id=None, pid=-1, epoch=-1):
        r = self.fc.call(22, 4, cstr(txn_id) + i32(60000) + i64(pid) + i16(epoch) + TAGS)
        d = dict(throttle_ms=r.i32(), error=r.i16(), producer_id=r.i64(), producer_epoch=r.i16())
        r.tags()
        return d

    # ---------------------------------------------------------------- DescribeConfigs v4
    def describe_configs(self, rtype, name, keys=None, synonyms=True, docs=False):
        res = i8(rtype) + cstr(name) + carr(keys, cstr) + TAGS
        r = self.fc.call(32, 4, carr([res], lambda x: x) + boolean(synonyms) + boolean(docs) + TAGS)
        r.i32()

        def cfg(r):
            name, value, ro, src, sens = r.cstr(), r.cstr(), r.boolean(), r.i8(), r.boolean()
            syn = r.carr(lambda r: (r.cstr(), r.cstr(), r.i8(), r.tags())[:3])
            ctype, doc = r.i8(), r.cstr()
            r.tags()
            return name, dict(value=value, read_only=ro, source=src, sensitive=sens,
                              synonyms=[list(s) for s in syn], type=ctype, doc_present=doc is not None)

        def result(r):
            d = dict(error=r.i16(), message=r.cstr(), resource_type=r.i8(), resource_name=r.cstr())
            cfgs = r.carr(cfg)
            d["configs"] = dict(cfgs)
            r.tags()
            return d
        out = r.carr(result)
        r.tags()
        return out[0]

    def describe_configs_until(self, rtype, name, keys, settled, timeout=10.0):
        """Describes until settled(configs) holds or timeout seconds pass. Apache Kafka answers an
        alter before its broker's metadata image has the change: a describe right behind it may
        still show the old values."""
        deadline = time.monotonic() + timeout
        while True:
            d = self.describe_configs(rtype, name, keys=keys)
            if settled(d["configs"]) or time.monotonic() > deadline:
                return d
            time.sleep(0.1)

    # ---------------------------------------------------------------- IncrementalAlterConfigs v1
    def incremental_alter(self, rtype, name, ops, validate_only=False):
        """ops: list of (name, op, value); op 0 SET, 1 DELETE, 2 APPEND, 3 SUBTRACT."""
        res = i8(rtype) + cstr(name) + carr(ops, lambda o: cstr(o[0]) + i8(o[1]) + cstr(o[2]) + TAGS) + TAGS
        r = self.fc.call(44, 1, carr([res], lambda x: x) + boolean(validate_only) + TAGS)
        r.i32()
        out = r.carr(lambda r: dict(error=r.i16(), message=r.cstr(), resource_type=r.i8(),
                                    resource_name=r.cstr(), _t=r.tags()))
        out[0].pop("_t")
        return out[0]

    # ---------------------------------------------------------------- AlterConfigs v2
    def alter_configs(self, rtype, name, configs, validate_only=False):
        res = i8(rtype) + cstr(name) + carr(list(configs.items()), lambda kv: cstr(kv[0]) + cstr(kv[1]) + TAGS) + TAGS
        r = self.fc.call(33, 2, carr([res], lambda x: x) + boolean(validate_only) + TAGS)
        r.i32()
        out = r.carr(lambda r: dict(error=r.i16(), message=r.cstr(), resource_type=r.i8(),
                                    resource_name=r.cstr(), _t=r.tags()))
        out[0].pop("_t")
        return out[0]

    # ---------------------------------------------------------------- FindCoordinator v4
    def find_coordinator(self, key_type, keys):
        r = self.fc.call(10, 4, i8(key_type) + carr(keys, cstr) + TAGS)
        r.i32()
        out = r.carr(lambda r: dict(key=r.cstr(), node_id=r.i32(), host=r.cstr(), port=r.i32(), error=r.i16(),
                                    message=r.cstr(), _t=r.tags()))
        for d in out:
            d.pop("_t")
        return out

    # ---------------------------------------------------------------- ApiVersions
    def api_versions(self, version=3, cluster_id=None, node_id=-1):
        # versions >= 3 are sent as a client would: flexible header v2 + body (also v127);
        # v5 adds ClusterId and NodeId (KIP-1242: the broker checks them when both are set)
        body = cstr("gr-diff") + cstr("1.0") if version >= 3 else b""
        if version == 5:
            body += cstr(cluster_id) + i32(node_id)
        if version >= 3:
            body += TAGS
        self.fc.send(18, version, body, flexible=version >= 3)
        r = self.fc.recv(False)  # ApiVersions responses use header v0
        d = {"error": r.i16()}
        # UNSUPPORTED_VERSION (35) answers use the v0 layout; every other answer its own version's
        flex = 3 <= version <= 5 and d["error"] != 35
        if flex:
            keys = r.carr(lambda r: (r.i16(), r.i16(), r.i16(), r.tags())[:3])
        else:
            keys = r.arr(lambda r: (r.i16(), r.i16(), r.i16()))
        d["apis"] = {str(k): [lo, hi] for k, lo, hi in keys}
        if version >= 1 and r.p < len(r.b):
            d["throttle_ms"] = r.i32()
        if flex and r.p < len(r.b):
            for _ in range(r.uvarint()):
                tag, size = r.uvarint(), r.uvarint()
                if tag == 0:
                    d["supported_features"] = {f[0]: [f[1], f[2]] for f in
                                               r.carr(lambda r: (r.cstr(), r.i16(), r.i16(), r.tags())[:3])}
                elif tag == 1:
                    d["finalized_features_epoch"] = r.i64()
                elif tag == 2:  # name, max level, min level
                    d["finalized_features"] = {f[0]: {"min": f[2], "max": f[1]} for f in
                                               r.carr(lambda r: (r.cstr(), r.i16(), r.i16(), r.tags())[:3])}
                elif tag == 3:
                    d["zk_migration_ready"] = r.boolean()
                else:
                    d.setdefault("unknown_tags", []).append(tag)
                    r.p += size
        return d


def produce_obs(r):
    return dict(error=r["err"], base_offset=r["base"], log_append_time=r["log_append_time"],
                log_start=r["log_start"], record_errors=r["record_errors"], message=r["msg"])


def fetch_obs(f):
    p = f["parts"][0]
    recs = p["records"] or b""
    return dict(top_error=f["err"], session_id=f["session_id"], error=p["err"], high_watermark=p["hwm"],
                last_stable=p["lso"], log_start=p["log_start"], aborted=p["aborted"], preferred_replica=p["pref"],
                batches=[list(b) for b in pfw.batch_offsets(recs)],
                records_sha256=hashlib.sha256(recs).hexdigest() if recs else None)


def lo_obs(lst):
    x = lst[0]
    return dict(error=x["err"], timestamp=x["ts"], offset=x["offset"], leader_epoch=x["epoch"])


# ====================================================================== scenarios
def s_apiversions(b):
    o = {}
    v3 = b.api_versions(3)
    o["v3"] = v3
    v4 = b.api_versions(4)
    o["v4"] = dict(error=v4["error"], same_apis_as_v3=v4["apis"] == v3["apis"],
                   supported_features=v4.get("supported_features"), finalized_features=v4.get("finalized_features"))
    bad = b.api_versions(127)
    o["v127_unsupported"] = dict(error=bad["error"], apiversions_entry=bad["apis"].get("18"))
    v0 = b.api_versions(0)
    o["v0"] = dict(error=v0["error"], same_apis_as_v3=v0["apis"] == v3["apis"])
    # v5 (KIP-1242): ClusterId/NodeId of the broker the client means; a mismatch is refused
    cid = b.metadata([])["cluster_id"]
    for name, c, n in (("v5_unset", None, -1), ("v5_match", cid, 1), ("v5_cluster_only", cid, -1),
                       ("v5_node_only", None, 1), ("v5_wrong_cluster", "AAAAAAAAAAAAAAAAAAAAAA", 1),
                       ("v5_wrong_node", cid, 7)):
        r = b.api_versions(5, c, n)
        o[name] = dict(error=r["error"], same_apis_as_v3=r["apis"] == v3["apis"],
                       apis_when_refused=r["apis"] if r["error"] else None,
                       has_features="finalized_features" in r)
    return o


def s_metadata(b):
    o = {}
    for name, n in (("diff-md3", 3), ("diff-md1", 1)):
        r = b.create1(name=name, partitions=n)
        o["create_" + name] = dict(error=r["error"], message=r["message"])
        o["ready_" + name] = b.wait_leader(name, n)
    md = b.metadata(["diff-md3", "diff-md1", "diff-md-unknown", "bad name!", "x" * 250, "..", ""], auto=True)
    ids = {t["name"]: t["topic_id"] for t in md["topics"]}
    o["named"] = by_name(md)
    o["empty_list"] = b.metadata([], auto=False)
    everything = b.metadata(None)
    o["all_topics"] = sorted([t["name"], t["internal"], t["error"]] for t in everything["topics"])
    with_ops = b.metadata(["diff-md1"], ops=True)
    o["authorized_ops"] = with_ops["topics"][0]["authorized_ops"]
    unknown = uuidmod.uuid4().hex
    by_id = b.metadata(ids=[bytes.fromhex(ids["diff-md1"]), bytes.fromhex(unknown)])
    o["by_id"] = {("diff-md1's id" if t["topic_id"] == ids["diff-md1"] else "a random id" if t["topic_id"] == unknown
                   else "other id"): dict(error=t["error"], name=t["name"], partitions=len(t["partitions"]))
                  for t in by_id["topics"]}
    o["named_auto_false"] = by_name(b.metadata(["diff-md-unknown"], auto=False))["topics"]
    return o


def by_name(md):
    """Topic order in a Metadata answer carries no meaning (Kafka's follows a hash set): key by name."""
    md = dict(md)
    md["topics"] = {"%s" % t["name"] if t["name"] is not None else "<null name>": t for t in md["topics"]}
    return md


def s_admin(b):
    o = {}
    o["validate_only"] = b.create1(name="diff-ct-v", partitions=2, configs={"retention.ms": "1000"},
                                   validate_only=True)
    o["validate_only_then_metadata"] = b.metadata(["diff-ct-v"])["topics"][0]["error"]
    o["rf3"] = b.create1(name="diff-ct-rf", partitions=1, rf=3)
    o["rf0"] = b.create1(name="diff-ct-rf0", partitions=1, rf=0)
    o["partitions0"] = b.create1(name="diff-ct-p0", partitions=0)
    o["partitions_neg2"] = b.create1(name="diff-ct-pn", partitions=-2)
    o["defaults"] = b.create1(name="diff-ct-def", partitions=-1, rf=-1)
    bad_cfgs = {
        "unknown_name": {"foo.bar": "1"},
        "not_a_number": {"retention.ms": "abc"},
        "below_min": {"segment.bytes": "100"},
        "bad_enum": {"message.timestamp.type": "Bogus"},
        "bad_cleanup": {"cleanup.policy": "bogus"},
        "negative_max_message": {"max.message.bytes": "-1"},
        "null_value": None,
    }
    for k, cfg in bad_cfgs.items():
        if cfg is None:
            # a config with a null value (CreateTopics allows a nullable value only in requests)
            t = (cstr("diff-ct-null") + i32(1) + i16(-1) + carr([], None) +
                 carr([("retention.ms", None)], lambda kv: cstr(kv[0]) + cstr(kv[1]) + TAGS) + TAGS)
            r = b.fc.call(19, 7, carr([t], lambda x: x) + i32(30000) + boolean(False) + TAGS)
            r.i32()
            res = r.carr(lambda r: (r.cstr(), hexid(r.uuid()), r.i16(), r.cstr()))
            o["config_" + k] = dict(error=res[0][2], message=res[0][3], topic_id=res[0][1])
            continue
        o["config_" + k] = b.create1(name="diff-ct-c-" + k.replace("_", "-"), configs=cfg)
    o["bad_name"] = b.create1(name="bad name!")
    o["long_name"] = b.create1(name="y" * 250)
    o["dot_name"] = b.create1(name=".")
    o["bad_assignment_broker"] = b.create1(name="diff-ct-asg", partitions=-1, rf=-1, assignments=[[7]])
    o["partitions_and_assignment"] = b.create1(name="diff-ct-asg2", partitions=2, rf=-1, assignments=[[1]])
    o["duplicate_in_request"] = b.create_topics([{"name": "diff-ct-dup"}, {"name": "diff-ct-dup"}])[1]
    first = b.create1(name="diff-ct-exists", partitions=3)
    o["create_ok"] = first
    b.wait_leader("diff-ct-exists", 3)
    o["existing"] = b.create1(name="diff-ct-exists")
    # DeleteTopics
    o["delete_unknown"] = b.delete_topics(["diff-ct-nope"])
    o["delete_unknown_id"] = b.delete_topics(ids=[uuidmod.UUID(int=12345).bytes])
    # CreatePartitions
    o["cp_decrease"] = b.create_partitions("diff-ct-exists", 2)
    o["cp_same"] = b.create_partitions("diff-ct-exists", 3)
    o["cp_validate"] = b.create_partitions("diff-ct-exists", 5, validate_only=True)
    o["cp_unknown"] = b.create_partitions("diff-ct-nope", 5)
    o["cp_increase"] = b.create_partitions("diff-ct-exists", 4)
    b.wait_leader("diff-ct-exists", 4)
    o["cp_partitions_after"] = len(b.metadata(["diff-ct-exists"])["topics"][0]["partitions"])
    # delete the existing one by name, then it is unknown
    o["delete_existing"] = b.delete_topics(["diff-ct-exists"])
    time.sleep(0.5)
    o["metadata_after_delete"] = b.metadata(["diff-ct-exists"])["topics"][0]["error"]
    return o


def s_produce(b):
    o = {}
    r = b.create1(name="diff-pf")
    o["create"] = dict(error=r["error"])
    o["ready"] = b.wait_leader("diff-pf")
    o["acks1"] = produce_obs(pfw.produce(b.cc, "diff-pf", pfw.batch([b"a0", b"a1", b"a2"],
                                                                    timestamps=[T0, T0 + 1, T0 + 2]), acks=1))
    o["acks_all"] = produce_obs(pfw.produce(b.cc, "diff-pf", pfw.batch([b"b3", b"b4"], timestamps=[T0 + 10, T0 + 5]),
                                            acks=-1))
    o["unknown_partition"] = produce_obs(pfw.produce(b.cc, "diff-pf", pfw.batch([b"z"], timestamps=[T0]), part=4))
    o["acks2"] = produce_obs(pfw.produce(b.cc, "diff-pf", pfw.batch([b"z"], timestamps=[T0]), acks=2))
    # confluent-kafka (librdkafka): idempotent producer, acks=all, then a consumer reads back
    try:
        from confluent_kafka import Consumer, Producer, TopicPartition
        b.create1(name="diff-ck")
        b.wait_leader("diff-ck")
        p = Producer({"bootstrap.servers": b.boot, "enable.idempotence": True, "acks": "all", "linger.ms": 0})
        got = []
        for i in range(5):
            p.produce("diff-ck", value=b"ck%d" % i, key=b"k", partition=0,
                      on_delivery=lambda err, m: got.append((str(err) if err else None, m.offset())))
            p.flush(15)
        o["ck_delivery"] = got
        c = Consumer({"bootstrap.servers": b.boot, "group.id": "diff-ck-g", "enable.auto.commit": False,
                      "auto.offset.reset": "earliest"})
        c.assign([TopicPartition("diff-ck", 0, 0)])
        seen, deadline = [], time.time() + 15
        while len(seen) < 5 and time.time() < deadline:
            m = c.poll(0.5)
            if m is not None and not m.error():
                seen.append([m.offset(), m.value().decode(), m.key().decode()])
        lo, hi = c.get_watermark_offsets(TopicPartition("diff-ck", 0), timeout=10)
        c.close()
        o["ck_consumed"] = seen
        o["ck_watermarks"] = [lo, hi]
    except Exception as e:  # noqa: BLE001 - recorded, shows up as a difference
        o["ck_exception"] = repr(e)
    # idempotent producer, raw frames
    r = b.create1(name="diff-idem")
    b.wait_leader("diff-idem")
    ip = b.init_pid()
    o["init_pid"] = dict(error=ip["error"], epoch=ip["producer_epoch"], pid_nonneg=ip["producer_id"] >= 0)
    pid = ip["producer_id"]

    def idem(tag, values, epoch, seq, ts=T0):
        o["idem_" + tag] = produce_obs(pfw.produce(b.cc, "diff-idem", pfw.batch(
            values, timestamps=[ts + i for i in range(len(values))], pid=pid, epoch=epoch, seq=seq), acks=-1))
    idem("seq0", [b"i0", b"i1"], 0, 0)
    idem("seq0_duplicate", [b"i0", b"i1"], 0, 0)
    idem("seq_gap", [b"i5"], 0, 5)
    idem("seq2", [b"i2"], 0, 2)
    idem("seq3", [b"i3", b"i4"], 0, 3)
    idem("seq0_old_duplicate", [b"i0", b"i1"], 0, 0)
    idem("seq2_duplicate_differs_in_count", [b"i2", b"i2b"], 0, 2)
    idem("seq4_overlap", [b"i4"], 0, 4)
    idem("epoch1_seq3", [b"e1"], 1, 3)
    idem("epoch1_seq0", [b"e1"], 1, 0)
    idem("stale_epoch0", [b"x"], 0, 5)
    idem("epoch1_seq1", [b"e1b"], 1, 1)
    upid = pid + 1000
    o["idem_unknown_pid_seq7"] = produce_obs(pfw.produce(b.cc, "diff-idem", pfw.batch(
        [b"u"], timestamps=[T0], pid=upid, epoch=0, seq=7), acks=-1))
    o["idem_latest"] = lo_obs(pfw.list_offsets(b.cc, "diff-idem", -1))
    return o


def s_fetch(b):
    o = {}
    c = b.cc
    for off in (0, 3, 5, 6, -1):
        o["fetch_%d" % off] = fetch_obs(pfw.fetch(c, "diff-pf", off))
    for name, ts in (("earliest", -2), ("latest", -1), ("max_timestamp", -3), ("ts_T0", T0), ("ts_T0+1", T0 + 1),
                     ("ts_T0+4", T0 + 4), ("ts_T0+6", T0 + 6), ("ts_T0+11", T0 + 11)):
        o["list_" + name] = lo_obs(pfw.list_offsets(c, "diff-pf", ts, version=8))
    o["list_v5_latest"] = lo_obs(pfw.list_offsets(c, "diff-pf", -1, version=5))
    o["list_v5_max_timestamp"] = lo_obs(pfw.list_offsets(c, "diff-pf", -3, version=5))
    o["list_unknown_partition"] = lo_obs(pfw.list_offsets(c, "diff-pf", -1, parts=(9,), version=8))
    o["list_unknown_topic"] = lo_obs(pfw.list_offsets(c, "diff-nope", -1, version=8))
    o["delete_records_2"] = pfw.delete_records(c, "diff-pf", 2)
    o["after_delete_earliest"] = lo_obs(pfw.list_offsets(c, "diff-pf", -2, version=8))
    o["after_delete_ts_T0"] = lo_obs(pfw.list_offsets(c, "diff-pf", T0, version=8))
    o["after_delete_max_timestamp"] = lo_obs(pfw.list_offsets(c, "diff-pf", -3, version=8))
    o["after_delete_fetch_1"] = fetch_obs(pfw.fetch(c, "diff-pf", 1))
    o["after_delete_fetch_2"] = fetch_obs(pfw.fetch(c, "diff-pf", 2))
    o["delete_records_beyond_hwm"] = pfw.delete_records(c, "diff-pf", 100)
    o["delete_records_backwards"] = pfw.delete_records(c, "diff-pf", 1)
    o["delete_records_minus1"] = pfw.delete_records(c, "diff-pf", -1)
    o["after_delete_all_earliest"] = lo_obs(pfw.list_offsets(c, "diff-pf", -2, version=8))
    o["after_delete_all_fetch_5"] = fetch_obs(pfw.fetch(c, "diff-pf", 5))
    o["delete_records_unknown_partition"] = pfw.delete_records(c, "diff-pf", 0, part=3)
    return o


TOPIC, BROKER = 2, 4


def s_configs(b):
    o = {}
    overrides = {"retention.ms": "86400000", "max.message.bytes": "2000000", "cleanup.policy": "delete",
                 "segment.bytes": "2097152", "message.timestamp.type": "LogAppendTime"}
    r = b.create1(name="diff-cfg", configs=overrides)
    o["create"] = r
    b.wait_leader("diff-cfg")
    o["describe_topic"] = b.describe_configs(TOPIC, "diff-cfg")
    o["describe_topic_keys"] = b.describe_configs(TOPIC, "diff-cfg", keys=["retention.ms", "no.such.key"])
    o["describe_topic_docs"] = b.describe_configs(TOPIC, "diff-cfg", keys=["retention.ms"], synonyms=False,
                                                  docs=True)
    o["describe_unknown_topic"] = b.describe_configs(TOPIC, "diff-cfg-nope")
    o["describe_broker"] = b.describe_configs(BROKER, "1")
    o["describe_broker_other_id"] = b.describe_configs(BROKER, "2")
    inc = {
        "set_retention": [("retention.ms", 0, "3600000")],
        "delete_max_message": [("max.message.bytes", 1, None)],
        "append_cleanup_compact": [("cleanup.policy", 2, "compact")],
        "subtract_cleanup_compact": [("cleanup.policy", 3, "compact")],
        "append_non_list": [("retention.ms", 2, "5")],
        "subtract_non_list": [("retention.ms", 3, "5")],
        "set_not_a_number": [("retention.ms", 0, "abc")],
        "set_below_min": [("segment.bytes", 0, "100")],
        "set_unknown": [("foo.bar", 0, "1")],
        "set_bad_enum": [("message.timestamp.type", 0, "Bogus")],
        "set_bad_cleanup": [("cleanup.policy", 0, "bogus")],
        "set_null": [("retention.ms", 0, None)],
        "bad_op": [("retention.ms", 9, "1")],
        "duplicate_key": [("retention.ms", 0, "1"), ("retention.ms", 0, "2")],
        "delete_unknown": [("foo.bar", 1, None)],
    }
    for k, ops in inc.items():
        o["inc_" + k] = b.incremental_alter(TOPIC, "diff-cfg", ops)
    o["inc_validate_only"] = b.incremental_alter(TOPIC, "diff-cfg", [("retention.ms", 0, "1")], validate_only=True)
    o["inc_unknown_topic"] = b.incremental_alter(TOPIC, "diff-cfg-nope", [("retention.ms", 0, "1")])
    keys = ["retention.ms", "max.message.bytes", "cleanup.policy", "segment.bytes", "message.timestamp.type"]
    o["after_incremental"] = b.describe_configs_until(
        TOPIC, "diff-cfg", keys, lambda c: c["retention.ms"]["value"] == "3600000" and
        c["max.message.bytes"]["source"] != 1)["configs"]
    o["alter_replace"] = b.alter_configs(TOPIC, "diff-cfg", {"retention.ms": "7200000"})
    o["after_alter"] = b.describe_configs_until(TOPIC, "diff-cfg", keys,
                                                lambda c: c["retention.ms"]["value"] == "7200000")["configs"]
    o["alter_not_a_number"] = b.alter_configs(TOPIC, "diff-cfg", {"retention.ms": "x"})
    o["alter_unknown_name"] = b.alter_configs(TOPIC, "diff-cfg", {"foo.bar": "1"})
    o["alter_validate_only"] = b.alter_configs(TOPIC, "diff-cfg", {"retention.ms": "5"}, validate_only=True)
    o["alter_unknown_topic"] = b.alter_configs(TOPIC, "diff-cfg-nope", {"retention.ms": "5"})
    o["after_failed_alters"] = b.describe_configs(TOPIC, "diff-cfg", keys=keys)["configs"]
    return o


def s_coordinator(b):
    o = {}
    for kt, keys in ((0, ["diff-group", "diff-group-2"]), (1, ["diff-txn"])):
        deadline, res = time.time() + 30, None
        while time.time() < deadline:
            res = b.find_coordinator(kt, keys)
            if all(x["error"] == 0 for x in res):
                break
            time.sleep(0.2)
        o["key_type_%d" % kt] = res
    o["key_type_bad"] = b.find_coordinator(9, ["x"])
    return o


SCENARIOS = [("apiversions", s_apiversions), ("metadata", s_metadata), ("admin", s_admin),
             ("produce", s_produce), ("fetch_list_offsets", s_fetch), ("configs", s_configs),
             ("find_coordinator", s_coordinator)]


def observe(boot, out_path):
    kdiff.observe(boot, out_path, SCENARIOS, lambda old: Broker(boot))


# ====================================================================== allow-list
# Kafka 4.4.0 APIs gregord does not implement (absent from gregord's ApiVersions: allowed).
# Reason per group in docs/compatibility-differential.md.
KAFKA_ONLY_APIS = {
    # streams groups (KIP-1071): not implemented
    88: "StreamsGroupHeartbeat", 89: "StreamsGroupDescribe", 93: "StreamsGroupTopologyDescriptionUpdate",
    # transactions: the coordinator APIs and DescribeProducers are served (docs/transactions.md);
    # WriteTxnMarkers is broker to broker (gregord writes markers in-process)
    27: "WriteTxnMarkers",
    # security: no delegation tokens
    38: "CreateDelegationToken", 39: "RenewDelegationToken", 40: "ExpireDelegationToken",
    41: "DescribeDelegationToken",
    # replication, log dirs, reassignment, quorum, features: one node, one replica, no KRaft quorum
    23: "OffsetForLeaderEpoch", 34: "AlterReplicaLogDirs", 35: "DescribeLogDirs", 43: "ElectLeaders",
    45: "AlterPartitionReassignments", 46: "ListPartitionReassignments", 55: "DescribeQuorum",
    64: "UnregisterBroker", 80: "AddRaftVoter", 81: "RemoveRaftVoter",
    94: "UnregisterController",
    # client metrics resources: not implemented
    74: "ListConfigResources",
    # share-group state RPCs (broker to share coordinator): gregord's share coordinator is in-process
    83: "InitializeShareGroupState", 84: "ReadShareGroupState", 85: "WriteShareGroupState",
    86: "DeleteShareGroupState", 87: "ReadShareGroupStateSummary",
}
# Kafka features gregord does not have (finalized or supported): no KRaft metadata log, no
# ELR, no streams groups.
KAFKA_ONLY_FEATURES = ["metadata.version", "kraft.version",
                       "eligible.leader.replicas.version", "streams.version"]
# Kafka topic configs gregord does not implement: tiered storage (KIP-405), and one new in
# Kafka 4.4.0 that is a known divergence (docs/compatibility.md): the per-record decompressed size cap.
KAFKA_ONLY_TOPIC_CONFIGS = ["local.retention.bytes", "local.retention.ms", "remote.log.copy.disable",
                            "remote.log.delete.on.disable", "remote.storage.enable",
                            "remote.copy.lag.bytes", "remote.copy.lag.ms",
                            "max.decompressed.message.bytes"]
# Kafka broker configs gregord does not implement or report (KRaft quorum internals, replication,
# security/SSL/SASL, quotas, log cleaner, tiered storage, transactions, consumer/streams groups,
# metrics, ...): 246 names in Kafka 4.4.0, taken from a real run (minus what gregord implements: the 4
# connection and request-memory limits, the 2 DLQ configs, the 6 classic-group/offset configs, the security keys).
KAFKA_ONLY_BROKER_CONFIGS = [
    'alter.config.policy.class.name', 'alter.log.dirs.replication.quota.window.num',
    'alter.log.dirs.replication.quota.window.size.seconds', 'authorizer.class.name',
    'auto.leader.rebalance.enable', 'background.threads', 'broker.heartbeat.interval.ms', 'broker.rack',
    'broker.session.timeout.ms', 'client.quota.callback.class', 'config.providers',
    'controlled.shutdown.enable',
    'controller.quorum.append.linger.ms', 'controller.quorum.auto.join.enable',
    'controller.quorum.election.backoff.max.ms', 'controller.quorum.election.timeout.ms',
    'controller.quorum.fetch.max.bytes', 'controller.quorum.fetch.snapshot.max.bytes',
    'controller.quorum.fetch.timeout.ms', 'controller.quorum.request.timeout.ms',
    'controller.quorum.retry.backoff.ms', 'controller.quota.window.num',
    'controller.quota.window.size.seconds', 'controller.socket.timeout.ms', 'cordoned.log.dirs',
    'create.topic.policy.class.name', 'delegation.token.expiry.check.interval.ms',
    'delegation.token.expiry.time.ms', 'delegation.token.max.lifetime.ms', 'delegation.token.secret.key',
    'delete.records.purgatory.purge.interval.requests', 'early.start.listeners',
    'fetch.purgatory.purge.interval.requests', 'follower.fetch.last.tiered.offset.enable',
    'group.coordinator.append.linger.ms', 'group.coordinator.background.threads',
    'group.coordinator.cached.buffer.max.bytes', 'group.coordinator.threads',
    'group.streams.assignment.interval.ms', 'group.streams.heartbeat.interval.ms',
    'group.streams.initial.rebalance.delay.ms', 'group.streams.max.assignment.interval.ms',
    'group.streams.max.heartbeat.interval.ms', 'group.streams.max.session.timeout.ms',
    'group.streams.max.size', 'group.streams.max.standby.replicas',
    'group.streams.min.assignment.interval.ms', 'group.streams.min.heartbeat.interval.ms',
    'group.streams.min.session.timeout.ms', 'group.streams.num.standby.replicas',
    'group.streams.session.timeout.ms', 'initial.broker.registration.timeout.ms',
    'kafka.metrics.polling.interval.secs', 'kafka.metrics.reporters',
    'leader.imbalance.check.interval.seconds', 'log.cleaner.backoff.ms', 'log.cleaner.dedupe.buffer.size',
    'log.cleaner.delete.retention.ms', 'log.cleaner.enable', 'log.cleaner.io.buffer.load.factor',
    'log.cleaner.io.buffer.size', 'log.cleaner.io.max.bytes.per.second',
    'log.cleaner.max.compaction.lag.ms', 'log.cleaner.min.cleanable.ratio',
    'log.cleaner.min.compaction.lag.ms', 'log.cleaner.threads', 'log.dir.failure.timeout.ms',
    'log.flush.offset.checkpoint.interval.ms', 'log.flush.start.offset.checkpoint.interval.ms',
    'log.local.retention.bytes', 'log.local.retention.ms', 'max.connection.creation.rate',
    'max.incremental.fetch.session.cache.slots', 'max.request.partition.size.limit', 'metadata.log.dir',
    'metadata.log.max.record.bytes.between.snapshots', 'metadata.log.max.snapshot.interval.ms',
    'metadata.log.segment.bytes', 'metadata.log.segment.ms', 'metadata.max.idle.interval.ms',
    'metadata.max.retention.bytes', 'metadata.max.retention.ms', 'metric.reporters', 'metrics.num.samples',
    'metrics.recording.level', 'metrics.sample.window.ms', 'num.replica.alter.log.dirs.threads',
    'num.replica.fetchers', 'offsets.commit.timeout.ms',
    'offsets.load.buffer.size', 
    'offsets.topic.compression.codec', 'offsets.topic.segment.bytes', 'principal.builder.class',
    'producer.purgatory.purge.interval.requests', 
    'queued.max.requests', 'quota.window.num', 'quota.window.size.seconds', 'remote.fetch.max.wait.ms',
    'remote.list.offsets.request.timeout.ms', 'remote.log.index.file.cache.total.size.bytes',
    'remote.log.manager.copier.thread.pool.size', 'remote.log.manager.copy.max.bytes.per.second',
    'remote.log.manager.copy.quota.window.num', 'remote.log.manager.copy.quota.window.size.seconds',
    'remote.log.manager.expiration.thread.pool.size', 'remote.log.manager.fetch.max.bytes.per.second',
    'remote.log.manager.fetch.quota.window.num', 'remote.log.manager.fetch.quota.window.size.seconds',
    'remote.log.manager.follower.thread.pool.size', 'remote.log.manager.task.interval.ms',
    'remote.log.manager.thread.pool.size', 'remote.log.metadata.custom.metadata.max.bytes',
    'remote.log.metadata.manager.class.name', 'remote.log.metadata.manager.class.path',
    'remote.log.metadata.manager.impl.prefix', 'remote.log.metadata.manager.listener.name',
    'remote.log.reader.max.pending.tasks', 'remote.log.reader.threads',
    'remote.log.storage.manager.class.name', 'remote.log.storage.manager.class.path',
    'remote.log.storage.manager.impl.prefix', 'remote.log.storage.system.enable',
    'replica.fetch.backoff.ms', 'replica.fetch.max.bytes', 'replica.fetch.min.bytes',
    'replica.fetch.response.max.bytes', 'replica.fetch.wait.max.ms',
    'replica.high.watermark.checkpoint.interval.ms', 'replica.lag.time.max.ms', 'replica.selector.class',
    'replica.socket.receive.buffer.bytes', 'replica.socket.timeout.ms', 'replication.quota.window.num',
    'replication.quota.window.size.seconds', 'request.timeout.ms', 'sasl.client.callback.handler.class',
    'sasl.kerberos.kinit.cmd',
    'sasl.kerberos.min.time.before.relogin', 'sasl.kerberos.principal.to.local.rules',
    'sasl.kerberos.service.name', 'sasl.kerberos.ticket.renew.jitter',
    'sasl.kerberos.ticket.renew.window.factor', 'sasl.login.callback.handler.class', 'sasl.login.class',
    'sasl.login.connect.timeout.ms', 'sasl.login.read.timeout.ms', 'sasl.login.refresh.buffer.seconds',
    'sasl.login.refresh.min.period.seconds', 'sasl.login.refresh.window.factor',
    'sasl.login.refresh.window.jitter', 'sasl.login.retry.backoff.max.ms', 'sasl.login.retry.backoff.ms',
    'sasl.mechanism.controller.protocol', 'sasl.mechanism.inter.broker.protocol',
    'sasl.oauthbearer.assertion.algorithm', 'sasl.oauthbearer.assertion.claim.aud',
    'sasl.oauthbearer.assertion.claim.exp.seconds', 'sasl.oauthbearer.assertion.claim.iss',
    'sasl.oauthbearer.assertion.claim.jti.include', 'sasl.oauthbearer.assertion.claim.nbf.seconds',
    'sasl.oauthbearer.assertion.claim.sub', 'sasl.oauthbearer.assertion.file',
    'sasl.oauthbearer.assertion.private.key.file', 'sasl.oauthbearer.assertion.private.key.passphrase',
    'sasl.oauthbearer.assertion.template.file', 'sasl.oauthbearer.client.credentials.client.id',
    'sasl.oauthbearer.client.credentials.client.secret', 'sasl.oauthbearer.clock.skew.seconds',
    'sasl.oauthbearer.expected.audience', 'sasl.oauthbearer.expected.issuer',
    'sasl.oauthbearer.jwks.endpoint.refresh.ms', 'sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms',
    'sasl.oauthbearer.jwks.endpoint.retry.backoff.ms', 'sasl.oauthbearer.jwks.endpoint.url',
    'sasl.oauthbearer.jwt.retriever.class', 'sasl.oauthbearer.jwt.validator.class',
    'sasl.oauthbearer.scope', 'sasl.oauthbearer.scope.claim.name', 'sasl.oauthbearer.sub.claim.name',
    'sasl.oauthbearer.token.endpoint.url', 'sasl.server.callback.handler.class',
    'security.inter.broker.protocol', 'security.providers',
    'share.coordinator.append.linger.ms', 'share.coordinator.cached.buffer.max.bytes',
    'share.coordinator.load.buffer.size', 'share.coordinator.state.topic.compression.codec',
    'socket.connection.setup.timeout.max.ms', 'socket.connection.setup.timeout.ms',
    'socket.listen.backlog.size', 'ssl.allow.dn.changes', 'ssl.allow.san.changes', 'ssl.cipher.suites',
    'ssl.client.auth', 'ssl.enabled.protocols', 'ssl.endpoint.identification.algorithm',
    'ssl.engine.factory.class', 'ssl.key.password', 'ssl.keymanager.algorithm',
    'ssl.keystore.certificate.chain', 'ssl.keystore.key', 'ssl.keystore.location', 'ssl.keystore.password',
    'ssl.keystore.type', 'ssl.principal.mapping.rules', 'ssl.protocol', 'ssl.provider',
    'ssl.secure.random.implementation', 'ssl.trustmanager.algorithm', 'ssl.truststore.certificates',
    'ssl.truststore.location', 'ssl.truststore.password', 'ssl.truststore.type', 'telemetry.max.bytes',
    'transaction.partition.verification.enable', 'transaction.two.phase.commit.enable',
    # new in Kafka 4.4.0: streams groups, tiered storage, the decompressed record cap
    # (docs/compatibility.md), SASL/OAUTHBEARER
    'group.streams.assignors', 'group.streams.rack.aware.assignment.tags',
    'group.streams.topology.description.plugin.class', 'log.remote.copy.lag.bytes', 'log.remote.copy.lag.ms',
    'max.decompressed.message.bytes', 'sasl.oauthbearer.allow.unverified.audience',
    'sasl.oauthbearer.allow.unverified.issuer',
]
# Compaction topic configs: Kafka lists a log.cleaner.* broker synonym; gregord has no log cleaner.
CLEANER_SYNONYM_CONFIGS = ["delete.retention.ms", "max.compaction.lag.ms", "min.cleanable.dirty.ratio",
                           "min.compaction.lag.ms"]
# Broker configs gregord reports read-only although Kafka can change them at run time: gregord
# cannot (one event-loop thread, listeners bound at start-up).
READ_ONLY_BY_DESIGN = ["listeners", "listener.security.protocol.map", "num.io.threads", "num.network.threads",
                       "num.recovery.threads.per.data.dir", "max.connections", "max.connections.per.ip",
                       "max.connections.per.ip.overrides", "sasl.enabled.mechanisms", "sasl.jaas.config"]
# Broker configs only gregord has (resource limits, docs/compatibility.md).
GREGORD_ONLY_BROKER_CONFIGS = ["group.share.max.groups", "socket.request.read.timeout.ms"]

# (path glob, rule, reason); the rules are listed in kdiff.py (this list uses ignore, shape, ref_only).
ALLOW = [
    ("metadata/*/cluster_id", "shape", "cluster ids are random per cluster: compared as 22-char strings"),
    ("*/topic_id", "shape", "topic ids are random: compared zero vs non-zero"),
    ("*/*/topic_id", "shape", "topic ids are random: compared zero vs non-zero"),
    ("metadata/named/topics/*/topic_id", "shape", "topic ids are random: compared zero vs non-zero"),
    ("metadata/*/brokers/*/port", "ignore", "each broker listens on its own ephemeral port"),
    ("metadata/*/controller_id", "ignore", "KRaft names a random live broker as controller; gregord names itself"),
    ("*/throttle_ms", "ignore", "throttle times depend on quotas and load, not on behaviour"),
    ("*/*/throttle_ms", "ignore", "throttle times depend on quotas and load, not on behaviour"),
    ("apiversions/v*/finalized_features_epoch", "shape", "the metadata-log offset of the last feature change"),
    ("find_coordinator/*/*/port", "ignore", "each broker listens on its own ephemeral port"),
    ("admin/*/configs/min.insync.replicas/source", "ignore",
     "Kafka 4.3 formats with ELR on and writes a cluster-level min.insync.replicas=1 (KIP-966): DYNAMIC_DEFAULT"),
    ("configs/*/configs/min.insync.replicas/source", "ignore", "as above (KIP-966 cluster default)"),
    ("configs/*/configs/min.insync.replicas/synonyms", "ignore", "as above: Kafka lists the cluster default too"),
    ("configs/describe_broker/configs/listeners/value", "ignore",
     "ports differ; Kafka also lists its CONTROLLER listener (gregord has no controller)"),
    ("configs/describe_broker/configs/listeners/synonyms/0/1", "ignore", "as above (ports, CONTROLLER listener)"),
    ("configs/describe_broker/configs/advertised.listeners/value", "ignore", "ports differ"),
    ("configs/describe_broker/configs/advertised.listeners/synonyms/0/1", "ignore", "ports differ"),
    ("configs/describe_broker/configs/controller.quorum.voters/value", "ignore", "controller port differs"),
    ("configs/describe_broker/configs/controller.quorum.voters/synonyms/0/1", "ignore", "controller port differs"),
    ("configs/describe_broker/configs/log.dirs/value", "ignore", "each broker has its own data directory"),
    ("configs/describe_broker/configs/log.dirs/synonyms/0/1", "ignore", "each broker has its own data directory"),
    ("configs/inc_append_cleanup_compact/error", "ignore",
     "gregord has no log compaction: cleanup.policy=compact is refused with INVALID_CONFIG (40)"),
    ("configs/inc_append_cleanup_compact/message", "ignore", "as above (compaction not supported)"),
    ("configs/inc_bad_op/error", "ignore",
     "unknown AlterConfigOp 9: Kafka fails internally (UNKNOWN_SERVER_ERROR -1), gregord answers INVALID_REQUEST"),
    ("configs/inc_bad_op/message", "ignore", "as above"),
    ("configs/describe_broker/configs/queued.max.request.bytes/value", "ignore",
     "gregord bounds request memory by default (104857600; Kafka -1: no bound), docs/compatibility.md"),
    ("configs/describe_broker/configs/queued.max.request.bytes/synonyms/0/1", "ignore", "as above (its default)"),
]


def allow_rules():
    rules = list(ALLOW)
    for f in KAFKA_ONLY_FEATURES:
        for kind in ("finalized_features", "supported_features"):
            rules.append(("apiversions/v*/%s/%s" % (kind, f), "ref_only", "Kafka-only feature (see the list)"))
    for cfg in CLEANER_SYNONYM_CONFIGS:
        rules.append(("configs/describe_topic/configs/%s/synonyms" % cfg, "ignore",
                      "Kafka's log.cleaner.* broker synonym: gregord has no log cleaner"))
    for cfg in READ_ONLY_BY_DESIGN:
        rules.append(("configs/describe_broker/configs/%s/read_only" % cfg, "ignore",
                      "gregord cannot change it at run time (one event-loop thread, listeners bound at start)"))
    for cfg in KAFKA_ONLY_TOPIC_CONFIGS:
        for where in ("admin/*/configs", "configs/describe_topic/configs", "configs/create/configs"):
            rules.append(("%s/%s" % (where, cfg), "ref_only", "Kafka-only topic config (see the list)"))
    for cfg in KAFKA_ONLY_BROKER_CONFIGS:
        rules.append(("configs/describe_broker/configs/%s" % cfg, "ref_only", "Kafka-only broker config"))
    for cfg in GREGORD_ONLY_BROKER_CONFIGS:
        rules.append(("configs/describe_broker/configs/%s" % cfg, "any", "gregord-only resource limit"))
    return rules


def api_diffs(ref, gre):
    """ApiVersions: every API gregord advertises must exist in Kafka with the same range."""
    out, explained = [], []
    ra, ga = ref.get("apis", {}), gre.get("apis", {})
    for k in sorted(set(ra) | set(ga), key=int):
        if k not in ga:
            if int(k) in KAFKA_ONLY_APIS:
                explained.append(("apiversions/v3/apis/%s" % k, ra[k], None,
                                  "Kafka-only API %s" % KAFKA_ONLY_APIS[int(k)]))
            else:
                out.append(("apiversions/v3/apis/%s" % k, ra[k], None, "missing in gregord (not in KAFKA_ONLY_APIS)"))
        elif k not in ra:
            out.append(("apiversions/v3/apis/%s" % k, None, ga[k], "gregord advertises an API Kafka does not"))
        elif ga[k] != ra[k]:
            what = "gregord advertises versions Kafka does not" if (ga[k][0] < ra[k][0] or ga[k][1] > ra[k][1]) \
                else "gregord advertises fewer versions than Kafka"
            out.append(("apiversions/v3/apis/%s" % k, ra[k], ga[k], what))
    return out, explained


def apiversions_first(name, a, b):
    """kdiff.diff's prepare: ApiVersions' API table is compared by api_diffs, the rest generically."""
    if name != "apiversions" or "v3" not in a or "v3" not in b:
        return a, b, [], []
    diffs, explained = api_diffs(a["v3"], b["v3"])
    a = dict(a, v3={k: v for k, v in a["v3"].items() if k != "apis"})
    b = dict(b, v3={k: v for k, v in b["v3"].items() if k != "apis"})
    return a, b, diffs, explained


def diff(ref_path, gre_path, report_path=None):
    return kdiff.diff(ref_path, gre_path, report_path, [n for n, _ in SCENARIOS], allow_rules(),
                      prepare=apiversions_first)


def print_allowlist():
    kdiff.print_allow(ALLOW)
    print("Kafka-only APIs:", ", ".join("%d %s" % kv for kv in sorted(KAFKA_ONLY_APIS.items())))
    print("Kafka-only topic configs:", ", ".join(KAFKA_ONLY_TOPIC_CONFIGS))
    print("Kafka-only broker configs:", ", ".join(KAFKA_ONLY_BROKER_CONFIGS))


if __name__ == "__main__":
    kdiff.main("differential.py", observe, diff, print_allowlist)
