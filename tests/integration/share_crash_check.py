#!/usr/bin/env python3
"""Checks the logs of the share-group crash test (tests/integration/test_share_crash.sh).

usage: share_crash_check.py OUTDIR N DELIVERY_LIMIT

OUTDIR/w*.log are written by dev.gregor.interop.ShareCrashWorker (one line per event, us = wall-clock
microseconds, one clock for all consumers since they run in one JVM):
  D us partition offset deliveryCount key   delivery to the application
  C us partition offset                     commitSync returned no exception for that partition (CONFIRMED)
  A us partition offset ok|Exception        acknowledgement commit callback
  X us partition Exception                  commitSync returned an exception for that partition
  E us Exception message                    poll/commitSync threw

Prints "ok   - ..." / "FAIL - ..." lines (counted by the shell test) and "stat ..." lines.
Checks: every record (key 0..N-1) was delivered at least once and keys map to one (partition, offset);
no record was delivered after its acknowledgement was CONFIRMED; delivery counts never went down between
successive deliveries of a record, and stay within 1..DELIVERY_LIMIT.
"""
import glob
import os
import sys
from collections import defaultdict


def main():
    outdir, n, limit = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    deliveries = defaultdict(list)   # (p, o) -> [(us, dc, worker)]
    confirmed = {}                   # (p, o) -> (us, worker)  first confirmation
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
    cb_mismatch = len(set(confirmed) ^ cb_ok)

    print(f"stat deliveries {n_deliv}")
    print(f"stat distinct_records_delivered {distinct}")
    print(f"stat redeliveries {n_deliv - distinct} (records delivered more than once: {redelivered})")
    print(f"stat confirmed {len(confirmed)} (acks confirmed by commitSync; callback ok {len(cb_ok)}, "
          f"differ {cb_mismatch}, duplicate confirmations {dup_confirm})")
    print(f"stat unconfirmed_records {n - len(confirmed)} (acked while gregord died, or ack failed)")
    print("stat delivery_count_histogram " + " ".join(f"{k}:{v}" for k, v in sorted(dc_hist.items())))
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
    ok(not out_of_range, f"every delivery count within 1..{limit} ({len(out_of_range)} deliveries outside)")
    for po, us, dc, w in out_of_range[:5]:
        print(f"#   p{po[0]} o{po[1]} dc={dc} ({w} at {us})")


if __name__ == "__main__":
    main()
