#!/usr/bin/env python3
"""Set-up and checks of tests/integration/test_dlq_redrive.sh (confluent-kafka from the venv).

gregord does not dead-letter yet, so the DLQ topic is written here, record by record, exactly
as Apache Kafka 4.4.0 writes it (docs/dlq.md §3): null key/value unless copy.record is on, the
six __dlq.errors.* headers in Kafka's order, no source headers.

  dlq_redrive.py BOOT setup STATE          topics src (2 p), other (1 p), dlq (2 p) and the
                                           dead letters of the main scenario; STATE: JSON
  dlq_redrive.py BOOT check STATE TOPIC RUN  the records redriven into TOPIC since set-up are
                                           exactly the expected ones, once (ok/FAIL lines)
  dlq_redrive.py BOOT bulk DLQ GROUP N     N copy-on dead letters of GROUP in a new 1-partition
                                           DLQ (source topic bulk-src, 2 partitions)
  dlq_redrive.py BOOT count TOPIC DLQ GROUP N  provenance in TOPIC for DLQ offsets 0..N-1 of
                                           GROUP: each exactly once, values right (ok/FAIL)
  dlq_redrive.py BOOT ends TOPIC           "p:end ..." high watermarks
"""
import json
import sys
import time

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

MSG_REJECT = "Offset rejected by client."
MSG_LIMIT = "Offset delivery count exceeded the threshold."


def ok(what):
    print("ok - " + what, flush=True)


def fail(what):
    print("FAIL - " + what, flush=True)


def check(what, cond):
    (ok if cond else fail)(what)
    return cond


def admin(boot):
    return AdminClient({"bootstrap.servers": boot})


def create(boot, topics):
    a = admin(boot)
    fs = a.create_topics([NewTopic(t, p, 1) for t, p in topics], operation_timeout=20)
    for f in fs.values():
        f.result(30)


def producer(boot):
    return Producer({"bootstrap.servers": boot, "acks": "all", "linger.ms": 5})


def send(p, topic, part, key, value, headers):
    p.produce(topic, value=value, key=key, partition=part, headers=headers)


def dlq_headers(topic, part, off, group, count, msg):
    return [("__dlq.errors.topic", topic.encode()), ("__dlq.errors.partition", str(part).encode()),
            ("__dlq.errors.offset", str(off).encode()), ("__dlq.errors.group", group.encode()),
            ("__dlq.errors.delivery.count", str(count).encode()), ("__dlq.errors.message", msg.encode())]


def ends(boot, topic):
    c = Consumer({"bootstrap.servers": boot, "group.id": "dlq-redrive-ends", "enable.auto.commit": False})
    md = c.list_topics(topic, timeout=20).topics[topic]
    out = {}
    for p in sorted(md.partitions):
        lo, hi = c.get_watermark_offsets(TopicPartition(topic, p), timeout=20)
        out[p] = (lo, hi)
    c.close()
    return out


def read(boot, topic, starts):
    """Every record of topic from starts {partition: offset} to the end, in partition order."""
    c = Consumer({"bootstrap.servers": boot, "group.id": "dlq-redrive-read", "enable.auto.commit": False,
                  "enable.partition.eof": True})
    e = ends(boot, topic)
    todo = {p for p, s in starts.items() if s < e[p][1]}
    if not todo:
        c.close()
        return []
    c.assign([TopicPartition(topic, p, starts[p]) for p in todo])
    out, deadline = [], time.time() + 30
    while todo and time.time() < deadline:
        m = c.poll(1.0)
        if m is None:
            continue
        if m.error():
            if m.error().code() == -191:  # partition EOF
                todo.discard(m.partition())
            continue
        out.append({"partition": m.partition(), "offset": m.offset(), "key": m.key(), "value": m.value(),
                    "headers": [(k, v) for k, v in (m.headers() or [])]})
    c.close()
    out.sort(key=lambda r: (r["partition"], r["offset"]))
    return out


# ---------------------------------------------------------------- the main scenario

SRC_HDRS = lambda p, i: [("h1", b"a-%d-%d" % (p, i)), ("h2", None)]  # noqa: E731


