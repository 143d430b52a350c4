"""The scenarios of share_coord_wire.py (see its docstring). w is the request module."""
import time
import uuid

NONE, UNKNOWN_TOPIC, INVALID_CONFIG, INVALID_REQUEST, INVALID_GROUP_ID = 0, 3, 40, 42, 24
UNKNOWN_MEMBER, NON_EMPTY, NOT_FOUND, MAX_SIZE, FENCED = 25, 68, 69, 81, 110


def mid():
    return uuid.uuid4().hex[:22]


def check_api_versions(w, c):
    err, keys = w.api_versions(c)
    want = {76: (1, 1), 77: (1, 1), 90: (0, 1), 91: (0, 0), 92: (0, 0), 16: (0, 5), 42: (0, 2), 15: (0, 5)}
    for k, (lo, hi) in want.items():
        got = keys.get(k)
        w.check("ApiVersions advertises key %d %d-%d" % (k, lo, hi),
                got is not None and got[0] <= lo and got[1] >= hi, repr(got))


def check_heartbeat_errors(w, c, t):
    # KafkaApis refuses an empty or longer than 36 member id with the code alone; the
    # coordinator refuses a blank one with its message.
    r = w.hb(c, "g-main", "", 0, [t])
    w.check("heartbeat: empty MemberId -> 42 (no message)", r["err"] == INVALID_REQUEST and r["msg"] is None, r)
    r = w.hb(c, "g-main", "m" * 37, 0, [t])
    w.check("heartbeat: MemberId of 37 characters -> 42", r["err"] == INVALID_REQUEST and r["msg"] is None, r)
    r = w.hb(c, "g-main", " ", 0, [t])
    w.check("heartbeat: blank MemberId -> 42 MemberId can't be empty.",
            r["err"] == INVALID_REQUEST and r["msg"] == "MemberId can't be empty.", r)
    r = w.hb(c, "g-main", mid(), 0, None)
    w.check("heartbeat: join without subscription -> 42", r["err"] == INVALID_REQUEST, r)
    r = w.hb(c, "g-nope", mid(), 3)
    w.check("heartbeat: unknown group with epoch > 0 -> 69", r["err"] == NOT_FOUND, r)


def check_membership(w, c, t):
    m1, m2, m3 = mid(), mid(), mid()
    r1 = w.join_until_assigned(c, "g-main", m1, [t], 3)
    w.check("join: no error, member epoch > 0", r1["err"] == NONE and r1["epoch"] > 0, r1)
    w.check("join: default heartbeat interval 5000", r1["first"]["interval"] == 5000, r1["first"])
    w.check("join: the answer to epoch 0 carries an assignment", r1["first"]["assignment"] is not None)
    w.check("join: all 3 initialized partitions assigned to the only member", r1["held"] == 3, r1)
    r = w.hb(c, "g-main", m1, r1["epoch"] + 1)
    w.check("heartbeat: epoch ahead of the member -> 110", r["err"] == FENCED, r)
    r = w.hb(c, "g-main", mid(), 7)
    w.check("heartbeat: unknown member -> 25", r["err"] == UNKNOWN_MEMBER, r)
    r2 = w.join_until_assigned(c, "g-main", m2, [t], 1)
    w.check("second member joins and gets partitions", r2["err"] == NONE and r2["held"] >= 1, r2)
    r = w.hb(c, "g-main", m3, 0, [t])
    w.check("third member with group.share.max.size=2 -> 81", r["err"] == MAX_SIZE, r)
    r = w.hb(c, "g-main", m1, r1["epoch"])
    w.check("heartbeat at the previous epoch is accepted", r["err"] == NONE, r)
    e = w.incr_alter_group_configs(c, "g-main", [("share.heartbeat.interval.ms", 0, "6000")])
    w.check("set share.heartbeat.interval.ms=6000", e[0] == NONE, e)
    r = w.hb(c, "g-main", m2, r2["epoch"])
    w.check("heartbeat interval follows the group config", r["err"] == NONE and r["interval"] == 6000, r)
    return (m1, r1), (m2, r2)


