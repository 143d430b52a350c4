#!/usr/bin/env python3
"""Plots of the benchmark results, PNG and SVG (bench/plots.sh runs it in the pinned venv).

    plot.py RESULTS_DIR OUT_DIR

Reads whichever of these RESULTS_DIR holds (bench/run.sh, bench/clients.sh, bench/capacity.sh,
bench/metrics_cost.sh, bench/littles_law.sh, bench/scaling.sh write them) and writes one PNG and one SVG per figure:

  latest.json       -> throughput_vs_kafka  (gregord / Kafka msgs/s per phase, produce, fetch,
                                             share drain with 1 consumer)
                       share_drain_consumers (share drain msgs/s vs consumers, both brokers)
                       cpu_rss              (broker CPU-s per phase; idle and peak RSS)
  clients.json      -> clients_share_drain  (share drain per client library: msgs/s, CPU-s, RSS)
  capacity.json     -> capacity_ceiling     (measured throughput vs the Little's-law ceiling, per W)
  metrics_cost.json -> metrics_cost         (GR_METRICS=ON with scraping vs OFF)
  littles_law.json  -> littles_law          (bench/littles_law.sh: measured vs partitions x cap / W,
                                             gregord and Kafka)
  scaling.json      -> scaling              (bench/scaling.sh: share drain records/s and broker CPU
                                             us per record vs consumers, per partition count)

BENCH_PLOT_FORMATS (default "png svg") chooses the formats. Each figure carries a caption naming its source file, the run's date and machine, and
the command, from the JSON itself (key "command" if present).
"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402,F401

GREGORD = "#2b7bba"
KAFKA = "#d9822b"
OTHER = ["#5aa469", "#9b59b6", "#7f8c8d"]
plt.rcParams.update({"font.size": 9, "axes.spines.top": False, "axes.spines.right": False,
                     "svg.hashsalt": "gregor", "svg.fonttype": "none"})

PHASES = [
    ("produce_java_acks1", "produce acks=1\nProducerPerformance"),
    ("produce_java_acksall", "produce acks=all\nProducerPerformance"),
    ("produce_kcat_acks1", "produce acks=1\nkcat -P"),
    ("produce_kcat_acksall", "produce acks=all\nkcat -P"),
    ("fetch_kcat", "fetch\nkcat -C"),
    ("fetch_libgregor", "fetch\nlibgregor"),
    ("share_drain_c1", "share drain\n1 consumer (libgregor)"),
]
CONSUMERS = [1, 2, 4, 8]


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def num(v):
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def caption(fig, doc, source):
    bits = [source]
    if doc.get("date"):
        bits.append(str(doc["date"]))
    if doc.get("machine"):
        bits.append(str(doc["machine"]))
    if doc.get("command"):
        bits.append("command: " + str(doc["command"]))
    fig.text(0.01, 0.005, " | ".join(bits), fontsize=6.5, color="#555555", ha="left", va="bottom", wrap=True)


def save(fig, out, name, written):
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    for ext in os.environ.get("BENCH_PLOT_FORMATS", "png svg").split():
        p = os.path.join(out, "%s.%s" % (name, ext))
        fig.savefig(p, dpi=130, metadata={"Date": None} if ext == "svg" else None)
        written.append(p)
    plt.close(fig)


def bars(ax, labels, series, colors, fmt="{:,.0f}", legend="lower right"):
    """Grouped horizontal bars: series = [(name, [values])]."""
    n = len(series)
    h = 0.8 / max(n, 1)
    for i, (name, vals) in enumerate(series):
        ys = [k + (i - (n - 1) / 2) * h for k in range(len(labels))]
        xs = [v if v is not None else 0 for v in vals]
        ax.barh(ys, xs, height=h, color=colors[i], label=name)
        for y, v in zip(ys, vals):
            ax.text(v if v else 0, y, " " + (fmt.format(v) if v is not None else "n/a"), va="center", fontsize=7)
    ax.set_yticks(range(len(labels)))
    ax.set_yticklabels(labels)
    ax.invert_yaxis()
    if legend:
        ax.legend(loc=legend, frameon=False)


def throughput_vs_kafka(doc, out, written):
    ph = doc.get("phases") or {}
    rows = [(k, lab) for k, lab in PHASES if any(num((ph.get(k) or {}).get(b, {}).get("msgs_s")) for b in ("gregord", "kafka"))]
    if not rows:
        return
    labels = [lab for _, lab in rows]
    g = [num(ph[k].get("gregord", {}).get("msgs_s")) for k, _ in rows]
    kf = [num(ph[k].get("kafka", {}).get("msgs_s")) for k, _ in rows]
    fig, ax = plt.subplots(figsize=(8, 0.75 * len(rows) + 1.4))
    bars(ax, labels, [("gregord", g), ("Apache Kafka", kf)], [GREGORD, KAFKA])
    ax.set_xlim(0, ax.get_xlim()[1] * 1.3)
    tr = ax.get_yaxis_transform()  # x in axes coordinates, y in data
    for i, (a, b) in enumerate(zip(g, kf)):
        if a and b:
            ax.text(1.01, i, "%.2f×" % (a / b), transform=tr, ha="left", va="center", fontsize=8, weight="bold")
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: "{:,.0f}".format(v)))
    ax.set_xlabel("records/s (1 KiB values, one partition; higher is better); right: gregord ÷ Kafka")
    ax.set_title("gregord vs Apache Kafka, same clients, one run (%s records per phase)" % format(int(doc.get("messages") or 0), ","))
    caption(fig, doc, "bench/run.sh -> latest.json")
    save(fig, out, "throughput_vs_kafka", written)


def share_drain_consumers(doc, out, written):
    ph = doc.get("phases") or {}
    pts = {b: [(c, num((ph.get("share_drain_c%d" % c) or {}).get(b, {}).get("msgs_s"))) for c in CONSUMERS]
           for b in ("gregord", "kafka")}
    if not any(v for b in pts for _, v in pts[b]):
        return
    fig, ax = plt.subplots(figsize=(6, 3.6))
    for b, color, name in (("gregord", GREGORD, "gregord"), ("kafka", KAFKA, "Apache Kafka")):
        xs = [c for c, v in pts[b] if v]
        ys = [v for c, v in pts[b] if v]
        if xs:
            ax.plot(xs, ys, marker="o", color=color, label=name)
            for x, y in zip(xs, ys):
                ax.annotate("{:,.0f}".format(y), (x, y), textcoords="offset points", xytext=(0, 5), ha="center", fontsize=7)
    present = sorted({c for b in pts for c, v in pts[b] if v})
    ax.set_xscale("log", base=2)
    ax.set_xticks(present)
    ax.set_xticklabels([str(c) for c in present])
    ax.set_xlim(present[0] / 1.3, present[-1] * 1.3)
    ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: "{:,.0f}".format(v)))
    ax.set_ylim(bottom=0)
    ax.set_xlabel("share consumers in the group (libgregor, implicit acknowledgement)")
    ax.set_ylabel("records/s drained")
    ax.set_title("Share drain vs number of consumers (%s records)" % format(int(doc.get("share_drain_messages") or doc.get("messages") or 0), ","))
    ax.legend(frameon=False)
    caption(fig, doc, "bench/run.sh -> latest.json")
    save(fig, out, "share_drain_consumers", written)


def cpu_rss(doc, out, written):
    ph = doc.get("phases") or {}
    rows = [(k, lab) for k, lab in PHASES if any(num((ph.get(k) or {}).get(b, {}).get("broker_cpu_s")) for b in ("gregord", "kafka"))]
    rss = doc.get("rss") or {}
    if not rows and not rss:
        return
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 0.6 * max(len(rows), 3) + 1.6), gridspec_kw={"width_ratios": [3, 2]})
    if rows:
        bars(a1, [lab for _, lab in rows],
             [("gregord", [num(ph[k].get("gregord", {}).get("broker_cpu_s")) for k, _ in rows]),
              ("Apache Kafka", [num(ph[k].get("kafka", {}).get("broker_cpu_s")) for k, _ in rows])],
             [GREGORD, KAFKA], fmt="{:.2f}")
        a1.set_xlabel("broker CPU-seconds over the phase (user+system; lower is better)")
        a1.set_xlim(0, a1.get_xlim()[1] * 1.15)
        a1.set_title("Broker CPU per phase")
    labels = [("idle_rss_mb", "idle RSS\nafter start-up"), ("peak_rss_mb", "peak RSS\n(VmHWM)")]
    labels = [(k, lab) for k, lab in labels if k in rss]
    if labels:
        bars(a2, [lab for _, lab in labels],
             [("gregord", [num(rss[k].get("gregord")) for k, _ in labels]),
              ("Apache Kafka", [num(rss[k].get("kafka")) for k, _ in labels])],
             [GREGORD, KAFKA], fmt="{:,.1f} MB", legend=None)
        a2.set_xscale("log")
        a2.set_xlabel("MB, log scale (lower is better)")
        a2.set_title("Broker memory")
        a2.set_xlim(1, max(num(rss[k].get("kafka")) or 1 for k, _ in labels) * 20)
    caption(fig, doc, "bench/run.sh -> latest.json")
    save(fig, out, "cpu_rss", written)


def clients_share_drain(doc, out, written):
    cl = ((doc.get("share_drain") or {}).get("clients")) or {}
    names = [c for c in ("libgregor", "java", "confluent") if cl.get(c)]
    if not names:
        return
    fig, axes = plt.subplots(1, 3, figsize=(10, 2.6))
    colors = [GREGORD, KAFKA, OTHER[0]]
    for ax, (field, title, fmt) in zip(axes, (("msgs_s", "records/s (higher: better)", "{:,.0f}"),
                                              ("cpu_s", "client CPU-s (lower: better)", "{:.2f}"),
                                              ("rss_mb", "peak RSS, MB (lower: better)", "{:.1f}"))):
        vals = [num(cl[c].get(field)) for c in names]
        ax.barh(range(len(names)), [v or 0 for v in vals], color=colors[:len(names)])
        for i, v in enumerate(vals):
            ax.text(v or 0, i, " " + (fmt.format(v) if v is not None else "n/a"), va="center", fontsize=7)
        ax.set_yticks(range(len(names)))
        ax.set_yticklabels(["confluent-kafka" if n == "confluent" else n for n in names])
        ax.invert_yaxis()
        ax.set_title(title)
        ax.set_xlim(0, max(v or 0 for v in vals) * 1.35 or 1)
        ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(3))
        ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: "{:,.0f}".format(v) if v >= 10 else "{:g}".format(v)))
    fig.suptitle("Share drain of %s records per client library, one gregord" % format(int(doc.get("messages") or 0), ","))
    caption(fig, doc, "bench/clients.sh -> clients.json")
    save(fig, out, "clients_share_drain", written)


def capacity_ceiling(doc, out, written):
    runs = [r for r in doc.get("runs", []) if num(r.get("measured_msgs_s"))]
    if not runs:
        return
    labels = ["W = %.2f s\n%d×%d locks, %d consumers" % (r["w_s"], r.get("partitions", 0), r.get("cap", 0), r.get("consumers", 0))
              for r in runs]
    series = [("measured ack rate", [num(r.get("measured_msgs_s")) for r in runs]),
              ("ceiling reported by gregord (capacity view)", [num(r.get("ceiling_reported")) for r in runs]),
              ("ceiling from /metrics: Σ cap ÷ W_mean", [num(r.get("ceiling_metrics")) for r in runs]),
              ("nominal partitions × cap ÷ W", [num(r.get("ceiling_nominal")) for r in runs])]
    series = [s for s in series if any(v is not None for v in s[1])]
    fig, ax = plt.subplots(figsize=(8, 1.2 * len(runs) + 1.6))
    bars(ax, labels, series, [GREGORD, KAFKA, OTHER[0], OTHER[2]])
    ax.set_xlabel("records/s")
    ax.set_xlim(0, ax.get_xlim()[1] * 1.15)
    ax.set_title("Little's-law ceiling vs measured throughput (consumers hold each record W s)")
    caption(fig, doc, "bench/capacity.sh -> capacity.json")
    save(fig, out, "capacity_ceiling", written)


def metrics_cost(doc, out, written):
    wl = doc.get("workloads") or {}
    names = [w for w in ("produce", "share_drain") if wl.get(w)]
    if not names:
        return
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(9, 2.8))
    labels = [w.replace("_", " ") for w in names]
    bars(a1, labels, [("GR_METRICS=ON, scraped 1/s", [num(wl[w].get("median_msgs_s_on")) for w in names]),
                      ("GR_METRICS=OFF", [num(wl[w].get("median_msgs_s_off")) for w in names])], [GREGORD, OTHER[2]],
         legend=None)
    a1.set_xlabel("records/s, median of runs")
    a1.set_xlim(0, a1.get_xlim()[1] * 1.3)
    bars(a2, labels, [("GR_METRICS=ON, scraped 1/s", [num(wl[w].get("median_cpu_s_on")) for w in names]),
                      ("GR_METRICS=OFF", [num(wl[w].get("median_cpu_s_off")) for w in names])], [GREGORD, OTHER[2]],
         fmt="{:.2f}", legend=None)
    a2.set_xlabel("broker CPU-s, median of runs")
    a2.set_xlim(0, a2.get_xlim()[1] * 1.3)
    fig.suptitle("Cost of the metrics (goal: <= 3 % throughput, <= 5 % broker CPU)", y=0.99)
    fig.subplots_adjust(top=0.78)
    fig.legend(*a1.get_legend_handles_labels(), loc="upper center", ncol=2, frameon=False, bbox_to_anchor=(0.5, 0.93))
    caption(fig, doc, "bench/metrics_cost.sh -> metrics_cost.json")
    save(fig, out, "metrics_cost", written)


def littles_law(doc, out, written):
    pts = [p for p in doc.get("points", []) if num(p.get("measured_msgs_s"))]
    if not pts:
        return
    labels = ["%s, W = %g ms" % (p["broker"], p["w_ms"]) for p in pts]
    series = [("measured (median of %s runs)" % "/".join(sorted({str(p["runs"]) for p in pts})),
               [num(p.get("measured_msgs_s")) for p in pts]),
              ("predicted partitions × cap ÷ W", [num(p.get("predicted_msgs_s")) for p in pts])]
    fig, ax = plt.subplots(figsize=(8, 0.8 * len(pts) + 1.6))
    bars(ax, labels, series, [GREGORD, OTHER[2]], legend="lower right")
    ax.set_xlim(0, ax.get_xlim()[1] * 1.45)
    for k, p in enumerate(pts):
        ax.text(ax.get_xlim()[1] * 0.99, k - 0.2, "measured ÷ predicted %.3f\nL mean %.0f of %d" % (
            p["ratio"], p["in_flight_mean"], p.get("window", 0)), ha="right", va="center", fontsize=7, color="#333333")
    ax.set_xlabel("records/s")
    ax.set_title("Little's-law ceiling: %d partitions × %d locks ÷ W, consumers holding each batch W"
                 % (doc.get("partitions", 0), doc.get("cap", 0)))
    caption(fig, doc, "bench/littles_law.sh -> littles_law.json")
    save(fig, out, "littles_law", written)


def scaling(doc, out, written):
    pts = [p for p in doc.get("points", []) if num(p.get("msgs_s"))]
    if not pts:
        return
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11.5, 3.6))
    styles = ["-", "--", ":"]
    brokers = list(dict.fromkeys(p["broker"] for p in pts))
    parts = sorted({p["partitions"] for p in pts})
    for bi, b in enumerate(brokers):
        color = GREGORD if b == "gregord" else KAFKA if b == "kafka" else OTHER[bi % 3]
        for pi, np_ in enumerate(parts):
            row = sorted((p for p in pts if p["broker"] == b and p["partitions"] == np_), key=lambda p: p["consumers"])
            if not row:
                continue
            xs = [p["consumers"] for p in row]
            lab = "%s, %d partition%s" % (b, np_, "" if np_ == 1 else "s")
            a1.plot(xs, [p["msgs_s"] for p in row], styles[pi % 3], marker="o", color=color, label=lab)
            cp = [(p["consumers"], p.get("cpu_us_per_record")) for p in row if num(p.get("cpu_us_per_record"))]
            if cp:
                a2.plot([x for x, _ in cp], [y for _, y in cp], styles[pi % 3], marker="o", color=color, label=lab)
    cons = sorted({p["consumers"] for p in pts})
    for ax in (a1, a2):
        ax.set_xscale("log", base=2)
        ax.set_xticks(cons)
        ax.set_xticklabels([str(c) for c in cons])
        ax.set_xlabel("consumers in the share group")
    a1.set_ylabel("share drain records/s (median)")
    a1.set_ylim(0, a1.get_ylim()[1] * 1.1)
    a2.set_ylabel("broker CPU µs per record")
    a2.set_yscale("log")
    a2.yaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
    a1.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: "{:,.0f}".format(v)))
    fig.suptitle("Share drain scaling, 1 KiB records, libgregor consumers", y=0.99)
    caption(fig, doc, "bench/scaling.sh -> scaling.json")
    fig.tight_layout(rect=(0, 0.06, 0.8, 1))
    fig.legend(*a1.get_legend_handles_labels(), loc="center right", frameon=False, fontsize=7)
    for ext in os.environ.get("BENCH_PLOT_FORMATS", "png svg").split():
        path = os.path.join(out, "scaling.%s" % ext)
        fig.savefig(path, dpi=130, metadata={"Date": None} if ext == "svg" else None)
        written.append(path)
    plt.close(fig)


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    res, out = argv[1], argv[2]
    os.makedirs(out, exist_ok=True)
    written = []
    latest = load(os.path.join(res, "latest.json"))
    if latest:
        throughput_vs_kafka(latest, out, written)
        share_drain_consumers(latest, out, written)
        cpu_rss(latest, out, written)
    for name, fn in (("clients.json", clients_share_drain), ("capacity.json", capacity_ceiling),
                     ("metrics_cost.json", metrics_cost), ("littles_law.json", littles_law),
                     ("scaling.json", scaling)):
        d = load(os.path.join(res, name))
        if d:
            fn(d, out, written)
    for p in written:
        print("plot: " + p)
    if not written:
        print("plot: no results in %s" % res, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
