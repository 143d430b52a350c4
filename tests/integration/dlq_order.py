#!/usr/bin/env python3
"""Client side of test_dlq_fsync_order.sh (docs/dlq.md §7, "Order on disk").

  dlq_order.py setup BOOT N     topic dlqo-src (1 partition, N records in batches of 4), DLQ topic dlq.order (1
                                partition, flag on), share.version=2, group dlqo-g with the DLQ
  dlq_order.py run BOOT LAST    one member fetches 4 at a time and acknowledges each record
                                (REJECT when offset % 4 == 0, else ACCEPT) until LAST is
                                acknowledged; every answer must be error-free
  dlq_order.py fault BOOT       one more fetch; REJECTs all it got: the answer must carry
                                KAFKA_STORAGE_ERROR (56; the DLQ fsync fails under the shim)"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import produce_fetch_wire as pfw  # noqa: E402
import share_coord_wire as scw  # noqa: E402
import share_fetch_wire as sfw  # noqa: E402
import test_dlq_reference as ref  # noqa: E402

SRC, DLQ, GROUP, MEMBER = "dlqo-src", "dlq.order", "dlqo-g", "dlqo-m"
REJECT, ACCEPT = 3, 1


def setup(boot, n):
    ctx = ref.Ctx(boot)
    ctx.topic(SRC, 1)
    ctx.topic(DLQ, 1, {ref.TOPIC_KEY: "true"})
    now = int(time.time() * 1000)
    for base in range(0, n, 4):  # batches of 4: a fetch acquires whole batches
        recs = [(b"k-%d" % o, b"v-%d" % o, [], now) for o in range(base, min(n, base + 4))]
        r = pfw.produce(ctx.pc, SRC, ref.record_batch(recs, now), acks=-1, part=0)
        assert r["err"] == 0, r
    u = ref.update_features(ctx.c, [("share.version", 2, 1)])
    assert u["error"] == 0, u
    cfg = {ref.DLQ_KEYS[0]: DLQ, ref.DLQ_KEYS[1]: "true", "share.record.lock.duration.ms": "30000",
           "share.auto.offset.reset": "earliest"}
    a = ref.set_group(ctx, GROUP, cfg)
    assert a["error"] == 0, a
    print("setup done")


def join(ctx):
    hc, c = ctx.conn(), ctx.conn()
    tid = ctx.tid(SRC)
    epoch = 0
    for _ in range(100):
        r = scw.hb(hc, GROUP, "dlqo-hb", epoch, [SRC] if epoch == 0 else None)
        if r["err"] == 0:
            epoch = r["epoch"]
            if sum(len(p) for p in (r["assignment"] or {}).values()) >= 1:
                return c, tid
        time.sleep(0.1)
    raise RuntimeError("no assignment")


def fetch(c, tid, epoch):
    r = sfw.share_fetch(c, GROUP, MEMBER, epoch, [(tid, [(0, [])])], max_wait=500, max_records=4, batch_size=4)
    offs = []
    for v in r["parts"].values():
        for first, last, _cnt in v["acquired"] or []:
            offs += range(first, last + 1)
    return r["err"], offs


def ack_errors(a):
    return [a["err"]] + [v["err"] for v in a["parts"].values()]


def run(boot, last, fault):
    ctx = ref.Ctx(boot)
    c, tid = join(ctx)
    epoch, done, t_end = 0, -1, time.time() + 20
    while time.time() < t_end:
        err, offs = fetch(c, tid, epoch)
        epoch += 1
        if err:
            print("FAIL - ShareFetch error %d" % err)
            return 1
        if not offs:
            continue
        kinds = [REJECT if fault or o % 4 == 0 else ACCEPT for o in offs]
        a = sfw.share_ack(c, GROUP, MEMBER, epoch, [(tid, [(0, [(o, o, [k]) for o, k in zip(offs, kinds)])])])
        epoch += 1
        errs = ack_errors(a)
        if fault:
            ok = 56 in errs
            print("%s - the acknowledgement of %s answers KAFKA_STORAGE_ERROR (got %s)"
                  % ("ok" if ok else "FAIL", offs, errs))
            return 0 if ok else 1
        if any(errs):
            print("FAIL - ShareAcknowledge errors %s for %s" % (errs, offs))
            return 1
        done = max([done] + offs)
        if done >= last:
            print("ok - acknowledged up to %d" % done)
            return 0
    print("FAIL - not acknowledged up to %d in time (at %d)" % (last, done))
    return 1


if __name__ == "__main__":
    a = sys.argv
    if a[1] == "setup":
        setup(a[2], int(a[3]))
    elif a[1] == "run":
        sys.exit(run(a[2], int(a[3]), False))
    elif a[1] == "fault":
        sys.exit(run(a[2], 0, True))
