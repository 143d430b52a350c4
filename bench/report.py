#!/usr/bin/env python3
"""Helpers for bench/run.sh (standard library only).

  report.py apikeys HOST PORT           print the API keys the broker advertises (ApiVersions v0)
  report.py report RESULTS OUT.json     read the "key value" lines run.sh wrote, print the
                                        table with ratios and goals, write OUT.json
  report.py compare RESULTS             the "gregord.K" and "kafka.K" lines side by side with
                                        gregord / kafka (a results file of one broker only:
                                        its lines as they are)

Units: MB = 10^6 bytes of record payload (1 KiB values, keys none); msgs/s and MB/s are
per phase; CPU-seconds are utime+stime deltas of the broker process over the phase.
"""
import json
import socket
import struct
import sys


def apikeys(host, port):
    cid = b"gregor-bench"
    body = struct.pack(">hhih", 18, 0, 1, len(cid)) + cid
    with socket.create_connection((host, int(port)), timeout=10) as s:
        s.sendall(struct.pack(">i", len(body)) + body)
        hdr = _recv(s, 4)
        (n,) = struct.unpack(">i", hdr)
        data = _recv(s, n)
    _corr, err, count = struct.unpack(">ihi", data[:10])
    keys = []
    for i in range(count):
        k, _lo, _hi = struct.unpack(">hhh", data[10 + 6 * i:16 + 6 * i])
        keys.append(k)
    print(" ".join(str(k) for k in sorted(keys)))
    return 0 if err == 0 else 1


def _recv(s, n):
    out = b""
    while len(out) < n:
        chunk = s.recv(n - len(out))
        if not chunk:
            raise EOFError("connection closed")
        out += chunk
    return out


def load(path):
    r = {}
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            k, _, v = line.partition(" ")
            try:
                r[k] = float(v) if v not in ("", "nan") else None
            except ValueError:
                r[k] = v
    return r


