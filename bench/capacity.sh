#!/usr/bin/env bash
# bench/capacity.sh: the Little's-law ceiling against measured throughput, for two values of W
# (part of `make bench`; alone: GR_BUILD_DIR=build bash bench/capacity.sh).
#
# One gregord with the admin listener. For each W: a topic of P partitions holding enough records
# for the whole run, a new share group with share.partition.max.record.locks=CAP (the cap) and
# share.auto.offset.reset=earliest, and K libgregor consumers (gregor_bench_client share-drain,
# max.poll.records=B, GR_BENCH_HOLD_MS=W: each batch is held W before the next poll acknowledges
# it). K x B > P x CAP, so the record locks bind and the group runs at its ceiling.
# After a warm-up, /metrics is scraped twice MEASURE seconds apart:
#   measured        = accept acknowledgements of the group in between / MEASURE;
#   ceiling_metrics = sum over the share-partitions of cap / W_mean, W_mean = the delta of
#                     gregor_share_in_flight_seconds_sum / the delta of its _count;
#   ceiling_reported = the group's ceiling from GET /v1/share-groups/<group>/capacity (the
#                     capacity view, read at the second scrape);
#   ceiling_nominal = P x CAP / W (W as set: the consumers' hold, without the round trip).
# Writes $GR_BUILD_DIR/bench-results/capacity.json (bench/plots.sh draws it) and prints a table.
#
# Environment: BENCH_CAP_W ("0.2 0.5", seconds), BENCH_CAP_PARTITIONS (2), BENCH_CAP_LOCKS (100,
# gregord's lowest share.partition.max.record.locks), BENCH_CAP_CONSUMERS (8), BENCH_CAP_BATCH (50,
# max.poll.records), BENCH_CAP_WARMUP (10 s), BENCH_CAP_MEASURE (20 s), BENCH_TIMEOUT, GR_BUILD_DIR.
# Everything listens on 127.0.0.1 only; every process is started and stopped by PID.
set -uo pipefail

BENCH_SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
GR_TEST_TIMEOUT="${BENCH_TIMEOUT:-900}"
# shellcheck source=../tests/lib.sh
source "$BENCH_SRC/../tests/lib.sh"
# shellcheck source=lib.sh
source "$BENCH_SRC/lib.sh"
GR_TEST_NAME=bench-capacity
bench_no_external "it reads gregord's own /metrics and capacity view through the admin listener it starts" "$@"

WS="${BENCH_CAP_W:-0.2 0.5}"
P="${BENCH_CAP_PARTITIONS:-2}"
CAP="${BENCH_CAP_LOCKS:-100}"
K="${BENCH_CAP_CONSUMERS:-8}"
B="${BENCH_CAP_BATCH:-50}"
WARMUP="${BENCH_CAP_WARMUP:-10}"
MEASURE="${BENCH_CAP_MEASURE:-20}"
OUT_DIR="$GR_BUILD_DIR/bench-results"
CLIENT="$GR_BUILD_DIR/gregor_bench_client"
CLI="$GR_BUILD_DIR/gregor"

gr_init
gr_require curl python3
[[ -x "$CLIENT" && -x "$CLI" ]] || die "no $CLIENT or $CLI (make)"
bench_results_init
put command "bash bench/capacity.sh (BENCH_CAP_W=\"$WS\" P=$P CAP=$CAP K=$K B=$B MEASURE=$MEASURE)"

APORT="$(free_port)"
start_gregord --override "admin.listener=127.0.0.1:$APORT"
wait_port "$APORT" 10 "$GR_GREGORD_PID" || die "admin listener not up on 127.0.0.1:$APORT (admin.listener)"
ADMIN="http://127.0.0.1:$APORT"

scrape() { curl -sf --max-time 10 "$ADMIN/metrics" >"$1" || die "GET /metrics failed"; }

