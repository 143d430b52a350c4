#!/usr/bin/env python3
"""Reports of bench/littles_law.sh and bench/scaling.sh (standard library only).

  report_curves.py littles RESULTS RUNS.jsonl OUT.json PARTITIONS CAP
      RUNS.jsonl: one gregor_hold JSON line per run (plus broker, w_ms, run, loadavg). Per
      broker and W the median run (by rate): measured records/s, predicted = PARTITIONS x CAP
      / W, measured / predicted, L (client-side in-flight mean and peak) against PARTITIONS x
      CAP, W implied by Little's law (L / measured). Prints a table, writes OUT.json.
  report_curves.py scaling RESULTS RUNS.jsonl OUT.json
      RUNS.jsonl: one line per run {broker, consumers, partitions, run, records, msgs_s,
      cpu_s, ...}. Per broker and point the median run (by msgs_s), broker CPU us per record,
      and gregord / the other broker. Prints a table, writes OUT.json.
"""
import json
import sys


def kv_of(path):
    kv = {}
    for line in open(path):
        k, _, v = line.rstrip("\n").partition(" ")
        kv[k] = v
    return kv


def median_run(runs, key):
    """The run with the median value of key (the lower middle of an even count)."""
    srt = sorted(runs, key=lambda r: r[key])
    return srt[(len(srt) - 1) // 2]


def load_runs(path):
    return [json.loads(line) for line in open(path) if line.strip()]


def littles(res, runs_path, out, parts, cap):
    kv, runs = kv_of(res), load_runs(runs_path)
    parts, cap = int(parts), int(cap)
    window = parts * cap
    doc = {"date": kv.get("date"), "machine": kv.get("machine"), "command": kv.get("command"),
           "loadavg": [kv.get("loadavg_start"), kv.get("loadavg_end")], "partitions": parts, "cap": cap,
           "points": [], "runs": runs}
    print("\n%-8s %6s %5s %12s %12s %9s %10s %10s %9s %9s %s" % (
        "broker", "W ms", "runs", "measured/s", "predicted/s", "meas/pred", "L mean", "L peak", "hold ms",
        "W_L ms", "all runs meas/pred"))
    ok = True
    for b in dict.fromkeys(r["broker"] for r in runs):
        for w in sorted({r["w_ms"] for r in runs if r["broker"] == b}):
            rs = [r for r in runs if r["broker"] == b and r["w_ms"] == w and r.get("rate", 0) > 0]
            if not rs:
                print("%-8s %6g  no successful run" % (b, w))
                ok = False
                continue
            m = median_run(rs, "rate")
            pred = window / (w / 1000.0)
            pt = {"broker": b, "w_ms": w, "runs": len(rs), "measured_msgs_s": m["rate"], "predicted_msgs_s": pred,
                  "ratio": round(m["rate"] / pred, 4), "all_ratios": [round(r["rate"] / pred, 4) for r in rs],
                  "in_flight_mean": m["in_flight_mean"], "in_flight_peak": m["in_flight_peak"],
                  "window": window, "hold_mean_ms": m["hold_mean_ms"], "little_w_ms": m["little_w_ms"],
                  "within_10pct": abs(m["rate"] / pred - 1) <= 0.10}
            doc["points"].append(pt)
            print("%-8s %6g %5d %12.1f %12.1f %9.3f %10.1f %10d %9.2f %9.2f %s" % (
                b, w, len(rs), m["rate"], pred, pt["ratio"], m["in_flight_mean"], m["in_flight_peak"],
                m["hold_mean_ms"], m["little_w_ms"], " ".join("%.3f" % x for x in pt["all_ratios"])))
    print("predicted = %d partitions x %d locks / W; L = records held by the consumers (client side), "
          "window = %d; L above the window: the cap is soft (an acquisition runs to the end of a log batch)"
          % (parts, cap, window))
    json.dump(doc, open(out, "w"), indent=1)
    print("written: " + out)
    return 0 if ok else 1


def scaling(res, runs_path, out):
    kv, runs = kv_of(res), load_runs(runs_path)
    doc = {"date": kv.get("date"), "machine": kv.get("machine"), "command": kv.get("command"),
           "loadavg": [kv.get("loadavg_start"), kv.get("loadavg_end")], "points": [], "runs": runs}
    brokers = list(dict.fromkeys(r["broker"] for r in runs))
    pts = sorted({(r["partitions"], r["consumers"]) for r in runs})
    med = {}
    for b in brokers:
        for p, c in pts:
            rs = [r for r in runs if r["broker"] == b and r["partitions"] == p and r["consumers"] == c
                  and r.get("msgs_s")]
            if rs:
                m = dict(median_run(rs, "msgs_s"))
                m["runs"] = len(rs)
                m["all_msgs_s"] = [r["msgs_s"] for r in rs]
                if m.get("cpu_s") is not None and m.get("records"):
                    m["cpu_us_per_record"] = round(m["cpu_s"] / m["records"] * 1e6, 3)
                med[(b, p, c)] = m
                doc["points"].append(m)
    other = next((b for b in brokers if b != "gregord"), None)
    hdr = "%-10s %-9s" % ("partitions", "consumers")
    for b in brokers:
        hdr += " %14s %10s" % (b + " rec/s", "CPU us/rec")
    if "gregord" in brokers and other:
        hdr += " %9s %9s" % ("rate x", "CPU x")
    print("\n" + hdr)
    for p, c in pts:
        line = "%-10d %-9d" % (p, c)
        for b in brokers:
            m = med.get((b, p, c))
            line += " %14s %10s" % ("%.0f" % m["msgs_s"] if m else "failed",
                                    "%.2f" % m["cpu_us_per_record"] if m and "cpu_us_per_record" in m else "-")
        g, o = med.get(("gregord", p, c)), med.get((other, p, c)) if other else None
        if g and o:
            rx = g["msgs_s"] / o["msgs_s"]
            cx = (g["cpu_us_per_record"] / o["cpu_us_per_record"]
                  if g.get("cpu_us_per_record") and o.get("cpu_us_per_record") else None)
            line += " %9.2f %9s" % (rx, "%.3f" % cx if cx else "-")
            doc.setdefault("ratios", []).append({"partitions": p, "consumers": c, "rate_ratio": round(rx, 3),
                                                 "cpu_ratio": round(cx, 4) if cx else None})
        print(line)
    print("rate = records / (first record of any consumer -> last record of any); CPU = broker utime+stime "
          "over the drain / records; median of the runs per point")
    json.dump(doc, open(out, "w"), indent=1)
    print("written: " + out)
    return 0 if med else 1


def main(argv):
    if len(argv) == 7 and argv[1] == "littles":
        return littles(*argv[2:])
    if len(argv) == 5 and argv[1] == "scaling":
        return scaling(*argv[2:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
