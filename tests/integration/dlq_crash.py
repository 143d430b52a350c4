#!/usr/bin/env python3
"""Client side of test_dlq_crash.sh (docs/dlq.md §7): a share consumer that dead-letters a
deterministic share of the records while gregord is killed and restarted under it.

  dlq_crash.py setup BOOT N      topic dlqc-src (2 partitions x N records, keys k-P-O), DLQ
                                 topic dlq.crash (1 partition, flag on), share.version=2, group
                                 configs (DLQ, copy.record, delivery limit 2, 30 s locks)
  dlq_crash.py consume BOOT SLOWFILE
                                 fetch and acknowledge by offset: O % 10 == 0 REJECT, O % 10 == 1
                                 RELEASE (archived at the limit, count 2), else ACCEPT; paced
                                 while SLOWFILE exists; reconnects and rejoins after every kill;
                                 ends when DescribeShareGroupOffsets shows lag 0 everywhere
  dlq_crash.py check BOOT N      every archived record is in the DLQ exactly once, nothing else
With 30 s locks, no session or member release and limit 2, exactly the REJECTed and the
RELEASEd offsets end archived (a restart forgets locks without counting a delivery), so the
expected DLQ content follows from the offsets."""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kwire as kw  # noqa: E402
import produce_fetch_wire as pfw  # noqa: E402
import share_coord_wire as scw  # noqa: E402
import share_fetch_wire as sfw  # noqa: E402
import test_dlq_reference as ref  # noqa: E402

SRC, DLQ, GROUP = "dlqc-src", "dlq.crash", "dlqc-g"
REJECT, RELEASE, ACCEPT = 3, 2, 1


def decide(off):
    return REJECT if off % 10 == 0 else RELEASE if off % 10 == 1 else ACCEPT


def setup(boot, n):
    ctx = ref.Ctx(boot)
    ctx.topic(SRC, 2)
    ctx.topic(DLQ, 1, {ref.TOPIC_KEY: "true"})
    for p in range(2):
        for base in range(0, n, 5):  # small batches: the paced consumer takes a few at a time
            recs = [(b"k-%d-%d" % (p, o), b"v-%d-%d" % (p, o), [], int(time.time() * 1000))
                    for o in range(base, min(n, base + 5))]
            r = pfw.produce(ctx.pc, SRC, ref.record_batch(recs, recs[0][3]), acks=-1, part=p)
            assert r["err"] == 0, r
    u = ref.update_features(ctx.c, [("share.version", 2, 1)])
    assert u["error"] == 0, u
    cfg = {ref.DLQ_KEYS[0]: DLQ, ref.DLQ_KEYS[1]: "true", "share.delivery.count.limit": "2",
           "share.record.lock.duration.ms": "30000", "share.auto.offset.reset": "earliest"}
    a = ref.set_group(ctx, GROUP, cfg)
    assert a["error"] == 0, a
    print("setup done")


def lag_zero(c):
    err, _msg, out = scw.describe_offsets(c, GROUP, {SRC: [0, 1]})
    return err == 0 and len(out) == 2 and all(v["lag"] == 0 and v["err"] == 0 for v in out.values())


def session(boot):
    """Connect, join (heartbeat until both partitions are assigned), new share session."""
    hc, c = kw.Conn(boot, client_id="dlqc"), kw.Conn(boot, client_id="dlqc")
    tid = ref.metadata_partitions(type("X", (), {"c": hc})(), SRC)["id"]
    epoch = 0
    for _ in range(100):
        r = scw.hb(hc, GROUP, "dlqc-hb", epoch, [SRC] if epoch == 0 else None)
        if r["err"] == 0:
            epoch = r["epoch"]
            if sum(len(p) for p in (r["assignment"] or {}).values()) >= 2:
                break
        time.sleep(0.1)
    return hc, c, tid, epoch