def aggregate(r):
    """Repeated phases are stored as B.PHASE.rN.FIELD: report the run with the median msgs/s
    as B.PHASE.FIELD, and every run's msgs/s in B.PHASE.runs."""
    runs = {}
    for k in list(r):
        parts = k.split(".")
        if len(parts) == 4 and parts[2][:1] == "r" and parts[2][1:].isdigit():
            runs.setdefault((parts[0], parts[1]), {}).setdefault(parts[2], {})[parts[3]] = r[k]
    for (b, ph), by_run in runs.items():
        ok = [v for v in by_run.values() if isinstance(v.get("msgs_s"), float)]
        notes = [v["note"] for v in by_run.values() if v.get("note") is not None]
        if not ok:
            r[f"{b}.{ph}.note"] = notes[0] if notes else "no-run"
            continue
        ok.sort(key=lambda v: v["msgs_s"])
        med = ok[(len(ok) - 1) // 2] if len(ok) % 2 == 0 else ok[len(ok) // 2]
        for field, v in med.items():
            r[f"{b}.{ph}.{field}"] = v
        r[f"{b}.{ph}.runs"] = "/".join(f"{v['msgs_s']:.0f}" for v in ok)
        if notes:
            r[f"{b}.{ph}.note"] = f"{len(notes)}-run(s)-failed:{notes[0]}"
    return r


def fmt(v, nd=1):
    if v is None:
        return "n/a"
    if isinstance(v, str):
        return v
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    return f"{v:.{nd}f}"


def ratio(a, b):
    if a is None or b is None or isinstance(a, str) or isinstance(b, str) or b == 0:
        return None
    return a / b


def mark(ok):
    return "n/a" if ok is None else ("met" if ok else "NOT met")


def report(path, out):
    r = aggregate(load(path))
    g = lambda k: r.get(k)  # noqa: E731
    msgs = int(g("messages") or 0)
    raw = g("loopback_mb_s")
    brokers = ["gregord", "kafka"]
    phases = [
        ("produce_java_acks1", "produce acks=1  (ProducerPerformance)"),
        ("produce_java_acksall", "produce acks=all (ProducerPerformance)"),
        ("produce_kcat_acks1", "produce acks=1  (kcat -P)"),
        ("produce_kcat_acksall", "produce acks=all (kcat -P)"),
        ("fetch_kcat", "fetch (kcat -C)"),
        ("fetch_libgregor", "fetch (libgregor consumer)"),
        ("fetch_java", "fetch (ConsumerPerformance)"),
    ] + [(f"share_drain_c{k}", f"share drain, {k} consumer(s) (libgregor)") for k in (1, 2, 4, 8)
         if any(f"{b}.share_drain_c{k}.msgs_s" in r or f"{b}.share_drain_c{k}.note" in r for b in brokers)]
    res = {
        "messages": msgs,
        "record_bytes": 1024,
        "loopback_mb_s": raw,
        "machine": g("machine"),
        "loadavg_start": g("loadavg_start"),
        "loadavg_end": g("loadavg_end"),
        "repeat": g("repeat"),
        "date": g("date"),
        "command": g("command"),
        "share_drain_messages": g("share_drain_messages"),
        "share_drain_partitions": g("share_drain_partitions"),
        "phases": {},
        "rss": {},
        "startup": {},
        "goals": {},
    }

    print()
    print(f"Gregor benchmark: {msgs:,} messages x 1 KiB ({msgs * 1024 / 1e6:,.0f} MB) on 127.0.0.1, "
          f"{g('date')}, {g('machine')}")
    print(f"raw loopback TCP copy of the same bytes: {fmt(raw)} MB/s (median of 3); "
          f"1-min load average at start/end: {fmt(g('loadavg_start'), 2)}/{fmt(g('loadavg_end'), 2)}")
    print(f"kcat phases: median of {fmt(g('repeat'), 0)} runs (runs listed in msgs/s); "
          f"CPU-s = broker utime+stime over the phase; load = 1-min load average at the phase start")
    print()
    hdr = f"{'phase':40} {'broker':8} {'msgs/s':>10} {'MB/s':>8} {'%raw':>6} {'CPU-s':>7} {'client CPU-s':>12} {'load':>5}"
    print(hdr)
    print("-" * len(hdr))
    for key, label in phases:
        res["phases"][key] = {}
        for b in brokers:
            mps = g(f"{b}.{key}.msgs_s")
            mbs = g(f"{b}.{key}.mb_s")
            cpu = g(f"{b}.{key}.cpu_s")
            ccpu = g(f"{b}.{key}.client_cpu_s")
            note = g(f"{b}.{key}.note")
            runs = g(f"{b}.{key}.runs")
            load_ = g(f"{b}.{key}.loadavg")
            pr = ratio(mbs, raw)
            res["phases"][key][b] = {"msgs_s": mps, "mb_s": mbs, "broker_cpu_s": cpu, "client_cpu_s": ccpu,
                                     "pct_of_raw": None if pr is None else 100 * pr, "note": note,
                                     "runs_msgs_s": runs, "loadavg": load_}
            if mps is None and note:
                print(f"{label:40} {b:8} {'n/a: ' + note}")
                continue
            extra = f"  runs {runs}" if isinstance(runs, str) else ""
            print(f"{label:40} {b:8} {fmt(mps, 0):>10} {fmt(mbs):>8} {fmt(None if pr is None else 100 * pr, 0):>6} "
                  f"{fmt(cpu, 2):>7} {fmt(ccpu, 2):>12} {fmt(load_):>5}{extra}")
        rr = ratio(g(f"gregord.{key}.msgs_s"), g(f"kafka.{key}.msgs_s"))
        res["phases"][key]["gregord_over_kafka"] = rr
        if rr is not None:
            print(f"{'':40} {'ratio':8} gregord/Kafka = {rr:.2f}x")
    print()
    print(f"{'memory':40} {'gregord':>12} {'kafka':>12} {'gregord/kafka':>14}")
    for key, label in [("idle_rss_mb", "idle RSS after start-up (MB)"), ("peak_rss_mb", "peak RSS, VmHWM (MB)")]:
        a, b = g(f"gregord.{key}"), g(f"kafka.{key}")
        rr = ratio(a, b)
        res["rss"][key] = {"gregord": a, "kafka": b, "ratio": rr}
        print(f"{label:40} {fmt(a):>12} {fmt(b):>12} {fmt(rr, 3):>14}")
    print()
    st = {k: g(f"startup.{k}") for k in ["partitions", "gregord_port_ms", "gregord_open_ms", "gregord_port_ms_runs",
                                        "kafka_restart_ms", "gregord_data_mb"]}
    res["startup"] = st
    print(f"start-up with {fmt(st['partitions'], 0)} partitions (data {fmt(st['gregord_data_mb'])} MB): gregord port "
          f"answers after {fmt(st['gregord_port_ms'], 0)} ms (median; runs: {st['gregord_port_ms_runs']}), "
          f"log: opened in {fmt(st['gregord_open_ms'], 0)} ms; Apache Kafka restart: {fmt(st['kafka_restart_ms'], 0)} ms")
    print()

    # Goals (issue 2). A produce phase is judged with the faster of the two clients for each broker,
    # so that a client that is itself the bottleneck does not decide it.
    def best(b, keys, what="msgs_s"):
        vals = [g(f"{b}.{k}.{what}") for k in keys]
        vals = [v for v in vals if isinstance(v, float)]
        return max(vals) if vals else None

    p1 = ["produce_java_acks1", "produce_kcat_acks1"]
    pa = ["produce_java_acksall", "produce_kcat_acksall"]
    fk = ["fetch_kcat", "fetch_libgregor"]
    goals = []
    for name, keys in [("produce acks=1", p1), ("produce acks=all", pa), ("fetch", fk)]:
        rr = ratio(best("gregord", keys), best("kafka", keys))
        goals.append((f"{name} throughput >= 2x Apache Kafka", rr, None if rr is None else rr >= 2.0, f"{fmt(rr, 2)}x"))
    rss = ratio(g("gregord.peak_rss_mb"), g("kafka.peak_rss_mb"))
    goals.append(("peak RSS <= 1/20 of Apache Kafka", rss, None if rss is None else rss <= 0.05,
                  "1/" + fmt(None if not rss else 1 / rss, 0)))
    fr = ratio(best("gregord", fk, "mb_s"), raw)
    goals.append(("fetch >= 50 % of raw copy", fr, None if fr is None else fr >= 0.5,
                  f"{fmt(None if fr is None else 100 * fr, 0)} %"))
    pr = ratio(best("gregord", p1, "mb_s"), raw)
    goals.append(("produce acks=1 >= 30 % of raw copy", pr, None if pr is None else pr >= 0.3,
                  f"{fmt(None if pr is None else 100 * pr, 0)} %"))
    idle = g("gregord.idle_rss_mb")
    goals.append(("idle RSS < 20 MB", idle, None if idle is None else idle < 20, f"{fmt(idle)} MB"))
    print("goals (issue 2; produce/fetch judged with the faster client per broker)")
    for name, val, ok, shown in goals:
        print(f"  {name:45} {shown:>10}  {mark(ok)}")
        res["goals"][name] = {"value": val, "met": ok}
    with open(out, "w") as f:
        json.dump(res, f, indent=2, sort_keys=True)
        f.write("\n")
    print(f"\nresults: {out}")
    return 0


def compare(path):
    vals = {}
    for line in open(path):
        k, _, v = line.strip().partition(" ")
        vals[k] = v
    names = [n for n in ("gregord", "kafka") if any(k.startswith(n + ".") for k in vals)]
    if len(names) < 2:
        for k, v in vals.items():
            print("%-44s %s" % (k, v))
        return 0
    keys = sorted({k.split(".", 1)[1] for k in vals if k.startswith(("gregord.", "kafka."))})
    print("\n%-44s %14s %14s %8s" % ("measure", "gregord", "kafka", "ratio"))
    for k in keys:
        g, f = vals.get("gregord." + k, "-"), vals.get("kafka." + k, "-")
        try:
            ratio = "%.3f" % (float(g) / float(f))
        except (ValueError, ZeroDivisionError):
            ratio = ""
        print("%-44s %14s %14s %8s" % (k, g, f, ratio))
    return 0


def main(argv):
    if len(argv) >= 4 and argv[1] == "apikeys":
        return apikeys(argv[2], argv[3])
    if len(argv) >= 4 and argv[1] == "report":
        return report(argv[2], argv[3])
    if len(argv) >= 3 and argv[1] == "compare":
        return compare(argv[2])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
