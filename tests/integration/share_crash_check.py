#!/usr/bin/env python3
"""Checks the logs of the share-group crash test (tests/integration/test_share_crash.sh).

usage: share_crash_check.py OUTDIR N DELIVERY_LIMIT

OUTDIR/w*.log are written by dev.gregor.interop.ShareCrashWorker (one line per event, us = wall-clock
microseconds, one clock for all consumers since they run in one JVM):
  D us partition offset deliveryCount key   delivery to the application
  C us partition offset                     ACCEPTed; commitSync returned no exception for the partition (CONFIRMED)
  R us partition offset                     RELEASEd; commitSync returned no exception for the partition
  A us partition offset ok|Exception        acknowledgement commit callback
  X us partition Exception                  commitSync returned an exception for that partition
  E us Exception message                    poll/commitSync threw

Prints "ok   - ..." / "FAIL - ..." lines (counted by the shell test) and "stat ..." lines.
Checks: every record (key 0..N-1) was delivered at least once and keys map to one (partition, offset);
no record was delivered after its acknowledgement was CONFIRMED; delivery counts never went down between
successive deliveries of a record, and stay within 1..DELIVERY_LIMIT; after a confirmed RELEASE of a delivery
with count d, the next delivery of that record has a count > d (the AVAILABLE state and its count are durable).
OUTDIR/kills (optional, "k kill_us listening_again_us" per kill) adds the number of acknowledgements confirmed
although a kill happened between the delivery and the confirmation (informative).
"""
import glob
import os
import sys
from collections import defaultdict