def check_describe_list(w, c, t, m1, m2):
    d = w.sg_describe(c, ["g-main", "g-none", ""])
    g = d[0]
    w.check("ShareGroupDescribe: Stable, 2 members, assignor simple",
            g["err"] == NONE and g["state"] == "Stable" and len(g["members"]) == 2 and g["assignor"] == "simple", g)
    mem = {m["id"]: m for m in g["members"]}
    parts = sorted(p for m in g["members"] for p in m["assignment"].get(t, []))
    w.check("ShareGroupDescribe: members and their partitions cover the topic",
            set(mem) == {m1, m2} and set(parts) == {0, 1, 2}, g)
    w.check("ShareGroupDescribe: client host /127.0.0.1, client id, topics",
            mem[m1]["host"] == "/127.0.0.1" and mem[m1]["client_id"] == "kwire-test" and mem[m1]["topics"] == [t])
    w.check("ShareGroupDescribe: unknown group -> 69 'Group g-none not found.'",
            d[1]["err"] == NOT_FOUND and d[1]["msg"] == "Group g-none not found.", d[1])
    w.check("ShareGroupDescribe: empty id -> 24", d[2]["err"] == INVALID_GROUP_ID, d[2])
    _e, gs = w.list_groups(c, types=["share"])
    w.check("ListGroups types=[share] lists g-main as share/Stable",
            gs.get("g-main") == dict(protocol="share", state="Stable", type="share"), gs)
    _e, gs = w.list_groups(c, types=["consumer"])
    w.check("ListGroups types=[consumer] hides share groups", "g-main" not in gs, gs)
    _e, gs = w.list_groups(c, states=["stable"])
    w.check("ListGroups states=[stable] (lower case) lists g-main", "g-main" in gs, gs)
    _e, gs = w.list_groups(c, states=["empty"])
    w.check("ListGroups states=[empty] hides g-main", "g-main" not in gs, gs)
    d5 = w.describe_groups(c, ["g-main"], 5)[0]
    w.check("DescribeGroups v5 on a share group: Dead, no error", d5["err"] == NONE and d5["state"] == "Dead", d5)
    d6 = w.describe_groups(c, ["g-main", "g-none"], 6)
    w.check("DescribeGroups v6 on a share group -> 69 'is not a classic group.'",
            d6[0]["err"] == NOT_FOUND and d6[0]["msg"] == "Group g-main is not a classic group.", d6[0])
    w.check("DescribeGroups v6 unknown -> 69", d6[1]["err"] == NOT_FOUND, d6[1])


def check_nonempty_errors(w, c, t):
    r = w.delete_groups(c, ["g-main", "g-none"])
    w.check("DeleteGroups with members -> 68", r.get("g-main") == NON_EMPTY, r)
    w.check("DeleteGroups unknown -> 69", r.get("g-none") == NOT_FOUND, r)
    err, msg, parts = w.alter_offsets(c, "g-main", {t: {0: 0}})
    # Kafka 4.4.0: top-level 68 "The group is not empty." and an empty Responses list
    w.check("AlterShareGroupOffsets with members -> 68, no partitions listed",
            err == NON_EMPTY and msg == "The group is not empty." and parts == {}, (err, msg, parts))
    err, msg, _ = w.delete_offsets(c, "g-main", [t])
    w.check("DeleteShareGroupOffsets with members -> 68", err == NON_EMPTY, (err, msg))
    err, _m, offs = w.describe_offsets(c, "g-main", None)
    w.check("DescribeShareGroupOffsets (all): the 3 initialized partitions, never persisted -> -1",
            err == NONE and sorted(offs) == [(t, 0), (t, 1), (t, 2)] and
            all(o["start"] == -1 and o["lag"] == -1 for o in offs.values()), (err, offs))
    err, _m, offs = w.describe_offsets(c, "g-main", {"no-such-topic": [0]})
    o = offs.get(("no-such-topic", 0), {})
    w.check("DescribeShareGroupOffsets: unknown topic -> -1, zero topic id, no error",
            err == NONE and o.get("start") == -1 and o.get("err") == 0 and o.get("topic_id") == w.ZERO_UUID, o)
    err, _m, offs = w.describe_offsets(c, "g-none", {t: [0]})
    w.check("DescribeShareGroupOffsets: unknown group -> -1, no error",
            err == NONE and offs[(t, 0)]["start"] == -1, (err, offs))


