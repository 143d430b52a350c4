"""Topic and config administration through confluent-kafka's AdminClient (librdkafka).

usage: admin_check.py BOOTSTRAP PHASE [PREFIX]
  PHASE setup:   create (incl. validate_only, bad replication factor, bad name, duplicates,
                 existing), describe configs (defaults, overrides, synonyms), alter and
                 incremental alter (SET/DELETE/APPEND/SUBTRACT, bad values with Kafka's
                 exact messages), create partitions, delete topics (by name, and by id with
                 a raw DeleteTopics v6 request).
  PHASE verify:  after a broker restart: what setup left behind is still there.
Prints one line per check ("ok   - ..." / "FAIL - ..."); exit status 1 on any failure.
Topic names start with PREFIX (default "adm"), so runs do not collide.
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kwire as kw  # noqa: E402
from confluent_kafka.admin import (AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource,  # noqa: E402
                                   NewPartitions, NewTopic, ResourceType)

bootstrap, phase = sys.argv[1], sys.argv[2]
P = sys.argv[3] if len(sys.argv) > 3 else "adm"
TMO = 30
failures = 0
admin = AdminClient({"bootstrap.servers": bootstrap})


def check(cond, what):
    global failures
    print(("ok   - " if cond else "FAIL - ") + what, flush=True)
    if not cond:
        failures += 1


def outcome(fut):
    """("OK", result) or (error name, message) of one future."""
    try:
        return ("OK", fut.result(TMO))
    except Exception as e:  # KafkaException carries a KafkaError
        err = e.args[0] if e.args else None
        if hasattr(err, "name"):
            return (err.name(), err.str())
        return ("EXC", repr(e))


def expect(fs, key, code, msg=None, what=""):
    got = outcome(fs[key])
    ok = got[0] == code and (msg is None or got[1] == msg)
    check(ok, "%s: %s%s (got %s)" % (what or key, code, " '%s'" % msg if msg else "", got))
    return got


def create(topics, **kw):
    return admin.create_topics(topics, operation_timeout=TMO, request_timeout=TMO, **kw)


def describe(name, typ=ResourceType.TOPIC):
    res = ConfigResource(typ, name)
    got = outcome(admin.describe_configs([res], request_timeout=TMO)[res])
    if got[0] != "OK":
        return got
    return {k: (e.value, int(e.source), e.is_read_only, e.is_sensitive,
                [(s.name, s.value, int(s.source)) for s in e.synonyms.values()])
            for k, e in got[1].items()}


def incremental(name, ops, typ=ResourceType.TOPIC, validate_only=False):
    res = ConfigResource(typ, name, incremental_configs=[
        ConfigEntry(k, v, incremental_operation=o) for k, v, o in ops])
    return admin.incremental_alter_configs([res], validate_only=validate_only, request_timeout=TMO), res


def topic_partitions(name):
    md = admin.list_topics(timeout=TMO)
    t = md.topics.get(name)
    return len(t.partitions) if t is not None and t.error is None else None


def eventually(pred, secs=15):
    """Kafka applies dynamic broker configs asynchronously: poll pred() until true."""
    deadline = time.time() + secs
    while True:
        v = pred()
        if v or time.time() > deadline:
            return v
        time.sleep(0.2)


def wait_gone(name, secs=15):
    """Kafka propagates a deletion to its metadata cache asynchronously: poll."""
    deadline = time.time() + secs
    while topic_partitions(name) is not None:
        if time.time() > deadline:
            return False
        time.sleep(0.2)
    return True


def topic_id(name):
    from confluent_kafka import TopicCollection
    fs = admin.describe_topics(TopicCollection([name]), request_timeout=TMO)
    return fs[name].result(TMO).topic_id


# ---- raw requests the AdminClient does not offer (framed by kwire.py) ----

def raw_call(api_key, version, body):
    """One flexible-version request on a fresh connection; the Reader after the throttle time."""
    c = kw.Conn(bootstrap, client_id="admin_check", timeout=TMO)
    try:
        r = c.call(api_key, version, body)
    finally:
        c.close()
    r.i32()  # throttle time
    return r


def delete_by_ids(ids):
    """DeleteTopics v6 with (null name, id) entries: [(name, id bytes, error code, message)]."""
    r = raw_call(20, 6, kw.carr(ids, lambda i: kw.cstr(None) + i + kw.TAGS) + kw.i32(30000) + kw.TAGS)
    return r.carr(lambda r: (r.cstr(), r.uuid(), r.i16(), r.cstr(), r.tags())[:4])


def create_raw(topics, validate_only=False):
    """CreateTopics v7 of (name, partitions, rf): {name: (code, msg, id, partitions, rf, {config: value})}
    in response order (a list of (name, result))."""
    def topic(t):
        name, parts, rf = t
        return kw.cstr(name) + kw.i32(parts) + kw.i16(rf) + kw.carr([]) + kw.carr([]) + kw.TAGS

    def result(r):
        name, tid, code, msg, parts, rf = r.cstr(), r.uuid(), r.i16(), r.cstr(), r.i32(), r.i16()
        cfgs = r.carr(lambda r: (r.cstr(), r.cstr(), r.boolean(), r.i8(), r.boolean(), r.tags())) or []
        r.tags()
        return name, (code, msg, tid, parts, rf, {c[0]: (c[1], c[3]) for c in cfgs})  # value, source

    r = raw_call(19, 7, kw.carr(topics, topic) + kw.i32(30000) + kw.boolean(validate_only) + kw.TAGS)
    return r.carr(result)


def uuid_bytes(u):
    return u.get_most_significant_bits().to_bytes(8, "big", signed=True) + \
        u.get_least_significant_bits().to_bytes(8, "big", signed=True)


# ---------------------------------------------------------------- setup
def setup_create():
    fs = create([NewTopic(P + "-a", 3, 1, config={"retention.ms": "86400000", "cleanup.policy": "delete"})])
    expect(fs, P + "-a", "OK", what="create %s-a with 3 partitions and configs" % P)
    check(topic_partitions(P + "-a") == 3, "metadata shows 3 partitions for %s-a" % P)
    fs = create([NewTopic(P + "-a", 1, 1)])
    expect(fs, P + "-a", "TOPIC_ALREADY_EXISTS", "Topic '%s-a' already exists." % P)
    fs = create([NewTopic(P + "-vo", 2, 1)], validate_only=True)
    expect(fs, P + "-vo", "OK", what="validate_only create")
    check(topic_partitions(P + "-vo") is None, "validate_only created nothing")
    fs = create([NewTopic(P + "-rf3", 1, 3)])
    expect(fs, P + "-rf3", "INVALID_REPLICATION_FACTOR",
           "Unable to replicate the partition 3 time(s): The target replication factor of 3 cannot be "
           "reached because only 1 broker(s) are registered or some brokers have all their log "
           "directories cordoned.")
    fs = create([NewTopic(P + "-rf0", 1, 0)])
    expect(fs, P + "-rf0", "INVALID_REPLICATION_FACTOR",
           "Replication factor must be larger than 0, or -1 to use the default value.")
    fs = create([NewTopic(P + "-p0", 0, 1)])
    expect(fs, P + "-p0", "INVALID_PARTITIONS", "Number of partitions was set to an invalid non-positive value.")
    fs = create([NewTopic(P + " bad", 1, 1)])
    expect(fs, P + " bad", "TOPIC_EXCEPTION", what="bad topic name refused")
    fs = create([NewTopic(P + "-cfg", 1, 1, config={"retention.ms": "abc"})])
    expect(fs, P + "-cfg", "INVALID_CONFIG", "Invalid value abc for configuration retention.ms: Not a number of type LONG")
    fs = create([NewTopic(P + "-cfg", 1, 1, config={"no.such.config": "1"})])
    expect(fs, P + "-cfg", "INVALID_CONFIG", "Unknown topic config name: no.such.config")
    # librdkafka crashes on duplicate names in one create_topics call: use a raw CreateTopics v7
    got = dict(create_raw([(P + "-dup", 1, 1), (P + "-dup", 2, 1), (P + "-b", 1, 1)]))
    check(got.get(P + "-dup", (0,))[:2] == (42, "Duplicate topic name."),
          "duplicate names in one request: INVALID_REQUEST 'Duplicate topic name.' (%s)" % (got.get(P + "-dup"),))
    b = got.get(P + "-b", (-1, None, b"", 0, 0, {}))
    check(b[0] == 0 and b[2] != bytes(16) and b[3:5] == (1, 1),
          "the other topic of that request is created; v7 response has TopicId, NumPartitions, ReplicationFactor")
    check(b[5].get("retention.ms") == ("604800000", 5) and b[5].get("cleanup.policy") == ("delete", 5),
          "CreateTopics v7 response lists the effective configs with their sources")
    check(topic_partitions(P + "-dup") is None, "duplicated name created nothing")
    got = dict(create_raw([(P + "-vo2", 4, -1)], validate_only=True))
    check(got.get(P + "-vo2", (1,))[0] == 0 and got[P + "-vo2"][3:5] == (4, 1),
          "raw validate_only create answers NumPartitions 4, ReplicationFactor 1")
    fs = create([NewTopic(P + "-def")])  # num_partitions -1, replication factor -1: broker defaults
    expect(fs, P + "-def", "OK", what="create with broker defaults (-1/-1)")
    check(topic_partitions(P + "-def") == 1, "num.partitions (1) used for -1")
    fs = create([NewTopic(P + "-man", num_partitions=2, replica_assignment=[[1], [1]])])
    expect(fs, P + "-man", "OK", what="manual assignment [[1],[1]]")
    check(topic_partitions(P + "-man") == 2, "manual assignment gives 2 partitions")
    fs = create([NewTopic(P + "-man2", num_partitions=1, replica_assignment=[[1, 2]])])
    expect(fs, P + "-man2", "INVALID_REPLICA_ASSIGNMENT",
           "The manual partition assignment includes broker 2, but no such broker is registered.")


def setup_describe():
    d = describe(P + "-a")
    check(isinstance(d, dict), "describe configs of %s-a" % P)
    if not isinstance(d, dict):
        return
    check(d["retention.ms"][:2] == ("86400000", 1) and d["retention.ms"][4][0] == ("retention.ms", "86400000", 1),
          "retention.ms override: value, source DYNAMIC_TOPIC_CONFIG, first synonym (%s)" % (d["retention.ms"],))
    check(d["segment.bytes"] == ("1073741824", 5, False, False, [("log.segment.bytes", "1073741824", 5)]),
          "segment.bytes default with its broker synonym (%s)" % (d["segment.bytes"],))
    check(d["max.message.bytes"][:2] == ("1048588", 5), "max.message.bytes default 1048588")
    check(d["retention.bytes"][:2] == ("-1", 5), "retention.bytes default -1")
    check(d["message.timestamp.type"][:2] == ("CreateTime", 5), "message.timestamp.type default CreateTime")
    check(not any(v[2] for v in d.values()), "topic configs are not read-only")
    check(describe(P + "-nope") == ("UNKNOWN_TOPIC_OR_PART", "Broker: Unknown topic or partition"),
          "describe configs of an unknown topic: UNKNOWN_TOPIC_OR_PARTITION")
    b = describe("1", ResourceType.BROKER)
    check(isinstance(b, dict) and b.get("log.dirs", (0, 0, False))[1:3] == (4, True),
          "broker log.dirs is STATIC_BROKER_CONFIG and read-only")
    check(isinstance(b, dict) and b.get("log.segment.bytes", (0, 0, True))[2] is False,
          "broker log.segment.bytes is dynamic (not read-only)")


def setup_alter():
    t = P + "-a"
    fs, r = incremental(t, [("retention.ms", "3600000", AlterConfigOpType.SET),
                            ("segment.bytes", "1048576", AlterConfigOpType.SET)])
    expect(fs, r, "OK", what="incremental SET retention.ms and segment.bytes")
    fs, r = incremental(t, [("cleanup.policy", None, AlterConfigOpType.DELETE)])
    expect(fs, r, "OK", what="incremental DELETE cleanup.policy")
    fs, r = incremental(t, [("leader.replication.throttled.replicas", "0:1", AlterConfigOpType.APPEND)])
    expect(fs, r, "OK", what="incremental APPEND to a LIST config")
    fs, r = incremental(t, [("leader.replication.throttled.replicas", "1:1,0:1", AlterConfigOpType.APPEND)])
    expect(fs, r, "OK", what="incremental APPEND (one new, one present)")
    fs, r = incremental(t, [("leader.replication.throttled.replicas", "0:1", AlterConfigOpType.SUBTRACT)])
    expect(fs, r, "OK", what="incremental SUBTRACT from a LIST config")
    fs, r = incremental(t, [("retention.ms", "5", AlterConfigOpType.APPEND)])
    expect(fs, r, "INVALID_CONFIG", "Can't APPEND to key retention.ms because its type is not LIST.")
    fs, r = incremental(t, [("retention.ms", "x", AlterConfigOpType.SET)])
    expect(fs, r, "INVALID_CONFIG", "Invalid value x for configuration retention.ms: Not a number of type LONG")
    fs, r = incremental(t, [("segment.bytes", "10", AlterConfigOpType.SET)])
    expect(fs, r, "INVALID_CONFIG", "Invalid value 10 for configuration segment.bytes: Value must be at least 1048576")
    fs, r = incremental(t, [("retention.ms", "7", AlterConfigOpType.SET)], validate_only=True)
    expect(fs, r, "OK", what="incremental validate_only")
    fs, r = incremental(P + "-nope", [("retention.ms", "7", AlterConfigOpType.SET)])
    expect(fs, r, "UNKNOWN_TOPIC_OR_PART", "The topic '%s-nope' does not exist." % P)
    d = describe(t)
    check(d["retention.ms"][:2] == ("3600000", 1), "retention.ms now 3600000 (validate_only changed nothing)")
    check(d["segment.bytes"][:2] == ("1048576", 1), "segment.bytes now 1048576")
    check(d["cleanup.policy"][:2] == ("delete", 5), "cleanup.policy back to its default")
    check(d["leader.replication.throttled.replicas"][:2] == ("1:1", 1), "list after APPEND/SUBTRACT is '1:1'")
    # legacy AlterConfigs replaces every override of the resource
    res = ConfigResource(ResourceType.TOPIC, P + "-b", set_config={"retention.ms": "999", "retention.bytes": "1048576"})
    expect(admin.alter_configs([res], request_timeout=TMO), res, "OK", what="legacy AlterConfigs on %s-b" % P)
    res = ConfigResource(ResourceType.TOPIC, P + "-b", set_config={"retention.bytes": "2097152"})
    expect(admin.alter_configs([res], request_timeout=TMO), res, "OK", what="legacy AlterConfigs again (replace)")
    d = describe(P + "-b")
    check(d["retention.ms"][1] == 5 and d["retention.bytes"][:2] == ("2097152", 1),
          "legacy AlterConfigs replaced all overrides (retention.ms back to default)")
    res = ConfigResource(ResourceType.TOPIC, P + "-b", set_config={"retention.ms": "abc"})
    expect(admin.alter_configs([res], request_timeout=TMO), res, "INVALID_CONFIG",
           "Invalid value abc for configuration retention.ms: Not a number of type LONG")
    # broker configs
    fs, r = incremental("1", [("log.retention.ms", "123456789", AlterConfigOpType.SET)], typ=ResourceType.BROKER)
    expect(fs, r, "OK", what="incremental SET broker log.retention.ms")
    fs, r = incremental("1", [("log.dirs", "/x", AlterConfigOpType.SET)], typ=ResourceType.BROKER)
    expect(fs, r, "INVALID_REQUEST", "Cannot update these configs dynamically: [log.dirs]")
    fs, r = incremental("1", [("message.max.bytes", "abc", AlterConfigOpType.SET)], typ=ResourceType.BROKER)
    expect(fs, r, "INVALID_REQUEST", "Invalid value abc for configuration message.max.bytes: Not a number of type INT")
    d = {}

    def follows():
        d.update(describe(P + "-b"))
        return d["retention.ms"][:2] == ("123456789", 2) and \
            d["retention.ms"][4][0] == ("log.retention.ms", "123456789", 2)
    check(eventually(follows), "topic retention.ms follows the dynamic broker log.retention.ms (%s)"
          % (d["retention.ms"],))


def setup_partitions_delete():
    t = P + "-a"
    fs = admin.create_partitions([NewPartitions(t, 5)], request_timeout=TMO)
    expect(fs, t, "OK", what="create partitions 3 -> 5")
    check(topic_partitions(t) == 5, "metadata shows 5 partitions")
    fs = admin.create_partitions([NewPartitions(t, 5)], request_timeout=TMO)
    expect(fs, t, "INVALID_PARTITIONS", "Topic already has 5 partition(s).")
    fs = admin.create_partitions([NewPartitions(t, 2)], request_timeout=TMO)
    expect(fs, t, "INVALID_PARTITIONS", "The topic %s currently has 5 partition(s); 2 would not be an increase." % t)
    fs = admin.create_partitions([NewPartitions(t, 8)], validate_only=True, request_timeout=TMO)
    expect(fs, t, "OK", what="create partitions validate_only")
    check(topic_partitions(t) == 5, "validate_only left 5 partitions")
    fs = admin.create_partitions([NewPartitions(t, 7, replica_assignment=[[1]])], request_timeout=TMO)
    expect(fs, t, "INVALID_REPLICA_ASSIGNMENT",
           "Attempted to add 2 additional partition(s), but only 1 assignment(s) were specified.")
    fs = admin.create_partitions([NewPartitions(t, 6, replica_assignment=[[1, 1]])], request_timeout=TMO)
    expect(fs, t, "INVALID_REPLICA_ASSIGNMENT", "The manual partition assignment includes the broker 1 more than once.")
    fs = admin.create_partitions([NewPartitions(P + "-nope", 3)], request_timeout=TMO)
    expect(fs, P + "-nope", "UNKNOWN_TOPIC_OR_PART")
    fs = admin.delete_topics([P + "-def"], operation_timeout=TMO, request_timeout=TMO)
    expect(fs, P + "-def", "OK", what="delete %s-def by name" % P)
    check(wait_gone(P + "-def"), "deleted topic gone from metadata")
    fs = admin.delete_topics([P + "-nope"], operation_timeout=TMO, request_timeout=TMO)
    expect(fs, P + "-nope", "UNKNOWN_TOPIC_OR_PART")
    tid = uuid_bytes(topic_id(P + "-man"))
    got = {r[1]: r for r in delete_by_ids([tid, b"\x11" * 16])}
    check(got.get(tid, ())[:3] == (P + "-man", tid, 0), "DeleteTopics v6 by id: deleted, name returned (%s)"
          % (got.get(tid),))
    check(got.get(b"\x11" * 16, ())[2:] == (100, "This server does not host this topic ID."),
          "DeleteTopics v6 by unknown id: UNKNOWN_TOPIC_ID (%s)" % (got.get(b"\x11" * 16),))
    check(wait_gone(P + "-man"), "topic deleted by id gone from metadata")
    fs = create([NewTopic(P + "-def", 2, 1)])
    expect(fs, P + "-def", "OK", what="re-create a deleted topic name")


# ---------------------------------------------------------------- verify (after restart)
def verify():
    check(topic_partitions(P + "-a") == 5, "after restart: %s-a has 5 partitions" % P)
    check(topic_partitions(P + "-def") == 2, "after restart: re-created %s-def has 2 partitions" % P)
    check(topic_partitions(P + "-man") is None, "after restart: topic deleted by id stays deleted")
    check(topic_partitions(P + "-vo") is None, "after restart: no validate_only topic")
    d = describe(P + "-a")
    check(isinstance(d, dict) and d["retention.ms"][:2] == ("3600000", 1) and d["segment.bytes"][:2] == ("1048576", 1),
          "after restart: topic overrides kept")
    check(isinstance(d, dict) and d["leader.replication.throttled.replicas"][:2] == ("1:1", 1),
          "after restart: list config kept")
    d = describe(P + "-b")
    check(isinstance(d, dict) and d["retention.ms"][:2] == ("123456789", 2),
          "after restart: dynamic broker log.retention.ms still applies")
    fs, r = incremental("1", [("log.retention.ms", None, AlterConfigOpType.DELETE)], typ=ResourceType.BROKER)
    expect(fs, r, "OK", what="incremental DELETE of the broker override")
    check(eventually(lambda: describe(P + "-b")["retention.ms"][:2] == ("604800000", 5)),
          "topic retention.ms back to the default 604800000")


if phase == "setup":
    setup_create()
    setup_describe()
    setup_alter()
    setup_partitions_delete()
elif phase == "verify":
    verify()
else:
    sys.exit("unknown phase " + phase)
print("failures: %d" % failures)
sys.exit(1 if failures else 0)