def consume(boot, slowfile):
    member, delivered, t_end = "dlqc-m", 0, time.time() + 240
    while time.time() < t_end:
        try:
            t0 = time.time()
            hc, c, tid, hb_epoch = session(boot)
            print("%.3f joined in %.3f s" % (time.time(), time.time() - t0), file=sys.stderr)
            epoch, idle, t_hb = 0, 0, time.time()
            while time.time() < t_end:
                if time.time() - t_hb > 3:  # stay a member (session timeout 45 s)
                    hb_epoch = scw.hb(hc, GROUP, "dlqc-hb", hb_epoch)["epoch"]
                    t_hb = time.time()
                slow = os.path.exists(slowfile)
                r = sfw.share_fetch(c, GROUP, member, epoch, [(tid, [(0, []), (1, [])])], max_wait=200,
                                    max_records=6 if slow else 500, batch_size=6 if slow else 500)
                if r["err"] != 0:
                    raise RuntimeError("ShareFetch error %d" % r["err"])
                epoch += 1
                acks = {}
                for (_t, p), v in r["parts"].items():
                    for first, last, _cnt in v["acquired"] or []:
                        for o in range(first, last + 1):
                            acks.setdefault(p, []).append((o, o, [decide(o)]))
                            delivered += 1
                if acks:
                    a = sfw.share_ack(c, GROUP, member, epoch, [(tid, sorted(acks.items()))])
                    if a["err"] != 0:
                        raise RuntimeError("ShareAcknowledge error %d" % a["err"])
                    epoch += 1
                    idle = 0
                else:
                    idle += 1
                    if idle % 3 == 0 and not slow and lag_zero(hc):
                        print("drained after %d deliveries" % delivered)
                        return 0
                    if idle % 50 == 0:  # a lag that does not drain: say where it stands
                        print("%.3f idle, offsets %r" % (time.time(), scw.describe_offsets(hc, GROUP, {SRC: [0, 1]})),
                              file=sys.stderr)
                if slow:
                    time.sleep(0.05)
        except Exception as e:  # noqa: BLE001 - the broker was killed: reconnect
            print("%.3f reconnect after: %r" % (time.time(), e), file=sys.stderr)
            time.sleep(0.1)
    print("not drained in time after %d deliveries" % delivered)
    return 1


def check(boot, n):
    ctx = ref.Ctx(boot)
    bad = 0

    def want(desc, got, exp):
        nonlocal bad
        if got == exp:
            print("ok - %s" % desc)
        else:
            bad += 1
            print("FAIL - %s: got %r, expected %r" % (desc, str(got)[:300], str(exp)[:300]))
    recs = []
    for b in ref.dlq_records(ctx, DLQ, 1)["0"]["batches"]:
        recs += b["records"]
    seen = {}
    for r in recs:
        h = {x["key"]: x["value"] for x in r["headers"]}
        k = (int(h["__dlq.errors.partition"]), int(h["__dlq.errors.offset"]))
        seen.setdefault(k, []).append((h["__dlq.errors.message"], h["__dlq.errors.delivery.count"], r["key"],
                                       h["__dlq.errors.group"], h["__dlq.errors.topic"]))
    exp = {}
    for p in range(2):
        for o in range(n):
            if decide(o) == REJECT:
                exp[(p, o)] = "Offset rejected by client."
            elif decide(o) == RELEASE:
                exp[(p, o)] = "Offset delivery count exceeded the threshold."
    dup = sorted(k for k, v in seen.items() if len(v) > 1)
    missing = sorted(k for k in exp if k not in seen)
    extra = sorted(k for k in seen if k not in exp)
    want("DLQ records: one per archived record (%d expected)" % len(exp), len(recs), len(exp))
    want("no source record dead-lettered twice", dup[:10], [])
    want("every archived record dead-lettered", missing[:10], [])
    want("nothing else dead-lettered", extra[:10], [])
    wrong = [k for k, v in seen.items() if k in exp and (v[0][0] != exp[k] or v[0][2] != "k-%d-%d" % k or
                                                         v[0][3] != GROUP or v[0][4] != SRC or
                                                         (exp[k].startswith("Offset delivery") and v[0][1] != "2"))]
    want("headers and copied key match the source record", sorted(wrong)[:10], [])
    return 1 if bad else 0


if __name__ == "__main__":
    a = sys.argv
    if a[1] == "setup":
        setup(a[2], int(a[3]))
    elif a[1] == "consume":
        sys.exit(consume(a[2], a[3]))
    elif a[1] == "check":
        sys.exit(check(a[2], int(a[3])))