run_w() { # run_w W INDEX
  local w="$1" idx="$2" topic="cap-topic-$2" group="cap-group-$2" n i pids=()
  local hold_ms; hold_ms="$(awk -v w="$w" 'BEGIN {printf "%d", w * 1000}')"
  # records for the whole run at 1.5x the nominal ceiling
  n="$(awk -v p="$P" -v c="$CAP" -v w="$w" -v t="$((WARMUP + MEASURE + 5))" 'BEGIN {printf "%d", 1.5 * p * c / w * t}')"
  gr_timeout 60 "$CLI" topics --bootstrap-server "$BOOTSTRAP" --create --topic "$topic" --partitions "$P" \
    >/dev/null 2>&1 || die "topic $topic"
  # small log batches (about 8 records): the cap is soft (Kafka 4.4.0's), an acquisition runs to
  # the end of its log batch, so larger batches would let the window pass the cap (docs/capacity.md)
  gr_timeout 300 "$CLIENT" produce "$BOOTSTRAP" "$topic" "$n" 100 -X acks=1 -X batch.size=1000 \
    >"$GR_TMP/produce-$idx.out" 2>&1 \
    || die "produce to $topic failed"
  gr_timeout 60 "$CLI" configs --bootstrap-server "$BOOTSTRAP" --alter --entity-type groups --entity-name "$group" \
    --add-config "share.auto.offset.reset=earliest,share.partition.max.record.locks=$CAP" >"$GR_TMP/cfg-$idx.out" 2>&1 \
    || die "group config of $group: $(cat "$GR_TMP/cfg-$idx.out")"
  say "W=$w s: $K consumers x max.poll.records=$B, $P partitions x $CAP locks, $n records of 100 B"
  for ((i = 1; i <= K; i++)); do
    GR_BENCH_HOLD_MS="$hold_ms" GR_BENCH_IDLE_EXIT_MS=3000 "$CLIENT" share-drain "$BOOTSTRAP" "$group" "$topic" "$n" \
      -X "max.poll.records=$B" >"$GR_TMP/c-$idx-$i.out" 2>"$GR_TMP/c-$idx-$i.err" &
    pids+=($!)
    GR_PIDS+=($!)
  done
  sleep "$WARMUP"
  local t1 t2
  t1="$(date +%s.%N)"; scrape "$GR_TMP/m1-$idx.txt"
  sleep "$MEASURE"
  t2="$(date +%s.%N)"; scrape "$GR_TMP/m2-$idx.txt"
  curl -s --max-time 10 -o "$GR_TMP/cap-$idx.json" -w '%{http_code}' "$ADMIN/v1/share-groups/$group/capacity" \
    >"$GR_TMP/cap-$idx.code" || true
  for i in "${pids[@]}"; do stop_pid "$i" 5; done
  python3 - "$GR_TMP" "$idx" "$group" "$w" "$P" "$CAP" "$K" "$B" "$t1" "$t2" >>"$GR_TMP/runs.jsonl" <<'PY' \
    || die "could not compute the W=$w run"
import json, re, sys
tmp, idx, group, w, p, cap, k, b, t1, t2 = sys.argv[1:]
w, p, cap, k, b, t1, t2 = float(w), int(p), int(cap), int(k), int(b), float(t1), float(t2)
LINE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)')
LAB = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')
def page(path):
    out = {}
    for line in open(path):
        m = LINE.match(line)
        if m and not line.startswith("#"):
            out[(m.group(1), tuple(sorted(LAB.findall(m.group(2) or ""))))] = float(m.group(3))
    return out
a, z = page("%s/m1-%s.txt" % (tmp, idx)), page("%s/m2-%s.txt" % (tmp, idx))
def series(pg, name, **want):
    for (n, labels), v in pg.items():
        d = dict(labels)
        if n == name and d.get("group") == group and all(d.get(kk) == vv for kk, vv in want.items()):
            yield d, v
def total(pg, name, **want):
    return sum(v for _, v in series(pg, name, **want))