def setup(boot, state_path):
    create(boot, [("src", 2), ("other", 1), ("dlq", 2)])
    p = producer(boot)
    for part in (0, 1):
        for i in range(6):
            send(p, "src", part, b"k-%d-%d" % (part, i), b"v-%d-%d" % (part, i), SRC_HDRS(part, i))
    p.flush(30)
    # The source records of partition 1 below offset 3 are removed (like retention would).
    a = admin(boot)
    fs = a.delete_records([TopicPartition("src", 1, 3)])
    for f in fs.values():
        f.result(30)
    G, O = "grp-a", "grp-other"
    dl = [  # (dlq partition, copy?, source partition, source offset, group, count, msg, malformed)
        (0, True, 0, 1, G, 1, MSG_REJECT, None),   # p0/0 copy on
        (0, True, 0, 2, O, 1, MSG_REJECT, None),   # p0/1 another group
        (0, False, 0, 3, G, 1, MSG_REJECT, None),  # p0/2 copy off, source there: fetched
        (0, False, 1, 0, G, 1, MSG_REJECT, None),  # p0/3 copy off, source deleted: missing
        (0, True, 1, 1, G, 1, MSG_REJECT, None),   # p0/4 copy on, source deleted: payload kept
        (1, True, 1, 4, G, 2, MSG_LIMIT, None),    # p1/0 copy on, delivery limit
        (1, False, 1, 5, G, 3, MSG_LIMIT, None),   # p1/1 copy off, fetched
        (1, True, 0, 1, G, 1, MSG_REJECT, None),   # p1/2 the same source record again: duplicate
        (1, True, 0, 4, G, 1, MSG_REJECT, "x"),    # p1/3 malformed partition header
    ]
    for dp, copy, sp, so, g, cnt, msg, bad in dl:
        h = dlq_headers("src", sp, so, g, cnt, msg)
        if bad:
            h[1] = ("__dlq.errors.partition", bad.encode())
        k = b"k-%d-%d" % (sp, so) if copy else None
        v = b"v-%d-%d" % (sp, so) if copy else None
        send(p, "dlq", dp, k, v, h)
        p.flush(30)
    send(p, "dlq", 1, b"plain", b"not a dead letter", None)  # p1/4
    p.flush(30)
    st = {"src": {p_: hi for p_, (lo, hi) in ends(boot, "src").items()},
          "other": {p_: hi for p_, (lo, hi) in ends(boot, "other").items()},
          "dlq": {p_: hi for p_, (lo, hi) in ends(boot, "dlq").items()}}
    with open(state_path, "w") as f:
        json.dump(st, f)
    ok("set-up: src 2x6 (p1 log start 3), dlq 2 partitions with 10 records")


def expected(topic):
    """The redriven records of the main scenario: (dlq p, dlq off, src p, src off, count, payload)."""
    rows = [(0, 0, 0, 1, 1, "dlq"), (0, 2, 0, 3, 1, "source"), (0, 4, 1, 1, 1, "dlq"), (1, 0, 1, 4, 2, "dlq"),
            (1, 1, 1, 5, 3, "source")]
    out = []
    for dp, do, sp, so, cnt, pay in rows:
        hdrs = list(SRC_HDRS(sp, so)) if pay == "source" else []
        hdrs += [("gregor.redrive.dlq.topic", b"dlq"), ("gregor.redrive.dlq.topic.id", "ID"),
                 ("gregor.redrive.dlq.partition", str(dp).encode()), ("gregor.redrive.dlq.offset", str(do).encode()),
                 ("gregor.redrive.group", b"grp-a"), ("gregor.redrive.source.topic", b"src"),
                 ("gregor.redrive.source.partition", str(sp).encode()),
                 ("gregor.redrive.source.offset", str(so).encode()),
                 ("gregor.redrive.delivery.count", str(cnt).encode()), ("gregor.redrive.payload", pay.encode())]
        # "other" has one partition: partition 1 does not exist there, the key's hash picks 0 of 1.
        part = sp if topic == "src" else 0
        out.append({"partition": part, "key": b"k-%d-%d" % (sp, so), "value": b"v-%d-%d" % (sp, so),
                    "headers": hdrs})
    return out