def check_offsets_empty_group(w, c, t, members):
    for m, r in members:
        x = w.hb(c, "g-main", m, -1)
        w.check("leave (epoch -1) -> epoch -1", x["err"] == NONE and x["epoch"] == -1, x)
    w.check("group is Empty after both left", w.sg_describe(c, ["g-main"])[0]["state"] == "Empty")
    w.check("produce 10 records to %s-0" % t, w.produce(c, t, 10) == NONE)
    err, msg, parts = w.alter_offsets(c, "g-main", {t: {0: 4, 7: 0}, "no-such-topic": {0: 0}})
    w.check("AlterShareGroupOffsets on the empty group: partition ok",
            err == NONE and parts.get((t, 0)) == NONE, (err, msg, parts))
    w.check("AlterShareGroupOffsets: unknown partition -> 3, unknown topic -> 3",
            parts.get((t, 7)) == UNKNOWN_TOPIC and parts.get(("no-such-topic", 0)) == UNKNOWN_TOPIC, parts)
    err, _m, offs = w.describe_offsets(c, "g-main", {t: [0, 1]})
    o = offs[(t, 0)]
    w.check("DescribeShareGroupOffsets after alter: start 4, lag = 10 - 4 - 0 = 6",
            o["start"] == 4 and o["lag"] == 6, o)
    err, msg, parts = w.alter_offsets(c, "g-created", {t: {1: 2}})
    w.check("AlterShareGroupOffsets on an unknown group creates it (Empty)",
            err == NONE and w.sg_describe(c, ["g-created"])[0]["state"] == "Empty", (err, msg, parts))
    err, msg, tps = w.delete_offsets(c, "g-main", [t, "no-such-topic"])
    w.check("DeleteShareGroupOffsets: topic ok, unknown topic -> 3",
            err == NONE and tps.get(t) == NONE and tps.get("no-such-topic") == UNKNOWN_TOPIC, (err, msg, tps))
    err, _m, offs = w.describe_offsets(c, "g-main", {t: [0]})
    w.check("after DeleteShareGroupOffsets: start -1", offs[(t, 0)]["start"] == -1, offs)
    err, _m, offs = w.describe_offsets(c, "g-main", None)
    w.check("after DeleteShareGroupOffsets: the topic left the initialized set", not offs, offs)
    err, msg, _ = w.delete_offsets(c, "g-none", [t])
    w.check("DeleteShareGroupOffsets unknown group -> 69 'Group g-none not found.'",
            err == NOT_FOUND and msg == "Group g-none not found.", (err, msg))


def check_group_configs(w, c):
    d = w.describe_group_configs(c, "g-cfg")
    m = d["map"]
    w.check("DescribeConfigs GROUP: the share.* configs with broker defaults (source 5)",
            d["err"] == NONE and len(m) >= 8 and m["share.record.lock.duration.ms"]["value"] == "30000" and
            m["share.record.lock.duration.ms"]["source"] == 5 and m["share.auto.offset.reset"]["value"] == "latest", d)
    e = w.incr_alter_group_configs(c, "g-cfg", [("share.record.lock.duration.ms", 0, "1000")])
    # Kafka 4.4.0 names the bounds' values ("... must be in the range MIN to MAX inclusive.")
    w.check("lock duration below the broker minimum -> 40 naming the bounds",
            e[0] == INVALID_CONFIG and "in the range 15000 to 60000 inclusive" in (e[1] or ""), e)
    e = w.incr_alter_group_configs(c, "g-cfg", [("share.delivery.count.limit", 0, "11")])
    w.check("delivery limit above the broker maximum -> 40 naming the bounds",
            e[0] == INVALID_CONFIG and "in the range 2 to 10 inclusive" in (e[1] or ""), e)
    e = w.incr_alter_group_configs(c, "g-cfg", [("share.nope", 0, "1")])
    w.check("unknown group config -> 40 'Unknown group config name'",
            e[0] == INVALID_CONFIG and "Unknown group config name" in (e[1] or ""), e)
    e = w.incr_alter_group_configs(c, "g-cfg", [("share.auto.offset.reset", 0, "sideways")])
    w.check("bad share.auto.offset.reset -> 40", e[0] == INVALID_CONFIG, e)
    e = w.incr_alter_group_configs(c, "g-cfg", [("share.record.lock.duration.ms", 2, "20000")])
    w.check("APPEND on a non-list group config -> 40", e[0] == INVALID_CONFIG, e)
    e = w.incr_alter_group_configs(c, "g-cfg", [("share.record.lock.duration.ms", 0, "20000"),
                                                ("share.auto.offset.reset", 0, "earliest")])
    w.check("set lock duration 20000 + earliest on a group that does not exist", e[0] == NONE, e)
    m = w.describe_group_configs_until(c, "g-cfg", ["share.record.lock.duration.ms"],
                                       lambda d: "share.record.lock.duration.ms" in d["map"] and
                                       d["map"]["share.record.lock.duration.ms"]["source"] == 8)["map"]
    w.check("DescribeConfigs GROUP with keys: stored value, source GROUP_CONFIG (8)",
            list(m) == ["share.record.lock.duration.ms"] and m["share.record.lock.duration.ms"]["value"] == "20000"
            and m["share.record.lock.duration.ms"]["source"] == 8, m)
    _e, gs = w.list_groups(c)
    w.check("group configs alone do not create a group", "g-cfg" not in gs, gs)
    e = w.alter_group_configs(c, "g-cfg", {"share.delivery.count.limit": "3"})
    m = w.describe_group_configs_until(c, "g-cfg", None,
                                       lambda d: d["map"]["share.record.lock.duration.ms"]["source"] == 5)["map"]
    w.check("AlterConfigs GROUP replaces every override",
            e[0] == NONE and m["share.delivery.count.limit"]["value"] == "3" and
            m["share.record.lock.duration.ms"]["source"] == 5, (e, m.get("share.delivery.count.limit")))
    e = w.incr_alter_group_configs(c, "g-cfg", [("share.delivery.count.limit", 1, None)])
    m = w.describe_group_configs_until(c, "g-cfg", None,
                                       lambda d: d["map"]["share.delivery.count.limit"]["source"] == 5)["map"]
    w.check("DELETE restores the default", e[0] == NONE and m["share.delivery.count.limit"]["source"] == 5, m)