secs = t2 - t1
measured = (total(z, "gregor_share_acknowledgements_total", type="accept")
            - total(a, "gregor_share_acknowledgements_total", type="accept")) / secs
ceil_m, wm = 0.0, []
for d, s2 in series(z, "gregor_share_in_flight_seconds_sum"):
    key = {"topic": d["topic"], "partition": d["partition"]}
    s1 = sum(v for _, v in series(a, "gregor_share_in_flight_seconds_sum", **key))
    c2 = sum(v for _, v in series(z, "gregor_share_in_flight_seconds_count", **key))
    c1 = sum(v for _, v in series(a, "gregor_share_in_flight_seconds_count", **key))
    lim = sum(v for _, v in series(z, "gregor_share_record_lock_limit", **key))
    if c2 > c1 and s2 > s1:
        wmean = (s2 - s1) / (c2 - c1)
        wm.append(wmean)
        ceil_m += lim / wmean
infl = total(z, "gregor_share_in_flight_records")
def find_ceiling(doc, depth=0):
    """The group's ceiling in the capacity JSON: the shallowest numeric key naming a ceiling."""
    if isinstance(doc, dict):
        for key, v in doc.items():
            if "ceiling" in key and isinstance(v, (int, float)) and not isinstance(v, bool):
                return float(v)
        for key in ("group_total", "group", "total", "summary"):
            if isinstance(doc.get(key), dict):
                r = find_ceiling(doc[key], depth + 1)
                if r is not None:
                    return r
    return None
try:
    reported = find_ceiling(json.load(open("%s/cap-%s.json" % (tmp, idx))))
except (OSError, ValueError):
    reported = None
print(json.dumps({"w_s": w, "partitions": p, "cap": cap, "consumers": k, "max_poll_records": b,
                  "measure_s": round(secs, 2), "measured_msgs_s": round(measured, 1),
                  "w_mean_s": [round(x, 4) for x in wm], "in_flight_at_end": infl,
                  "ceiling_metrics": round(ceil_m, 1) if wm else None,
                  "ceiling_reported": reported, "ceiling_nominal": round(p * cap / w, 1),
                  "capacity_http": open("%s/cap-%s.code" % (tmp, idx)).read().strip()}))
PY
  say "W=$w s: $(tail -n1 "$GR_TMP/runs.jsonl")"
}

: >"$GR_TMP/runs.jsonl"
i=0
for w in $WS; do i=$((i + 1)); run_w "$w" "$i"; done
alive "$GR_GREGORD_PID" || fail "gregord died (log: $GR_TMP/gregord.log)"
stop_gregord

mkdir -p "$OUT_DIR"
if python3 - "$RES" "$GR_TMP/runs.jsonl" "$OUT_DIR/capacity.json" <<'PY'; then ok "capacity benchmark ran"; else fail "capacity report"; fi
import json, sys
res, runs_path, out = sys.argv[1:]
kv = dict(line.rstrip("\n").partition(" ")[::2] for line in open(res))
runs = [json.loads(l) for l in open(runs_path) if l.strip()]
doc = {"date": kv.get("date"), "machine": kv.get("machine"), "command": kv.get("command"), "runs": runs}
print("%-8s %12s %16s %16s %16s %10s" % ("W (s)", "measured/s", "ceiling (view)", "ceiling (/metrics)", "nominal P*cap/W", "meas/view"))
for r in runs:
    ratio = r["measured_msgs_s"] / r["ceiling_reported"] if r.get("ceiling_reported") else None
    r["measured_over_reported"] = round(ratio, 3) if ratio else None
    print("%-8.2f %12.1f %16s %16s %16.1f %10s" % (r["w_s"], r["measured_msgs_s"], r.get("ceiling_reported"),
          r.get("ceiling_metrics"), r["ceiling_nominal"], "%.3f" % ratio if ratio else "n/a"))
json.dump(doc, open(out, "w"), indent=1)
print("written: " + out)
PY
bench_stop_watchdog
gr_finish