def check_main(boot, state_path, topic, run):
    st = json.load(open(state_path))
    starts = {int(p): o for p, o in st[topic].items()}
    got = read(boot, topic, starts)
    want = expected(topic)
    # The topic id is whatever the broker gave the DLQ topic: one 22-char base64 value, the same on all.
    ids = {v for r in got for k, v in r["headers"] if k == "gregor.redrive.dlq.topic.id"}
    check("%s: one DLQ topic id in the provenance (%s)" % (run, ids), len(ids) == 1 and len(next(iter(ids))) == 22)
    tid = next(iter(ids)) if ids else b""
    for w in want:
        w["headers"] = [(k, tid if v == "ID" else v) for k, v in w["headers"]]
    strip = [{k: r[k] for k in ("partition", "key", "value", "headers")} for r in got]
    key = lambda r: (r["partition"], r["key"])  # noqa: E731
    if not check("%s: %s holds exactly the %d expected records (key, value, headers, partition), each once" %
                 (run, topic, len(want)), sorted(strip, key=key) == sorted(want, key=key)):
        for r in strip:
            print("# got  %r" % (r,))
        for r in want:
            print("# want %r" % (r,))


# ---------------------------------------------------------------- bulk (kill -9, --max-records)

def bulk(boot, dlq, group, n):
    md = admin(boot).list_topics(timeout=20).topics
    new = [(t, p) for t, p in ((dlq, 1), ("bulk-src", 2)) if t not in md]
    if new:
        create(boot, new)
    p = Producer({"bootstrap.servers": boot, "acks": "all", "linger.ms": 20})
    for i in range(n):
        sp = i % 2
        send(p, dlq, 0, b"bk-%d" % i, b"bv-%d-" % i + b"x" * 200,
             dlq_headers("bulk-src", sp, i, group, 1, MSG_REJECT))
        if i % 1000 == 999:
            p.poll(0)
    p.flush(60)
    ok("bulk: %d dead letters of %s in %s" % (n, group, dlq))


def count(boot, topic, dlq, group, n):
    e = ends(boot, topic)
    got = read(boot, topic, {p: lo for p, (lo, hi) in e.items()})
    seen = {}
    bad = 0
    for r in got:
        h = dict(r["headers"])
        if h.get("gregor.redrive.dlq.topic") != dlq.encode() or h.get("gregor.redrive.group") != group.encode():
            continue
        off = int(h["gregor.redrive.dlq.offset"])
        seen[off] = seen.get(off, 0) + 1
        sp = off % 2
        if (r["key"] != b"bk-%d" % off or r["value"] != b"bv-%d-" % off + b"x" * 200 or r["partition"] != sp or
                h.get("gregor.redrive.source.offset") != str(off).encode()):
            bad += 1
    dups = sum(c - 1 for c in seen.values() if c > 1)
    missing = [o for o in range(n) if o not in seen]
    check("%s: every one of the %d dead letters of %s redriven exactly once (found %d, duplicates %d, missing %d)" %
          (topic, n, group, len(seen), dups, len(missing)), not dups and not missing and len(seen) == n)
    check("%s: key, value, partition and source offset right on all of %s's records (%d wrong)" %
          (topic, group, bad), bad == 0)
    print(len(seen))


def main():
    boot, cmd, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    if cmd == "setup":
        setup(boot, args[0])
    elif cmd == "check":
        check_main(boot, args[0], args[1], args[2])
    elif cmd == "bulk":
        bulk(boot, args[0], args[1], int(args[2]))
    elif cmd == "count":
        count(boot, args[0], args[1], args[2], int(args[3]))
    elif cmd == "ends":
        print(" ".join("%d:%d" % (p, hi) for p, (lo, hi) in sorted(ends(boot, args[0]).items())))
    else:
        sys.exit("unknown command " + cmd)


if __name__ == "__main__":
    main()