def main():
    outdir, n, limit = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    deliveries = defaultdict(list)   # (p, o) -> [(us, dc, worker)]
    confirmed = {}                   # (p, o) -> (us, worker)  first confirmation
    released = defaultdict(list)     # (p, o) -> [(us, worker)]  confirmed RELEASEs
    key_of = {}                      # (p, o) -> key
    keys_seen = set()
    ev = defaultdict(int)
    cb_ok, cb_fail = set(), 0
    errors = defaultdict(int)
    bad_key = 0
    dup_confirm = 0
    for path in sorted(glob.glob(os.path.join(outdir, "w*.log"))):
        w = os.path.basename(path)[:-4]
        with open(path) as f:
            for line in f:
                t = line.split()
                if not t:
                    continue
                k = t[0]
                ev[k] += 1
                if k == "D" and len(t) >= 6:
                    us, p, o, dc = int(t[1]), int(t[2]), int(t[3]), int(t[4])
                    deliveries[(p, o)].append((us, dc, w))
                    key = t[5]
                    if key_of.setdefault((p, o), key) != key:
                        bad_key += 1
                    keys_seen.add(key)
                elif k == "C" and len(t) >= 4:
                    po = (int(t[2]), int(t[3]))
                    if po in confirmed:
                        dup_confirm += 1
                    else:
                        confirmed[po] = (int(t[1]), w)
                elif k == "R" and len(t) >= 4:
                    released[(int(t[2]), int(t[3]))].append((int(t[1]), w))
                elif k == "A" and len(t) >= 5:
                    if t[4] == "ok":
                        cb_ok.add((int(t[2]), int(t[3])))
                    else:
                        cb_fail += 1
                        errors["ack:" + t[4]] += 1
                elif k == "X" and len(t) >= 4:
                    errors["commit:" + t[3]] += 1
                elif k == "E" and len(t) >= 3:
                    errors["exc:" + t[2]] += 1

    n_deliv = sum(len(v) for v in deliveries.values())
    distinct = len(deliveries)
    expected_keys = {str(i) for i in range(n)}
    missing = expected_keys - keys_seen
    extra = keys_seen - expected_keys

    # 1. confirmed, then delivered again (to anyone)
    after_confirm = []
    # 1b. between the confirming worker's delivery and the confirmation, someone else got it
    double_held = []
    for po, (tc, wc) in confirmed.items():
        ds = sorted(deliveries.get(po, []))
        later = [d for d in ds if d[0] > tc]
        if later:
            after_confirm.append((po, tc, wc, later))
        mine = [d for d in ds if d[0] <= tc and d[2] == wc]
        if mine:
            t_mine = mine[-1][0]
            others = [d for d in ds if t_mine < d[0] <= tc and d[2] != wc]
            if others:
                double_held.append((po, t_mine, tc, wc, others))
    # 2. delivery counts non-decreasing, within 1..limit
    went_down = []
    out_of_range = []
    redelivered = 0
    dc_hist = defaultdict(int)
    for po, ds in deliveries.items():
        ds.sort()
        redelivered += len(ds) > 1
        for i, (us, dc, w) in enumerate(ds):
            dc_hist[dc] += 1
            if dc < 1 or dc > limit:
                out_of_range.append((po, us, dc, w))
            if i and dc < ds[i - 1][1]:
                went_down.append((po, ds[i - 1], (us, dc, w)))
    cb_mismatch = len(set(confirmed) ^ cb_ok) - sum(1 for po in released if po in cb_ok and po not in confirmed)
    # 2b. a confirmed RELEASE of the delivery with count d: the next delivery has count > d (unless archived)
    release_lost = []
    n_released = 0
    for po, rs in released.items():
        ds = deliveries.get(po, [])
        for tr, wr in rs:
            n_released += 1
            mine = [d for d in ds if d[0] <= tr and d[2] == wr]
            if not mine:
                continue
            d_rel = mine[-1][1]
            nxt = [d for d in ds if d[0] > tr]
            if nxt and nxt[0][1] <= d_rel:
                release_lost.append((po, mine[-1], tr, nxt[0]))
    # 3. acknowledgements confirmed although the broker was killed (and restarted) between the delivery
    #    and the confirmation: the acquisition died with the killed process, so such an ack must fail
    #    (the record is no longer acquired by this member) unless the old process answered it before dying.
    kills = []  # (kill_us, listening_again_us)
    kpath = os.path.join(outdir, "kills")
    if os.path.exists(kpath):
        with open(kpath) as f:
            for line in f:
                t = line.split()
                if len(t) >= 3:
                    kills.append((int(t[1]), int(t[2])))
    across = defaultdict(int)  # kill index -> records confirmed after that restart, delivered before that kill
    for po, (tc, wc) in confirmed.items():
        mine = [d[0] for d in deliveries.get(po, []) if d[0] <= tc and d[2] == wc]
        if not mine:
            continue
        td = max(mine)
        for i, (tk, tu) in enumerate(kills):
            if td < tk and tc > tu:
                across[i + 1] += 1

    print(f"stat deliveries {n_deliv}")
    print(f"stat distinct_records_delivered {distinct}")
    print(f"stat redeliveries {n_deliv - distinct} (records delivered more than once: {redelivered})")
    print(f"stat confirmed {len(confirmed)} (acks confirmed by commitSync; callback ok {len(cb_ok)}, "
          f"differ {cb_mismatch}, duplicate confirmations {dup_confirm})")
    print(f"stat releases_confirmed {n_released}")
    print(f"stat unconfirmed_records {n - len(confirmed)} (acked while gregord died, or ack failed)")
    print("stat delivery_count_histogram " + " ".join(f"{k}:{v}" for k, v in sorted(dc_hist.items())))
    print(f"stat acks_confirmed_across_a_restart {sum(across.values())} "
          + (" ".join(f"kill{k}:{v}" for k, v in sorted(across.items())) or ""))
    print("stat client_errors " + (" ".join(f"{k}:{v}" for k, v in sorted(errors.items())) or "none"))

    def ok(cond, what):
        print(("ok   - " if cond else "FAIL - ") + what)

    ok(not missing and not extra and bad_key == 0,
       f"every record delivered at least once ({len(keys_seen & expected_keys)}/{n} keys; "
       f"missing {len(missing)}, unexpected {len(extra)}, (partition,offset) with two keys {bad_key})")
    for k in sorted(missing, key=int)[:5]:
        print(f"#   never delivered: key {k}")
    ok(not after_confirm,
       f"no record delivered again after its acknowledgement was confirmed ({len(after_confirm)} records)")
    for po, tc, wc, later in after_confirm[:10]:
        print(f"#   p{po[0]} o{po[1]} confirmed by {wc} at {tc}; delivered again: "
              + ", ".join(f"{w} at {us} dc={dc}" for us, dc, w in later[:3]))
    ok(not double_held,
       f"no record delivered to another consumer between a delivery and its confirmed ack ({len(double_held)})")
    for po, tm, tc, wc, others in double_held[:10]:
        print(f"#   p{po[0]} o{po[1]} delivered to {wc} at {tm}, confirmed at {tc}; also delivered: "
              + ", ".join(f"{w} at {us} dc={dc}" for us, dc, w in others[:3]))
    ok(not went_down, f"delivery count never went down between successive deliveries ({len(went_down)} records)")
    for po, a, b in went_down[:10]:
        print(f"#   p{po[0]} o{po[1]}: dc {a[1]} ({a[2]} at {a[0]}) then dc {b[1]} ({b[2]} at {b[0]})")
    ok(not release_lost, f"after a confirmed RELEASE the next delivery count is higher ({n_released} releases, "
       f"{len(release_lost)} redelivered with a count not above the released one)")
    for po, d, tr, nx in release_lost[:10]:
        print(f"#   p{po[0]} o{po[1]}: dc {d[1]} ({d[2]} at {d[0]}) released at {tr}; next dc {nx[1]} ({nx[2]} at {nx[0]})")
    ok(not out_of_range, f"every delivery count within 1..{limit} ({len(out_of_range)} deliveries outside)")
    for po, us, dc, w in out_of_range[:5]:
        print(f"#   p{po[0]} o{po[1]} dc={dc} ({w} at {us})")


if __name__ == "__main__":
    main()
