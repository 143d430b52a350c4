#!/usr/bin/env python3
"""Share-group differential test: the same share-group scenarios against Apache Kafka and gregord.

  share_differential.py observe BOOTSTRAP OUT.json
        run every scenario against one broker and write what a client observes as JSON
        (raw values; only topic ids are replaced by topic names, so the file is evidence on its own).
  share_differential.py diff REF.json GREGORD.json [REPORT.txt]
        compare the two observations scenario by scenario; every difference must match an
        entry of ALLOW (path glob, rule, one-line reason; docs/compatibility-share.md lists
        them). Prints "ok   - <scenario>" / "FAIL - <scenario>" per scenario, the unexplained
        differences, then "diff summary: ..."; exit status 1 on any unexplained difference.
  share_differential.py allowlist
        print the allow-list (for docs/compatibility-share.md).

Scenarios (tests/integration/test_share_differential.sh starts both brokers with
group.share.min.record.lock.duration.ms=1000):
  join       ShareGroupHeartbeat until assigned (bounded), a second member, ShareGroupDescribe
  fetch_acks ShareFetch / ShareAcknowledge: AcquiredRecords, delivery counts, lock timeout,
             every ack misuse error, RELEASE / REJECT / lock expiry redelivery
  delivery_limit  share.delivery.count.limit=2: released twice -> archived, never redelivered
  lag        spec §6.3 example (lag 2) through DescribeShareGroupOffsets v1
  admin      ListGroups type/state filters, DeleteGroups, Alter/DeleteShareGroupOffsets,
             DescribeShareGroupOffsets / ShareGroupDescribe of unknown groups
Member ids are client-chosen (ShareGroupHeartbeat v1) and fixed, so they are the same on both
brokers. Requests are raw frames (kwire.py, share_coord_wire.py, share_fetch_wire.py).
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kdiff  # noqa: E402
import kwire as kw  # noqa: E402
import produce_fetch_wire as pfw  # noqa: E402
import share_coord_wire as scw  # noqa: E402
import share_fetch_wire as sfw  # noqa: E402

GAP, ACCEPT, RELEASE, REJECT, RENEW = 0, 1, 2, 3, 4
LOCK_MS = 5000  # generous: the reference JVM is slow under load, the scenario must finish well within a lock


class Ctx:
    def __init__(self, boot):
        self.boot = boot
        self.c = kw.Conn(boot, client_id="gr-sdiff")
        self.pc = pfw.Conn(boot)
        self.names = {}  # topic id bytes -> name

    def conn(self):
        return kw.Conn(self.boot, client_id="gr-sdiff")

    def coordinator(self, group, secs=40):
        """FindCoordinator v4 (GROUP) until it answers 0: Kafka creates __consumer_offsets on the
        first lookup and answers NOT_COORDINATOR (16) to group requests until it is loaded.
        Returns the last error code (0 expected on both brokers)."""
        deadline, err = time.time() + secs, None
        while time.time() < deadline:
            r = self.c.call(10, 4, kw.i8(0) + kw.carr([group], kw.cstr) + kw.TAGS)
            r.i32()
            res = r.carr(lambda r: (r.cstr(), r.i32(), r.cstr(), r.i32(), r.i16(), r.cstr(), r.tags())[:6])
            err = res[0][4]
            if err == 0:
                return err
            time.sleep(0.2)
        return err

    def topic(self, name, partitions=1):
        err, tid = kw.create_topic(self.c, name, partitions)
        self.names[bytes(tid)] = name
        # Apache Kafka needs a moment before it leads a new partition
        deadline = time.time() + 20
        while time.time() < deadline:
            if all(pfw.list_offsets(self.pc, name, -1, parts=(p,))[0]["err"] == 0 for p in range(partitions)):
                break
            time.sleep(0.1)
        return err, tid

    def produce(self, name, values):
        r = pfw.produce(self.pc, name, pfw.batch(values), acks=-1)
        return dict(error=r["err"], base_offset=r["base"])

    def tname(self, tid):
        return self.names.get(bytes(tid), "<unknown id>")

    def assignment(self, a):
        if a is None:
            return None
        return {self.tname(t): p for t, p in sorted(a.items())}


# ------------------------------------------------------------------ membership
def hb(ctx, c, group, member, epoch, topics=None):
    r = scw.hb(c, group, member, epoch, topics)
    return dict(error=r["err"], message=r["msg"], member_id=r["member"], member_epoch=r["epoch"],
                heartbeat_interval_ms=r["interval"], assignment=ctx.assignment(r["assignment"]))


def join(ctx, c, group, member, topics, want=1, secs=20):
    """Join (epoch 0), then heartbeat until the member holds `want` partitions (Kafka assigns
    on a later heartbeat, once the share state is initialized; gregord in the join answer)."""
    deadline = time.time() + secs
    while True:  # coordinator still loading (Kafka, right after start): retry as clients do
        first = hb(ctx, c, group, member, 0, topics)
        if first["error"] not in (14, 15, 16) or time.time() > deadline:
            break
        time.sleep(0.2)
    res, held, n = first, None, 1
    if first["assignment"] is not None:
        held = first["assignment"]
    while (res["error"] == 0 and sum(len(p) for p in (held or {}).values()) < want
           and time.time() < deadline):
        time.sleep(0.2)
        res = hb(ctx, c, group, member, res["member_epoch"])
        n += 1
        if res["assignment"] is not None:
            held = res["assignment"]
    return dict(first=first, last=res, assigned=held, heartbeats=n,
                first_assignment_empty=first["assignment"] in ({}, None) or
                all(not p for p in first["assignment"].values()))


def describe(ctx, c, groups):
    out = []
    for g in scw.sg_describe(c, groups):
        members = sorted(g["members"] or [], key=lambda m: m["id"])
        out.append(dict(error=g["err"], message=g["msg"], group_id=g["id"], state=g["state"],
                        group_epoch=g["epoch"], assignment_epoch=g["aepoch"], assignor=g["assignor"],
                        authorized_ops=g["ops"], member_count=len(members),
                        members=[dict(member_id=m["id"], rack=m["rack"], member_epoch=m["epoch"],
                                      client_id=m["client_id"], client_host=m["host"],
                                      subscribed=sorted(m["topics"] or []), assignment=m["assignment"],
                                      epoch_is_group_epoch=m["epoch"] == g["epoch"])
                                 for m in members],
                        assignment_epoch_is_group_epoch=g["aepoch"] == g["epoch"]))
    return out


# ------------------------------------------------------------------ share fetch / ack
class Member:
    def __init__(self, ctx, group, member, tid):
        self.ctx, self.group, self.member, self.tid = ctx, group, member, tid
        self.c = ctx.conn()
        self.epoch = 0

    def fetch(self, acks=None, epoch=None, ver=1, max_wait=0, **kw_):
        e = self.epoch if epoch is None else epoch
        r = sfw.share_fetch(self.c, self.group, self.member, e, [(self.tid, [(0, acks or [])])], ver=ver,
                            max_wait=max_wait, **kw_)
        if epoch is None and r["err"] == 0:
            self.epoch = -1 if e == -1 else e + 1
        return self.obs_fetch(r)

    def fetch_send(self, ver=1, max_wait=0, **kw_):
        """Sends a ShareFetch without reading the answer (a fetch left waiting): fetch_recv reads it."""
        body = sfw.share_fetch_body(self.group, self.member, self.epoch, [(self.tid, [(0, [])])], ver=ver,
                                    max_wait=max_wait, **kw_)
        self.c.send(78, ver, body, True)

    def fetch_recv(self):
        r = sfw.parse_fetch(self.c.recv(True))
        if r["err"] == 0:
            self.epoch += 1
        return self.obs_fetch(r)

    def ack(self, batches, epoch=None, ver=1, renew=False):
        e = self.epoch if epoch is None else epoch
        a = sfw.share_ack(self.c, self.group, self.member, e, [(self.tid, [(0, batches)])], renew=renew, ver=ver)
        if epoch is None and a["err"] == 0:
            self.epoch = e + 1
        parts = {"%s-%d" % (self.ctx.tname(t), p): v for (t, p), v in sorted(a["parts"].items())}
        return dict(error=a["err"], message=a["msg"], partitions=parts)

    def obs_fetch(self, r):
        parts = {}
        for (t, p), v in sorted(r["parts"].items()):
            recs = v["records"]
            parts["%s-%d" % (self.ctx.tname(t), p)] = dict(
                error=v["err"], message=v["msg"], ack_error=v["ack_err"], ack_message=v["ack_msg"],
                leader=list(v["leader"]), acquired=[list(x) for x in v["acquired"] or []],
                delivery_counts={str(o): n for f, l, n in v["acquired"] or [] for o in range(f, l + 1)},
                records_null=recs is None,
                record_batches=[list(b) for b in pfw.batch_offsets(recs)] if recs else [])
        return dict(error=r["err"], message=r["msg"], lock_ms=r["lock_ms"], partitions=parts)

    def acquired_retry(self, secs=10, **kw_):
        """First fetches of a fresh share-partition: Kafka may answer before it has loaded the state."""
        deadline = time.time() + secs
        while True:
            r = self.fetch(max_wait=1000, **kw_)
            p = r["partitions"].get("%s-0" % self.ctx.tname(self.tid))
            if r["error"] or (p and p["acquired"]) or time.time() > deadline:
                return r


def set_configs(c, group, cfg):
    err, msg = sfw.set_group_configs(c, group, cfg)
    return dict(error=err, message=msg)


# ====================================================================== scenarios
def s_join(ctx):
    o = {}
    err, _ = ctx.topic("sdiff-join", 3)
    o["create_topic"] = err
    g = "sdiff-join-g"
    c1, c2 = ctx.conn(), ctx.conn()
    o["join_a"] = join(ctx, c1, g, "sdiff-member-a", ["sdiff-join"], want=3)
    o["describe_one_member"] = describe(ctx, ctx.c, [g])
    o["join_b"] = join(ctx, c2, g, "sdiff-member-b", ["sdiff-join"], want=1)
    # member a heartbeats until the group is rebalanced onto both members
    ea, deadline, la = o["join_a"]["last"]["member_epoch"], time.time() + 15, None
    while time.time() < deadline:
        la = hb(ctx, c1, g, "sdiff-member-a", ea)
        ea = la["member_epoch"]
        if la["assignment"] is not None and la["error"] == 0:
            break
        time.sleep(0.2)
    o["a_after_b_joined"] = la
    time.sleep(0.5)
    d = describe(ctx, ctx.c, [g])
    o["describe_two_members"] = d
    if d and d[0]["members"]:
        parts = sorted(p for m in d[0]["members"] for ps in m["assignment"].values() for p in ps)
        o["two_members_partitions_covered"] = sorted(set(parts))
        o["two_members_sizes"] = sorted(sum(len(ps) for ps in m["assignment"].values()) for m in d[0]["members"])
    o["heartbeat_unknown_member"] = hb(ctx, c1, g, "sdiff-member-x", 1)
    o["heartbeat_fenced_epoch"] = hb(ctx, c1, g, "sdiff-member-a", ea + 5)
    o["leave_a"] = hb(ctx, c1, g, "sdiff-member-a", -1)
    o["leave_b"] = hb(ctx, c2, g, "sdiff-member-b", -1)
    o["describe_after_leave"] = describe(ctx, ctx.c, [g])
    o["describe_unknown_group"] = describe(ctx, ctx.c, ["sdiff-no-such-group"])
    return o


def fetch_setup(ctx, o, group, cfg, topic="sdiff-fa"):
    o["group_configs"] = set_configs(ctx.c, group, cfg)
    jc = ctx.conn()
    j = join(ctx, jc, group, "sdiff-hb-" + group, [topic], want=1)
    o["join_assigned"] = j["assigned"]
    return jc


def s_fetch_acks(ctx):
    o = {}
    err, tid = ctx.topic("sdiff-fa")
    o["create_topic"] = err
    o["produce_batch1"] = ctx.produce("sdiff-fa", [b"r%d" % i for i in range(5)])
    o["produce_batch2"] = ctx.produce("sdiff-fa", [b"r%d" % i for i in range(5, 10)])
    g = "sdiff-fa-g"
    fetch_setup(ctx, o, g, {"share.auto.offset.reset": "earliest", "share.record.lock.duration.ms": LOCK_MS})
    m = Member(ctx, g, "sdiff-fa-m1", tid)
    m2 = Member(ctx, g, "sdiff-fa-m2", tid)
    o["fetch_epoch0_with_acks"] = m.fetch(acks=[(0, 0, [ACCEPT])], epoch=0)
    o["fetch_unknown_session_epoch3"] = m.fetch(epoch=3)
    o["fetch_epoch0"] = m.acquired_retry()
    o["m2_fetch_epoch0"] = m2.fetch(max_wait=200)
    o["ack_not_acquired_by_member"] = m2.ack([(2, 2, [ACCEPT])])
    o["ack_accept_5"] = m.ack([(5, 5, [ACCEPT])])
    o["ack_twice_5"] = m.ack([(5, 5, [ACCEPT])])
    o["ack_beyond_speo"] = m.ack([(20, 22, [ACCEPT])])
    o["ack_first_gt_last"] = m.ack([(3, 2, [ACCEPT])])
    o["ack_type4_v1"] = m.ack([(3, 3, [RENEW])])
    o["ack_type4_v1_piggybacked"] = m.fetch(acks=[(3, 3, [RENEW])], max_wait=0)
    o["ack_stale_epoch"] = m.ack([(3, 3, [ACCEPT])], epoch=m.epoch - 1)
    o["fetch_stale_epoch"] = m.fetch(epoch=m.epoch - 1)
    o["ack_epoch0"] = m.ack([(3, 3, [ACCEPT])], epoch=0)
    o["ack_unknown_session"] = sfw.share_ack(m.c, g, "sdiff-fa-nobody", 1, [(tid, [(0, [(3, 3, [ACCEPT])])])])["err"]
    o["release_1_2_piggybacked"] = m.fetch(acks=[(1, 2, [RELEASE])], max_wait=1000)
    o["reject_3"] = m.ack([(3, 3, [REJECT])])
    o["fetch_after_reject"] = m.fetch(max_wait=300)
    time.sleep(LOCK_MS / 1000 + 0.7)
    o["ack_after_lock_expired"] = m.ack([(4, 4, [ACCEPT])])
    o["fetch_after_lock_expiry"] = m.fetch(max_wait=1000)
    acq = [x for p in o["fetch_after_lock_expiry"]["partitions"].values() for x in p["acquired"]]
    o["accept_all_redelivered"] = m.ack([(f, l, [ACCEPT]) for f, l, _n in acq]) if acq else None
    o["fetch_nothing_left"] = m.fetch(max_wait=300)
    o["close_session"] = m.fetch(epoch=-1)
    o["fetch_after_close"] = m.fetch(epoch=1)
    return o


def s_delivery_limit(ctx):
    o = {}
    g = "sdiff-lim-g"
    tid = next(t for t, n in ctx.names.items() if n == "sdiff-fa")
    fetch_setup(ctx, o, g, {"share.auto.offset.reset": "earliest", "share.delivery.count.limit": "2"})
    o["limit_below_broker_min"] = set_configs(ctx.c, "sdiff-lim-other", {"share.delivery.count.limit": "1"})
    m = Member(ctx, g, "sdiff-lim-m", tid)
    o["fetch_1"] = m.acquired_retry()
    o["release_all_1"] = m.fetch(acks=[(0, 9, [RELEASE])], max_wait=1000)
    o["release_all_2"] = m.fetch(acks=[(0, 9, [RELEASE])], max_wait=500)
    o["fetch_after_archival"] = m.fetch(max_wait=500)
    o["ack_archived"] = m.ack([(0, 0, [ACCEPT])])
    time.sleep(0.3)
    err, msg, parts = scw.describe_offsets(ctx.c, g, {"sdiff-fa": [0]})
    o["offsets_after_archival"] = dict(error=err, message=msg, partitions={
        "%s-%d" % k: dict(start=v["start"], leader_epoch=v["leader_epoch"], lag=v["lag"], error=v["err"])
        for k, v in sorted(parts.items())})
    return o


def s_lag(ctx):
    o = {}
    g = "sdiff-lag-g"
    tid = next(t for t, n in ctx.names.items() if n == "sdiff-fa")
    fetch_setup(ctx, o, g, {"share.auto.offset.reset": "earliest"})

    def offs():
        err, msg, parts = scw.describe_offsets(ctx.c, g, None)
        return dict(error=err, message=msg, partitions={
            "%s-%d" % k: dict(start=v["start"], leader_epoch=v["leader_epoch"], lag=v["lag"], error=v["err"],
                              message=v["msg"])
            for k, v in sorted(parts.items())})
    o["offsets_before_fetch"] = offs()
    m = Member(ctx, g, "sdiff-lag-m", tid)
    o["fetch"] = m.acquired_retry()
    o["ack"] = m.ack([(0, 3, [ACCEPT]), (4, 5, [RELEASE]), (6, 9, [ACCEPT])])
    time.sleep(0.3)
    o["offsets_after_acks"] = offs()
    o["offsets_named_partition"] = scw.describe_offsets(ctx.c, g, {"sdiff-fa": [0]})[2].get(("sdiff-fa", 0), {}).get("lag")
    o["offsets_unknown_topic"] = {"%s-%d" % k: dict(start=v["start"], lag=v["lag"], error=v["err"],
                                                    topic_id_zero=v["topic_id"] == kw.ZERO_UUID)
                                  for k, v in scw.describe_offsets(ctx.c, g, {"sdiff-nope": [0]})[2].items()}
    o["release_redelivered"] = m.fetch(max_wait=1000)
    o["accept_4_5"] = m.ack([(4, 5, [ACCEPT])])
    time.sleep(0.3)
    o["offsets_all_acked"] = offs()
    return o


def s_admin(ctx):
    o = {}
    err, _ = ctx.topic("sdiff-adm")
    o["create_topic"] = err
    g = "sdiff-adm-g"
    c = ctx.conn()
    j = join(ctx, c, g, "sdiff-adm-m", ["sdiff-adm"], want=1)
    o["join_assigned"] = j["assigned"]
    ours = ("sdiff-adm-g", "sdiff-join-g", "sdiff-fa-g", "sdiff-lim-g", "sdiff-lag-g", "sdiff-adm-empty")

    def lg(states=(), types=()):
        err, groups = scw.list_groups(ctx.c, states, types)
        return dict(error=err, groups={k: v for k, v in sorted(groups.items()) if k in ours})
    o["list_type_share"] = lg(types=["share"])
    o["list_type_consumer"] = lg(types=["consumer"])
    o["list_state_stable_share"] = lg(states=["stable"], types=["share"])
    o["list_state_empty_share"] = lg(states=["empty"], types=["share"])
    # group configs outside the broker's group.share.min/max.* bounds (validateOnly): the messages
    # changed in Kafka 4.4.0 ("... must be in the range MIN to MAX inclusive.")
    for name, vals in (("share.session.timeout.ms", ("44000", "61000")),
                       ("share.heartbeat.interval.ms", ("4000", "16000")),
                       ("share.record.lock.duration.ms", ("14000", "61000")),
                       ("share.delivery.count.limit", ("11",)),
                       ("share.partition.max.record.locks", ("100000",))):
        for v in vals:
            o["group_config_bounds %s=%s" % (name, v)] = list(
                scw.incr_alter_group_configs(ctx.c, g, [(name, 0, v)], validate_only=True))
    o["delete_group_with_members"] = scw.delete_groups(ctx.c, [g])
    o["delete_group_with_members_v3"] = scw.delete_groups_v3(ctx.c, [g, "", "sdiff-no-such-group"])
    o["alter_offsets_with_members"] = list(scw.alter_offsets(ctx.c, g, {"sdiff-adm": {0: 0}}))
    o["delete_offsets_with_members"] = list(scw.delete_offsets(ctx.c, g, ["sdiff-adm"]))
    o["leave"] = hb(ctx, c, g, "sdiff-adm-m", -1)
    time.sleep(0.3)
    o["describe_after_leave"] = describe(ctx, ctx.c, [g])
    o["list_after_leave"] = lg(types=["share"])
    o["alter_offsets_unknown_topic"] = list(scw.alter_offsets(ctx.c, g, {"sdiff-nope": {0: 0}}))
    o["alter_offsets_unknown_partition"] = list(scw.alter_offsets(ctx.c, g, {"sdiff-adm": {5: 0}}))
    o["alter_offsets_ok"] = list(scw.alter_offsets(ctx.c, g, {"sdiff-adm": {0: 0}}))
    err, msg, parts = scw.describe_offsets(ctx.c, g, None)
    o["describe_offsets_after_alter"] = dict(error=err, message=msg, partitions={
        "%s-%d" % k: dict(start=v["start"], lag=v["lag"], error=v["err"]) for k, v in sorted(parts.items())})
    o["delete_offsets_unknown_topic"] = list(scw.delete_offsets(ctx.c, g, ["sdiff-nope"]))
    o["delete_offsets_ok"] = list(scw.delete_offsets(ctx.c, g, ["sdiff-adm"]))
    err, msg, parts = scw.describe_offsets(ctx.c, g, None)
    o["describe_offsets_after_delete"] = dict(error=err, message=msg, partitions={
        "%s-%d" % k: dict(start=v["start"], lag=v["lag"], error=v["err"]) for k, v in sorted(parts.items())})
    err, msg, parts = scw.describe_offsets(ctx.c, "sdiff-no-such-group", {"sdiff-adm": [0]})
    o["describe_offsets_unknown_group"] = dict(error=err, message=msg, partitions={
        "%s-%d" % k: dict(start=v["start"], leader_epoch=v["leader_epoch"], lag=v["lag"], error=v["err"],
                          message=v["msg"]) for k, v in sorted(parts.items())})
    o["alter_offsets_absent_group"] = list(scw.alter_offsets(ctx.c, "sdiff-adm-empty", {"sdiff-adm": {0: 0}}))
    o["list_absent_group_created"] = lg(types=["share"])
    o["delete_offsets_unknown_group"] = list(scw.delete_offsets(ctx.c, "sdiff-no-such-group", ["sdiff-adm"]))
    o["delete_group_after_leave"] = scw.delete_groups(ctx.c, [g])
    o["delete_group_again"] = scw.delete_groups(ctx.c, [g])
    o["delete_group_again_v3"] = scw.delete_groups_v3(ctx.c, [g])
    o["describe_after_delete"] = describe(ctx, ctx.c, [g])
    return o


SCENARIOS = [("find_coordinator", None), ("join", s_join), ("fetch_acks", s_fetch_acks), ("delivery_limit", s_delivery_limit),
             ("lag", s_lag), ("admin", s_admin)]


def jsonable(v):
    if isinstance(v, (bytes, bytearray)):
        return v.hex()
    if isinstance(v, tuple):
        return [jsonable(x) for x in v]
    if isinstance(v, list):
        return [jsonable(x) for x in v]
    if isinstance(v, dict):
        return {(k if isinstance(k, str) else "%s-%s" % k if isinstance(k, tuple) else str(k)): jsonable(x)
                for k, x in v.items()}
    return v


def observe(boot, out_path):
    def fresh(old):
        ctx = Ctx(boot)
        if old:
            ctx.names = old.names
        return ctx

    kdiff.observe(boot, out_path, SCENARIOS, fresh, convert=jsonable,
                  start=lambda ctx: {"find_coordinator": {"error": ctx.coordinator("sdiff-join-g")}})


# ====================================================================== allow-list
# (path glob, rule, reason); the rules are listed in kdiff.py.
ALLOW = [
    ("join/join_*/first/assignment*", "any",
     "gregord assigns in the join answer, Kafka on a later heartbeat once the share state is initialized "
     "(docs/compatibility.md); the scenario heartbeats until both assign and compares join_*/assigned"),
    ("join/join_*/first_assignment_empty", "ignore", "as above (assignment in the join answer)"),
    ("join/join_*/first/member_epoch", "ignore", "as above: Kafka bumps the epoch again when the partitions "
     "are initialized; gregord's join already includes them"),
    ("join/join_*/heartbeats", "ignore", "as above: Kafka needs more heartbeats before it assigns"),
    ("join/join_*/last/member_epoch", "shape", "epoch values depend on when initialization bumps the group "
     "epoch (assignment timing, see above); compared as positive"),
    ("join/join_*/last/assignment*", "any", "as above: null (unchanged) or the full assignment depending "
     "on which heartbeat carried it; the assigned partitions are compared in join_*/assigned"),
    ("*/describe_*/*/group_epoch", "shape", "epoch values depend on the assignment timing (see above)"),
    ("*/describe_*/*/assignment_epoch", "shape", "epoch values depend on the assignment timing (see above)"),
    ("*/describe_*/*/members/*/member_epoch", "shape", "epoch values depend on the assignment timing"),
    ("join/a_after_b_joined/member_epoch", "shape", "epoch values depend on the assignment timing"),
    ("join/join_b/assigned/*", "ignore", "which of the 3 partitions each of 2 members gets varies between "
     "Kafka runs (a=[0,2] b=[1] or a=[0,1] b=[2]); spec 4.4 asks for the properties only: "
     "two_members_sizes and two_members_partitions_covered are compared exactly"),
    ("join/a_after_b_joined/assignment/*", "ignore", "as above (2-member split varies in Kafka)"),
    ("join/describe_two_members/*/members/*/assignment/*", "ignore", "as above (2-member split varies in Kafka)"),
    ("join/heartbeat_fenced_epoch/message", "digits",
     "the message quotes both member epochs, whose values depend on the assignment timing"),
    ("*/offsets_*/partitions/*/start", "not_behind",
     "Kafka persists the advanced SPSO lazily, with the next state write (spec 1.7), so its StartOffset is one "
     "write behind; gregord persists it with the acknowledgement. Lag is compared exactly"),
    ("*/throttle_ms", "ignore", "throttle times depend on quotas and load"),
]


def diff(ref_path, gre_path, report_path=None):
    return kdiff.diff(ref_path, gre_path, report_path, [n for n, _ in SCENARIOS], ALLOW, allowed_values=True)


def print_allowlist():
    kdiff.print_allow(ALLOW)


if __name__ == "__main__":
    kdiff.main("share_differential.py", observe, diff, print_allowlist)