def check_delete(w, c, t):
    r = w.delete_groups(c, ["g-main"])
    w.check("DeleteGroups on the empty group -> 0", r.get("g-main") == NONE, r)
    d = w.sg_describe(c, ["g-main"])[0]
    w.check("deleted group: ShareGroupDescribe -> 69", d["err"] == NOT_FOUND, d)
    err, _m, offs = w.describe_offsets(c, "g-main", {t: [0, 1, 2]})
    w.check("deleted group: share state gone (start -1)", all(o["start"] == -1 for o in offs.values()), offs)
    r = w.delete_groups(c, ["g-created"])
    err, _m, offs = w.describe_offsets(c, "g-created", {t: [1]})
    w.check("DeleteGroups removes altered state too", r.get("g-created") == NONE and offs[(t, 1)]["start"] == -1,
            (r, offs))


def scenario_main(w, c, args):
    t = "sc-main"
    w.check("create topic %s (3 partitions)" % t, w.create_topic(c, t, 3)[0] == NONE)
    check_api_versions(w, c)
    check_heartbeat_errors(w, c, t)
    a, b = check_membership(w, c, t)
    check_describe_list(w, c, t, a[0], b[0])
    check_nonempty_errors(w, c, t)
    check_offsets_empty_group(w, c, t, [a, b])
    check_group_configs(w, c)
    check_delete(w, c, t)


def scenario_expiry(w, c, args):
    t = "sc-exp"
    w.create_topic(c, t, 1)
    e = w.incr_alter_group_configs(c, "g-exp", [("share.session.timeout.ms", 0, "1500"),
                                                ("share.heartbeat.interval.ms", 0, "500")])
    w.check("set share.session.timeout.ms=1500", e[0] == NONE, e)
    r = w.join_until_assigned(c, "g-exp", mid(), [t], 1)
    w.check("join g-exp with heartbeat interval 500", r["err"] == NONE and r["interval"] == 500, r)
    keep = mid()
    k = w.hb(c, "g-exp", keep, 0, [t])
    deadline = time.time() + 3.5
    while time.time() < deadline:  # keep one member alive, let the other expire
        k = w.hb(c, "g-exp", keep, k["epoch"])
        time.sleep(0.4)
    d = w.sg_describe(c, ["g-exp"])[0]
    w.check("the silent member expired, the heartbeating one stays",
            [m["id"] for m in d["members"]] == [keep], d)
    w.check("expiry bumped the group epoch", d["epoch"] > r["epoch"], d)


def scenario_persist_setup(w, c, args):
    g, t = args[0], "sc-persist"
    w.create_topic(c, t, 2)
    e = w.incr_alter_group_configs(c, g, [("share.delivery.count.limit", 0, "7")])
    w.check("persist: set a group config", e[0] == NONE, e)
    a = w.join_until_assigned(c, g, "member-a", [t], 2)
    b = w.join_until_assigned(c, g, "member-b", [t], 1)
    w.check("persist: two members with partitions", a["err"] == NONE and b["err"] == NONE)
    d = w.sg_describe(c, [g])[0]
    print("# epoch %d" % d["epoch"])


def scenario_persist_verify(w, c, args):
    g, t = args[0], "sc-persist"
    d = w.sg_describe(c, [g])[0]
    w.check("after restart: group Stable with both members",
            d["err"] == NONE and d["state"] == "Stable" and sorted(m["id"] for m in d["members"]) ==
            ["member-a", "member-b"], d)
    w.check("after restart: assignments kept",
            sorted({p for m in d["members"] for p in m["assignment"].get(t, [])}) == [0, 1], d)
    m = w.describe_group_configs(c, g)["map"]
    w.check("after restart: group config kept", m["share.delivery.count.limit"]["value"] == "7", m)
    _e, _m, offs = w.describe_offsets(c, g, None)
    w.check("after restart: both partitions still initialized", sorted(offs) == [(t, 0), (t, 1)], offs)
    r = w.hb(c, g, "member-a", d["members"][0]["epoch"] if d["members"][0]["id"] == "member-a"
             else d["members"][1]["epoch"])
    w.check("after restart: a member heartbeats at its epoch", r["err"] == NONE, r)


SCENARIOS = {"main": scenario_main, "expiry": scenario_expiry, "persist-setup": scenario_persist_setup,
             "persist-verify": scenario_persist_verify}


def run(w, c, name, args):
    SCENARIOS[name](w, c, args)
