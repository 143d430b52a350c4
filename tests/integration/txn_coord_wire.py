#!/usr/bin/env python3
"""Raw-wire checks of the transaction coordinator (FindCoordinator key type 1,
InitProducerId with a transactional id, AddPartitionsToTxn, AddOffsetsToTxn, EndTxn,
TxnOffsetCommit, DescribeTransactions, ListTransactions) against a broker: gregord or
the reference Apache Kafka 4.4.0 (the expectations below hold for both).

  txn_coord_wire.py HOST:PORT PHASE RUN_ID
PHASE: main (every scenario; leaves state for the restart phase), crash BROKER_PID (kill -9
the broker right after an EndTxn answer), after_restart (the state main
and crash left, after kill -9 and restart), expire PID STEP (gregord restarted with a short
transactional.id.expiration.ms). Prints "ok - ..." / "FAIL - ..." lines;
exit status 1 on any FAIL. Needs topic txn-<RUN_ID> (2 partitions) created by main.
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kwire as kw  # noqa: E402
from kwire import TAGS, arr, boolean, carr, check, cstr, i16, i32, i64, i8, s16  # noqa: E402

NONE, INVALID_REQUEST, PRODUCER_FENCED, INVALID_PRODUCER_EPOCH = 0, 42, 90, 47
INVALID_TXN_STATE, INVALID_PID_MAPPING, INVALID_TIMEOUT, CONCURRENT = 48, 49, 50, 51
UNKNOWN_TP, OP_NOT_ATTEMPTED, ILLEGAL_GENERATION = 3, 55, 22


def find_coordinator(c, key, key_type=1):
    r = c.call(10, 4, i8(key_type) + carr([key], cstr) + TAGS)
    r.i32()
    return r.carr(lambda r: (r.cstr(), r.i32(), r.cstr(), r.i32(), r.i16(), r.cstr(), r.tags()))[0]


def init_pid(c, txn, timeout=60000, pid=-1, epoch=-1):
    r = c.call(22, 4, cstr(txn) + i32(timeout) + i64(pid) + i16(epoch) + TAGS)
    r.i32()
    return r.i16(), r.i64(), r.i16()


def add_partitions(c, txn, pid, epoch, topics, ver=3):
    """topics: {name: [partitions]} -> {(name, p): error}."""
    out = {}
    if ver < 3:  # classic encoding
        tb = arr(list(topics.items()), lambda kv: s16(kv[0]) + arr(kv[1], i32))
        r = c.call(24, ver, s16(txn) + i64(pid) + i16(epoch) + tb, flexible=False)
        r.i32()
        for name, parts in r.arr(lambda r: (r.string(), r.arr(lambda r: (r.i32(), r.i16())))):
            for p, e in parts:
                out[(name, p)] = e
        return out
    tb = carr(list(topics.items()), lambda kv: cstr(kv[0]) + carr(kv[1], i32) + TAGS)
    r = c.call(24, ver, cstr(txn) + i64(pid) + i16(epoch) + tb + TAGS)
    r.i32()
    for name, parts, _ in r.carr(lambda r: (r.cstr(), r.carr(lambda r: (r.i32(), r.i16(), r.tags())), r.tags())):
        for p, e, _ in parts:
            out[(name, p)] = e
    return out


def add_partitions_batch(c, txns, ver=5):
    """The broker-to-broker form (v4+): txns [(id, pid, epoch, verify_only, {topic: [parts]})]
    -> (top-level error, {id: {(topic, p): error}})."""
    def enc(x):
        tid, pid, epoch, verify, topics = x
        tb = carr(list(topics.items()), lambda kv: cstr(kv[0]) + carr(kv[1], i32) + TAGS)
        return cstr(tid) + i64(pid) + i16(epoch) + boolean(verify) + tb + TAGS
    r = c.call(24, ver, carr(txns, enc) + TAGS)
    r.i32()
    err = r.i16()
    res = r.carr(lambda r: (r.cstr(), r.carr(lambda r: (r.cstr(), r.carr(lambda r: (r.i32(), r.i16(), r.tags())),
                                                        r.tags())), r.tags()))
    return err, {tid: {(t, p): e for t, ps, _ in tr for p, e, _ in ps} for tid, tr, _ in res}


def add_offsets(c, txn, pid, epoch, group):
    r = c.call(25, 3, cstr(txn) + i64(pid) + i16(epoch) + cstr(group) + TAGS)
    r.i32()
    return r.i16()


def end_txn(c, txn, pid, epoch, commit, ver=3):
    r = c.call(26, ver, cstr(txn) + i64(pid) + i16(epoch) + boolean(commit) + TAGS)
    r.i32()
    err = r.i16()
    if ver >= 5:
        return err, r.i64(), r.i16()
    return err


def txn_offset_commit(c, txn, group, pid, epoch, topic, offsets, gen=-1, member=""):
    parts = carr(list(offsets.items()), lambda kv: i32(kv[0]) + i64(kv[1]) + i32(-1) + cstr("m") + TAGS)
    body = cstr(txn) + cstr(group) + i64(pid) + i16(epoch) + i32(gen) + cstr(member) + cstr(None)
    body += carr([cstr(topic) + parts + TAGS]) + TAGS
    r = c.call(28, 3, body)
    r.i32()
    t = r.carr(lambda r: (r.cstr(), r.carr(lambda r: (r.i32(), r.i16(), r.tags())), r.tags()))
    return {p: e for _, ps, _ in t for p, e, _ in ps}


def describe(c, txn):
    r = c.call(65, 0, carr([txn], cstr) + TAGS)
    r.i32()
    s = r.carr(lambda r: (r.i16(), r.cstr(), r.cstr(), r.i32(), r.i64(), r.i64(), r.i16(),
                          r.carr(lambda r: (r.cstr(), r.carr(lambda r: r.i32()), r.tags())), r.tags()))[0]
    return {"err": s[0], "state": s[2], "timeout": s[3], "pid": s[5], "epoch": s[6],
            "parts": sorted((t, p) for t, ps, _ in s[7] for p in ps)}


def list_txns(c, states, pids=(), pattern=None, ver=1):
    body = carr(states, cstr) + carr(list(pids), i64) + i64(-1) + (cstr(pattern) if ver >= 2 else b"") + TAGS
    r = c.call(66, ver, body)
    r.i32()
    err = r.i16()
    unknown = r.carr(lambda r: r.cstr())
    ts = r.carr(lambda r: (r.cstr(), r.i64(), r.cstr(), r.tags()))
    return err, unknown, {t[0]: (t[1], t[2]) for t in ts}


def offset_fetch(c, group, topic, part):
    """OffsetFetch v7 (require_stable): (partition error, committed offset)."""
    body = cstr(group) + carr([cstr(topic) + carr([part], i32) + TAGS]) + boolean(True) + TAGS
    r = c.call(9, 7, body)
    r.i32()
    t = r.carr(lambda r: (r.cstr(), r.carr(lambda r: (r.i32(), r.i64(), r.i32(), r.cstr(), r.i16(), r.tags())),
                          r.tags()))
    if not t:  # a group-level error (v7 answers no topics then)
        return r.i16(), -1
    p = t[0][1][0]
    return p[4], p[1]


def wait_state(c, txn, states, secs=10):
    d = describe(c, txn)
    end = time.time() + secs
    while d["state"] not in states and time.time() < end:
        time.sleep(0.1)
        d = describe(c, txn)
    return d


def init_retry(c, txn, timeout=60000, pid=-1, epoch=-1, secs=10):
    """InitProducerId until it stops answering CONCURRENT_TRANSACTIONS (an abort completing)."""
    end = time.time() + secs
    first = init_pid(c, txn, timeout, pid, epoch)
    res = first
    while res[0] == CONCURRENT and time.time() < end:
        time.sleep(0.1)
        res = init_pid(c, txn, timeout, pid, epoch)
    return first, res


def crash_in_prepare(boot, run, broker_pid):
    """EndTxn(commit) of a transaction over 8 partitions, and kill -9 the moment its answer
    arrives: PREPARE_COMMIT is durable, its markers and COMPLETE_COMMIT are (most likely)
    not yet. after_restart checks the transaction completes."""
    import signal
    import produce_fetch_wire as pw
    c = kw.Conn(boot)
    topic = "txp-" + run
    check("create topic (8 partitions)", kw.create_topic(c, topic, 8)[0] == 0)
    p = "p-" + run
    _, pid, ep = init_pid(c, p)
    r = add_partitions(c, p, pid, ep, {topic: list(range(8))})
    check("AddPartitionsToTxn: 8 partitions", set(r.values()) == {0}, r)
    pc = pw.Conn(boot)
    errs = []
    for i in range(8):
        end = time.time() + 15
        while True:  # a new topic on Kafka: NOT_LEADER_OR_FOLLOWER until its leader is known
            e = pw.produce(pc, topic, kw.batch([b"v%d" % i], pid=pid, epoch=ep, seq=0, transactional=True),
                           acks=-1, txn_id=p, part=i)["err"]
            if e != 6 or time.time() > end:
                break
            time.sleep(0.1)
        errs.append(e)
    check("transactional batches appended", errs == [0] * 8, errs)
    err = end_txn(c, p, pid, ep, True)
    os.kill(broker_pid, signal.SIGKILL)
    check("EndTxn(commit) answered before the kill", err == 0, err)


def expired(boot, run, pid, step):
    """transactional.id.expiration.ms (gregord restarted with 1.5 s): idle ids go, durably."""
    c = kw.Conn(boot)
    a = "f-" + run  # Empty since the KIP-360 checks
    d = describe(c, a)
    end = time.time() + 10
    while d["err"] == 0 and time.time() < end:
        time.sleep(0.2)
        d = describe(c, a)
    check("%s: idle id removed -> TRANSACTIONAL_ID_NOT_FOUND" % step, d["err"] == 105, d)
    check("%s: ListTransactions leaves it out" % step, a not in list_txns(c, [])[2])
    if step == "after kill -9":
        r = init_pid(c, a)
        check("expired id starts again: a new producer id at epoch 0", r[0] == 0 and r[1] != pid and r[2] == 0, r)


def produce12(txn, topic, part, records):
    """Produce v12 (transaction version 2: the broker adds the partition) body, acks=-1."""
    pd = i32(part) + kw.uvarint(len(records) + 1) + records + TAGS
    return cstr(txn) + i16(-1) + i32(10000) + carr([cstr(topic) + carr([pd], None) + TAGS], None) + TAGS


def produce12_err(r):
    def part(r):
        idx, err = r.i32(), r.i16()
        r.i64(), r.i64(), r.i64()
        r.carr(lambda r: (r.i32(), r.cstr(), r.tags()))
        r.cstr(), r.tags()
        return idx, err
    return r.carr(lambda r: (r.cstr(), r.carr(part), r.tags()))[0][1][0][1]


def behind_end_txn(boot, run, topic, group, rounds=8):
    """Transaction version 2: a transaction with offsets (their completion in the group
    store follows the EndTxn answer) ends with EndTxn v5, and the next transaction's
    first Produce v12 goes at once on another connection: it reaches the coordinator while
    the previous transaction is still being completed (CONCURRENT_TRANSACTIONS). Kafka
    4.4.0 retries the add on the broker (add.partitions.to.txn.retry.backoff.max.ms,
    100 ms) and gregord waits for the completion: the produce succeeds, every round."""
    c, c2 = kw.Conn(boot), kw.Conn(boot)
    w = "w-" + run
    _, pw_, ew = init_pid(c, w)

    def produce(epoch):
        batch = kw.batch([b"w"], pid=pw_, epoch=epoch, seq=0, transactional=True)
        return produce12_err(c2.call(0, 12, produce12(w, topic, 0, batch)))
    out = [produce(ew)]
    for i in range(rounds):
        a = add_offsets(c, w, pw_, ew, group)
        o = txn_offset_commit(c, w, group, pw_, ew, topic, {0: i}).get(0)
        e, _, ew = end_txn(c, w, pw_, ew, True, ver=5)
        out.append((a, o, e, produce(ew)))
    check("TV2: a produce right after EndTxn (offsets still being completed) succeeds, %d rounds" % rounds,
          out == [0] + [(0, 0, 0, 0)] * rounds, out)
    check("TV2: and its transaction commits", end_txn(c, w, pw_, ew, True, ver=5)[0] == 0)
    c.close()
    c2.close()


def main(boot, run):
    c = kw.Conn(boot)
    topic, group = "txn-" + run, "g-" + run
    check("create topic", kw.create_topic(c, topic, 2)[0] == 0)
    data_done = "CompleteCommit"

    end = time.time() + 30
    fc = find_coordinator(c, "t-" + run)
    while fc[4] != 0 and time.time() < end:  # Kafka creates __transaction_state on the first lookup
        time.sleep(0.2)
        fc = find_coordinator(c, "t-" + run)
    while init_pid(c, "warm-" + run)[0] in (14, 15, 16) and time.time() < end:
        time.sleep(0.2)
    while find_coordinator(c, group, 0)[4] != 0 and time.time() < end:  # and __consumer_offsets
        time.sleep(0.2)
    while offset_fetch(c, group, topic, 0)[0] in (14, 15, 16) and time.time() < end:
        time.sleep(0.2)
    check("FindCoordinator key type 1 -> this node", fc[4] == 0 and fc[3] > 0, fc)

    a = "a-" + run
    check("timeout 0 -> INVALID_TRANSACTION_TIMEOUT", init_pid(c, a, 0)[0] == INVALID_TIMEOUT)
    check("timeout above transaction.max.timeout.ms -> INVALID_TRANSACTION_TIMEOUT",
          init_pid(c, a, 900001)[0] == INVALID_TIMEOUT)
    check("empty transactional id -> INVALID_REQUEST", init_pid(c, "")[0] == INVALID_REQUEST)
    check("epoch without producer id -> INVALID_REQUEST", init_pid(c, a, 60000, -1, 3)[0] == INVALID_REQUEST)
    e0, pid, ep = init_pid(c, a)
    check("InitProducerId: new id at epoch 0", e0 == 0 and pid >= 0 and ep == 0, (e0, pid, ep))
    e1, pid1, ep1 = init_pid(c, a)
    check("InitProducerId again: same producer id, epoch bumped", (e1, pid1, ep1) == (0, pid, 1), (e1, pid1, ep1))
    d = describe(c, a)
    check("DescribeTransactions: Empty, epoch 1, timeout", (d["err"], d["state"], d["epoch"], d["timeout"])
          == (0, "Empty", 1, 60000), d)

    r = add_partitions(c, a, pid, 0, {topic: [0]})
    check("AddPartitionsToTxn v3 with the old epoch -> PRODUCER_FENCED", r == {(topic, 0): PRODUCER_FENCED}, r)
    r = add_partitions(c, a, pid, 0, {topic: [0]}, ver=1)
    check("AddPartitionsToTxn v1 with the old epoch -> INVALID_PRODUCER_EPOCH", r == {(topic, 0): INVALID_PRODUCER_EPOCH}, r)
    r = add_partitions(c, a, pid + 1000, 1, {topic: [0]})
    check("AddPartitionsToTxn with another producer id -> INVALID_PRODUCER_ID_MAPPING",
          r == {(topic, 0): INVALID_PID_MAPPING}, r)
    r = add_partitions(c, a, pid, 1, {topic: [0, 7], "nope-" + run: [0]})
    check("AddPartitionsToTxn: unknown partitions fail the add, the rest OPERATION_NOT_ATTEMPTED",
          r == {(topic, 0): OP_NOT_ATTEMPTED, (topic, 7): UNKNOWN_TP, ("nope-" + run, 0): UNKNOWN_TP}, r)
    check("EndTxn on an Empty transaction -> INVALID_TXN_STATE", end_txn(c, a, pid, 1, True) == INVALID_TXN_STATE)
    r = add_partitions(c, a, pid, 1, {topic: [0, 1]})
    check("AddPartitionsToTxn: both partitions added", r == {(topic, 0): 0, (topic, 1): 0}, r)
    d = describe(c, a)
    check("DescribeTransactions: Ongoing with both partitions",
          (d["state"], d["parts"]) == ("Ongoing", [(topic, 0), (topic, 1)]), d)
    err, unknown, ts = list_txns(c, ["Ongoing", "Bogus"], [pid])
    check("ListTransactions: state and producer filters, unknown state echoed",
          err == 0 and unknown == ["Bogus"] and ts == {a: (pid, "Ongoing")}, (err, unknown, ts))
    err, _, ts = list_txns(c, [], pattern="a-" + run + "|zz.*", ver=2)
    check("ListTransactions v2: transactional id pattern (whole-id match)", err == 0 and list(ts) == [a], (err, ts))
    err, _, ts = list_txns(c, [], pattern="(unclosed", ver=2)
    check("ListTransactions v2: bad pattern -> INVALID_REGULAR_EXPRESSION", err == 128 and not ts, (err, ts))
    err, res = add_partitions_batch(c, [(a, pid, 1, True, {topic: [0, 1]}), ("nope-" + run, 1, 0, True, {topic: [0]})])
    check("AddPartitionsToTxn v5 verifyOnly: in the transaction / unknown id",
          err == 0 and res == {a: {(topic, 0): 0, (topic, 1): 0}, "nope-" + run: {(topic, 0): INVALID_PID_MAPPING}},
          (err, res))
    err, res = add_partitions_batch(c, [(a, pid, 0, True, {topic: [0]})])
    check("AddPartitionsToTxn v5 verifyOnly with an old epoch -> PRODUCER_FENCED",
          (err, res) == (0, {a: {(topic, 0): PRODUCER_FENCED}}), (err, res))
    check("EndTxn with the old epoch -> PRODUCER_FENCED", end_txn(c, a, pid, 0, True) == PRODUCER_FENCED)
    check("EndTxn abort of a committing... commit first", end_txn(c, a, pid, 1, True) == 0)
    d = wait_state(c, a, [data_done])
    check("after EndTxn(commit): %s" % data_done, d["state"] == data_done and d["epoch"] == 1, d)

    # The add a broker makes for a transaction-version-2 produce (v5, not verifyOnly).
    v = "v-" + run
    _, pv, ev = init_pid(c, v)
    err, res = add_partitions_batch(c, [(v, pv, ev, False, {topic: [1]})])
    check("AddPartitionsToTxn v5 add (transaction version 2)", (err, res) == (0, {v: {(topic, 1): 0}}), (err, res))
    d = describe(c, v)
    check("... the transaction is Ongoing with the partition", (d["state"], d["parts"]) == ("Ongoing", [(topic, 1)]), d)
    r = end_txn(c, v, pv, ev, False, ver=5)
    check("EndTxn v5 abort: the epoch is bumped", r == (0, pv, ev + 1), r)
    d = wait_state(c, v, [data_done.replace("Commit", "Abort")])
    check("... %s" % data_done.replace("Commit", "Abort"), d["state"] == data_done.replace("Commit", "Abort"), d)

    # Offsets in a transaction (no data partitions: the group coordinator takes the marker).
    b = "b-" + run
    _, pb, eb = init_pid(c, b)
    r = txn_offset_commit(c, b, group, pb, eb, topic, {0: 5})
    check("TxnOffsetCommit v3 before AddOffsetsToTxn -> INVALID_TXN_STATE", r == {0: INVALID_TXN_STATE}, r)
    check("AddOffsetsToTxn", add_offsets(c, b, pb, eb, group) == 0)
    d = describe(c, b)
    check("the transaction holds a __consumer_offsets partition",
          d["state"] == "Ongoing" and len(d["parts"]) == 1 and d["parts"][0][0] == "__consumer_offsets", d)
    r = txn_offset_commit(c, b, group, pb, eb, topic, {0: 5, 1: 6})
    check("TxnOffsetCommit in the transaction", r == {0: 0, 1: 0}, r)
    r = txn_offset_commit(c, b, group, pb, eb, topic, {0: 5}, gen=3)
    check("TxnOffsetCommit with a generation but no member -> UNKNOWN_MEMBER_ID", r == {0: 25}, r)
    of = offset_fetch(c, group, topic, 0)
    check("OffsetFetch(require_stable) while pending -> UNSTABLE_OFFSET_COMMIT", of[0] == 88, of)
    check("EndTxn(commit) with offsets", end_txn(c, b, pb, eb, True) == 0)
    d = wait_state(c, b, ["CompleteCommit"])
    check("offsets-only transaction completes: CompleteCommit", d["state"] == "CompleteCommit", d)
    of = offset_fetch(c, group, topic, 0)
    check("committed transactional offset visible", of == (0, 5), of)

    check("AddOffsetsToTxn (second transaction)", add_offsets(c, b, pb, eb, group) == 0)
    r = txn_offset_commit(c, b, group, pb, eb, topic, {0: 99})
    check("TxnOffsetCommit (to abort)", r == {0: 0}, r)
    check("EndTxn(abort)", end_txn(c, b, pb, eb, False) == 0)
    d = wait_state(c, b, ["CompleteAbort"])
    check("aborted: CompleteAbort", d["state"] == "CompleteAbort", d)
    check("aborted offset dropped", offset_fetch(c, group, topic, 0) == (0, 5))
    check("EndTxn(abort) retried -> OK", end_txn(c, b, pb, eb, False) == 0)
    check("EndTxn(commit) after an abort -> INVALID_TXN_STATE", end_txn(c, b, pb, eb, True) == INVALID_TXN_STATE)

    # Transaction version 2 (EndTxn v5): every end bumps the epoch.
    r = end_txn(c, b, pb, eb, False, ver=5)
    check("EndTxn v5 abort with no partitions: epoch bumped", r == (0, pb, eb + 1), r)
    d = wait_state(c, b, ["CompleteAbort"])
    check("... its transaction completes: CompleteAbort, epoch bumped", (d["state"], d["epoch"]) == ("CompleteAbort", eb + 1), d)
    r = end_txn(c, b, pb, eb, False, ver=5)
    check("EndTxn v5 retried with the old epoch: same answer", r == (0, pb, eb + 1), r)

    # Fencing a zombie: a new InitProducerId aborts the ongoing transaction.
    f = "f-" + run
    _, pf, ef = init_pid(c, f)
    check("AddOffsetsToTxn (to be fenced)", add_offsets(c, f, pf, ef, group) == 0)
    check("TxnOffsetCommit (to be fenced)", txn_offset_commit(c, f, group, pf, ef, topic, {1: 77}) == {1: 0})
    first, res = init_retry(c, f)
    check("InitProducerId during a transaction -> CONCURRENT_TRANSACTIONS", first[0] == CONCURRENT, first)
    check("then: epoch bumped past the fence", res == (0, pf, ef + 2), res)
    check("zombie EndTxn -> PRODUCER_FENCED", end_txn(c, f, pf, ef, True) == PRODUCER_FENCED)
    check("zombie TxnOffsetCommit -> INVALID_PRODUCER_EPOCH",
          txn_offset_commit(c, f, group, pf, ef, topic, {1: 78}) == {1: INVALID_PRODUCER_EPOCH})
    check("fenced transaction's offset dropped", offset_fetch(c, group, topic, 1) == (0, 6))

    # KIP-360: InitProducerId with the producer id and epoch.
    r = init_pid(c, f, 60000, pf, ef + 2)
    check("KIP-360: current (pid, epoch) -> bumped", r == (0, pf, ef + 3), r)
    r = init_pid(c, f, 60000, pf, ef + 2)
    check("KIP-360: retry with the previous epoch -> same epoch", r == (0, pf, ef + 3), r)
    r = init_pid(c, f, 60000, pf + 5000, 0)
    check("KIP-360: another producer id -> PRODUCER_FENCED", r[0] == PRODUCER_FENCED, r)
    r = init_pid(c, f, 60000, pf, 0)
    check("KIP-360: an old epoch -> PRODUCER_FENCED", r[0] == PRODUCER_FENCED, r)

    # Timeout: the coordinator aborts (an epoch fence first).
    t = "t-" + run
    _, pt, et = init_pid(c, t, 1000)
    check("AddOffsetsToTxn (to time out)", add_offsets(c, t, pt, et, group) == 0)
    d = wait_state(c, t, ["CompleteAbort"], 15)
    check("timed-out transaction aborted by the coordinator", d["state"] == "CompleteAbort", d)
    check("its epoch was bumped", d["epoch"] > et, d)
    check("timed-out producer fenced", end_txn(c, t, pt, et, True) == PRODUCER_FENCED)

    behind_end_txn(boot, run, topic, "gw-" + run)

    # State left for after_restart: an ongoing transaction with a pending offset.
    k = "k-" + run
    _, pk, ek = init_pid(c, k)
    check("AddOffsetsToTxn (across the restart)", add_offsets(c, k, pk, ek, group) == 0)
    check("TxnOffsetCommit (across the restart)", txn_offset_commit(c, k, group, pk, ek, topic, {1: 42}) == {1: 0})
    r = add_partitions(c, k, pk, ek, {topic: [1]})
    check("AddPartitionsToTxn (across the restart)", r == {(topic, 1): 0}, r)
    # And one that will time out after the restart (its pending offset dropped then).
    u = "u-" + run
    _, pu, eu = init_pid(c, u, 4000)
    check("AddOffsetsToTxn (to time out after the restart)", add_offsets(c, u, pu, eu, "gu-" + run) == 0)
    r = txn_offset_commit(c, u, "gu-" + run, pu, eu, topic, {0: 1234})
    check("TxnOffsetCommit (to time out after the restart)", r == {0: 0}, r)
    print("STATE %d %d %d %d" % (pid, pk, ek, pf), flush=True)


def after_restart(boot, run, pid, pk, ek, pf):
    c = None
    end = time.time() + 60
    while True:  # the reference needs a moment to load its logs again
        try:
            c = kw.Conn(boot)
            if describe(c, "k-" + run)["err"] == 0:
                break
        except (OSError, ValueError):
            pass
        if time.time() > end:
            break
        time.sleep(0.3)
    topic, group = "txn-" + run, "g-" + run
    d = describe(c, "a-" + run)
    check("after kill -9: a's producer id and epoch kept", (d["pid"], d["epoch"]) == (pid, 1), d)
    d = describe(c, "k-" + run)
    check("after kill -9: ongoing transaction kept with its partitions",
          d["state"] == "Ongoing" and d["pid"] == pk and (topic, 1) in d["parts"], d)
    check("after kill -9: committed offsets kept", offset_fetch(c, group, topic, 0) == (0, 5))
    check("after kill -9: the transactional offset is still pending",
          offset_fetch(c, group, topic, 1)[0] == 88)
    check("after kill -9: commit", end_txn(c, "k-" + run, pk, ek, True) == 0)
    d = wait_state(c, "k-" + run, ["CompleteCommit"])
    check("after kill -9: CompleteCommit", d["state"] == "CompleteCommit", d)
    check("after kill -9: the pending offset committed", offset_fetch(c, group, topic, 1) == (0, 42))
    d = wait_state(c, "u-" + run, ["CompleteAbort"], 20)
    check("after kill -9: the ongoing transaction times out and is aborted", d["state"] == "CompleteAbort", d)
    # gregord only: Kafka 4.4.0 still answered UNSTABLE_OFFSET_COMMIT for this partition 5 s
    # after the abort (and after another append to its offsets partition); not explained yet.
    if os.environ.get("GR_TARGET", "gregord") == "gregord":
        of = offset_fetch(c, "gu-" + run, topic, 0)
        check("... its pending offset dropped", of == (0, -1), of)
    d = describe(c, "f-" + run)
    check("after kill -9: fenced id keeps its epoch", d["pid"] == pf and d["state"] == "Empty", d)
    if describe(c, "p-" + run)["err"] == 0:  # the crash phase ran (gregord)
        import produce_fetch_wire as pw
        d = wait_state(c, "p-" + run, ["CompleteCommit"])
        check("transaction killed after PREPARE_COMMIT: completed", d["state"] == "CompleteCommit", d)
        pc = pw.Conn(boot)
        # One plain record more per partition: Kafka's high watermark after an unclean
        # restart is its last checkpoint until the next append (one replica).
        errs = [pw.produce(pc, "txp-" + run, kw.batch([b"after"]), acks=-1, part=i)["err"] for i in range(8)]
        hw = [o["offset"] for o in pw.list_offsets(pc, "txp-" + run, -1, parts=range(8))]
        lso = [o["offset"] for o in pw.list_offsets(pc, "txp-" + run, -1, parts=range(8), isolation=1)]
        # 3: record, marker, plain record; 4: the marker was durable before the kill and
        # is written again after it (a repeated marker is harmless, as in Kafka).
        check("its markers are written: LSO = high watermark (3 or 4) on every partition",
              errs == [0] * 8 and hw == lso and all(x in (3, 4) for x in hw), (errs, hw, lso))


if __name__ == "__main__":
    boot, phase, run = sys.argv[1], sys.argv[2], sys.argv[3]
    if phase == "main":
        main(boot, run)
    elif phase == "crash":
        crash_in_prepare(boot, run, int(sys.argv[4]))
    elif phase == "expire":
        expired(boot, run, int(sys.argv[4]), sys.argv[5])
    else:
        after_restart(boot, run, *[int(x) for x in sys.argv[4:8]])
    sys.exit(1 if kw.FAILED else 0)
