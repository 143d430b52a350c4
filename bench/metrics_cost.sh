#!/usr/bin/env bash
# bench/metrics_cost.sh: what the metrics cost (part of `make bench`; alone:
# GR_BUILD_DIR=build bash bench/metrics_cost.sh).
#
# The same workload against two gregord builds in one run:
#   ON   $GR_BUILD_DIR (GR_METRICS=ON, the default), admin.listener on and GET /metrics scraped once a
#        second with curl for the whole run;
#   OFF  a second build directory configured with -DGR_METRICS=OFF (BENCH_METRICS_OFF_DIR, default
#        $GR_BUILD_DIR-metrics-off; configured and built here if missing or stale), no admin listener.
# Workload per run, on a fresh gregord: produce N x 1 KiB with acks=1 (gregor_bench_client produce,
# libgregor defaults), then a share drain of those N records by one consumer
# (gregor_bench_client share-drain, implicit acknowledgement). Runs alternate ON/OFF, OFF/ON, ... so
# that a drift of the machine's load hits both; BENCH_COST_REPEAT (3) runs each; medians reported.
# Measured per phase: throughput (the client's N / seconds) and gregord's CPU-seconds
# (the delta of its threads' /proc/PID/task/*/schedstat run time over the phase, ns resolution).
# Goal (issue 9): metrics ON and scraped costs <= 3 % throughput and <= 5 % broker CPU.
# Writes $GR_BUILD_DIR/bench-results/metrics_cost.json (bench/plots.sh draws it) and prints a table.
#
# Data: on tmpfs (/dev/shm) when it has room, because on a disk the page-cache writeback of the
# produce phase varies by ±15 % between identical runs and drowns a few per cent (measured: the
# metrics functions are ~0.1 % of gregord's perf samples while ON/OFF produce differed by 14 % on
# disk); BENCH_COST_TMPDIR overrides the directory.
# Environment: BENCH_COST_MESSAGES (500000), BENCH_COST_REPEAT (3), BENCH_METRICS_OFF_DIR,
# BENCH_COST_SCRAPE=0 (ON without the admin listener and the scraping: the counters alone),
# BENCH_COST_WARMUP=0 (no uncounted warm-up pair before the runs),
# BENCH_TIMEOUT, GR_BUILD_DIR. Everything on 127.0.0.1; every process started and stopped by PID.
set -uo pipefail

BENCH_SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [[ -n "${BENCH_COST_TMPDIR:-}" ]]; then
  export TMPDIR="$BENCH_COST_TMPDIR"
elif [[ -w /dev/shm ]] && (($(df -Pk /dev/shm | awk 'NR == 2 {print $4}') > 3 * ${BENCH_COST_MESSAGES:-500000})); then
  export TMPDIR=/dev/shm # 1 KiB records: a run's data is N KiB, removed after the run
fi
GR_TEST_TIMEOUT="${BENCH_TIMEOUT:-1800}"
# shellcheck source=../tests/lib.sh
source "$BENCH_SRC/../tests/lib.sh"
# shellcheck source=lib.sh
source "$BENCH_SRC/lib.sh"
GR_TEST_NAME=bench-metrics-cost
bench_no_external "it builds and starts gregord with and without GR_METRICS" "$@"

N="${BENCH_COST_MESSAGES:-500000}"
REPEAT="${BENCH_COST_REPEAT:-3}"
ON_DIR="$GR_BUILD_DIR"
OFF_DIR="${BENCH_METRICS_OFF_DIR:-${GR_BUILD_DIR%/}-metrics-off}"
OUT_DIR="$GR_BUILD_DIR/bench-results"

gr_init
gr_require curl python3 cmake
[[ -x "$ON_DIR/gregord" && -x "$ON_DIR/gregor_bench_client" && -x "$ON_DIR/gregor" ]] \
  || die "no gregord / gregor_bench_client / gregor in $ON_DIR (make)"
grep -q '^GR_METRICS:BOOL=OFF' "$ON_DIR/CMakeCache.txt" 2>/dev/null && die "$ON_DIR is a GR_METRICS=OFF build"

# The OFF build: same sources, same build type, GR_METRICS=OFF.
btype="$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$ON_DIR/CMakeCache.txt" 2>/dev/null)"
log "building gregord with -DGR_METRICS=OFF in $OFF_DIR (${btype:-RelWithDebInfo})"
gr_timeout 120 cmake -S "$GR_SOURCE_DIR" -B "$OFF_DIR" -DCMAKE_BUILD_TYPE="${btype:-RelWithDebInfo}" -DGR_METRICS=OFF \
  >"$GR_TMP/off-configure.log" 2>&1 || die "cmake of the OFF build failed: $GR_TMP/off-configure.log"
gr_timeout 1200 cmake --build "$OFF_DIR" -j "$(nproc)" --target gregord >"$GR_TMP/off-build.log" 2>&1 \
  || die "build of the OFF gregord failed: $GR_TMP/off-build.log"
grep -q '^GR_METRICS:BOOL=OFF' "$OFF_DIR/CMakeCache.txt" || die "$OFF_DIR is not GR_METRICS=OFF"

bench_results_init
put messages "$N"
put repeat "$REPEAT"
put command "bash bench/metrics_cost.sh (BENCH_COST_MESSAGES=$N BENCH_COST_REPEAT=$REPEAT BENCH_COST_SCRAPE=${BENCH_COST_SCRAPE:-1})"
CLIENT="$ON_DIR/gregor_bench_client"
CLI="$ON_DIR/gregor"

# CPU time of every thread of PID in ns (/proc/PID/task/*/schedstat, first field): the 10 ms ticks
# of /proc/PID/stat are too coarse for a 5 % difference of a phase of a few tenths of a second.
cpu_ns() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{s += $1} END {printf "%.0f", s}'; }
json_field() { python3 -c 'import json,sys; print(json.loads(sys.stdin.read().strip().splitlines()[-1])[sys.argv[1]])' "$2" <"$1"; }

SCRAPER_PID=""
start_scraper() { # GET /metrics once a second until stopped; counts the good answers
  local port="$1" out="$2"
  : >"$out"
  ( while :; do
      curl -s -o /dev/null -w '%{http_code}\n' --max-time 5 "http://127.0.0.1:$port/metrics" >>"$out" 2>/dev/null
      sleep 1
    done ) &
  SCRAPER_PID=$!
  GR_PIDS+=("$SCRAPER_PID")
}
stop_scraper() {
  [[ -n "$SCRAPER_PID" ]] || return 0
  local kids; kids="$(pgrep -P "$SCRAPER_PID" 2>/dev/null || true)"
  kill "$SCRAPER_PID" 2>/dev/null; wait "$SCRAPER_PID" 2>/dev/null
  for k in $kids; do kill "$k" 2>/dev/null; done
  SCRAPER_PID=""
}

phase() { # phase VARIANT RUN NAME cmd...: runs cmd, records msgs/s (client JSON) and gregord CPU-s
  local v="$1" r="$2" name="$3" key t0 t1 rc; shift 3
  key="$v.$name.r$r"
  gr_timeout 120 sync
  t0="$(cpu_ns "$GR_GREGORD_PID")"
  gr_timeout 900 "$@" >"$GR_TMP/$key.out" 2>"$GR_TMP/$key.err"
  rc=$?
  t1="$(cpu_ns "$GR_GREGORD_PID")"
  if ((rc != 0)); then put "$key.note" "failed(rc=$rc)"; fail "$key: $(tail -n2 "$GR_TMP/$key.err")"; return 1; fi
  local secs; secs="$(json_field "$GR_TMP/$key.out" seconds)"
  put "$key.msgs_s" "$(calc "$N / $secs")"
  put "$key.cpu_s" "$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.4f", (b - a) / 1e9}')"
  say "$key: $(calc "$N / $secs") records/s, gregord $(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.4f", (b - a) / 1e9}') CPU-s"
}

one_run() { # one_run on|off RUN
  local v="$1" r="$2" dir topic="mc-r$2" group="mc-group-$1-r$2" aport
  [[ "$v" == on ]] && dir="$ON_DIR" || dir="$OFF_DIR"
  local saved="$GR_BUILD_DIR"
  GR_BUILD_DIR="$dir"
  if [[ "$v" == on && "${BENCH_COST_SCRAPE:-1}" != 0 ]]; then
    aport="$(free_port)"
    start_gregord --override "admin.listener=127.0.0.1:$aport"
    wait_port "$aport" 10 "$GR_GREGORD_PID" || die "admin listener not up (admin.listener)"
    start_scraper "$aport" "$GR_TMP/scrapes.$v.r$r"
  else
    start_gregord
  fi
  GR_BUILD_DIR="$saved"
  phase "$v" "$r" produce "$CLIENT" produce "$BOOTSTRAP" "$topic" "$N" 1024 -X acks=1
  gr_timeout 60 "$CLI" configs --bootstrap-server "$BOOTSTRAP" --alter --entity-type groups --entity-name "$group" \
    --add-config share.auto.offset.reset=earliest >/dev/null 2>&1 || die "group config failed"
  phase "$v" "$r" share_drain "$CLIENT" share-drain "$BOOTSTRAP" "$group" "$topic" "$N"
  if [[ -n "$SCRAPER_PID" ]]; then
    stop_scraper
    put "$v.scrapes.r$r" "$(grep -c '^200$' "$GR_TMP/scrapes.$v.r$r")"
  fi
  stop_gregord
  rm -rf "$GR_DATA_DIR"
}

# A warm-up pair first, not counted (run 0): in trials the first run of a series was the slowest by
# far (page cache, file creation), whichever variant it was.
if [[ "${BENCH_COST_WARMUP:-1}" == 1 ]]; then one_run on 0; one_run off 0; fi
for ((r = 1; r <= REPEAT; r++)); do
  if ((r % 2 == 1)); then one_run on "$r"; one_run off "$r"; else one_run off "$r"; one_run on "$r"; fi
done

put loadavg_end "$(cut -d' ' -f1 /proc/loadavg)"
mkdir -p "$OUT_DIR"
cp "$RES" "$OUT_DIR/metrics_cost.txt"
if python3 - "$RES" "$OUT_DIR/metrics_cost.json" <<'PY'; then ok "metrics cost benchmark ran"; else fail "metrics cost report"; fi
import json, statistics, sys
res, out = sys.argv[1:]
kv = {}
for line in open(res):
    k, _, v = line.rstrip("\n").partition(" ")
    kv[k] = v
def vals(v, w, f):
    return [float(kv[k]) for k in sorted(kv)
            if k.startswith("%s.%s.r" % (v, w)) and not k.startswith("%s.%s.r0." % (v, w)) and k.endswith("." + f)]
doc = {"date": kv.get("date"), "machine": kv.get("machine"), "command": kv.get("command"),
       "messages": int(kv["messages"]), "loadavg": [kv.get("loadavg_start"), kv.get("loadavg_end")],
       "scrapes": [int(kv[k]) for k in sorted(kv) if k.startswith("on.scrapes.") and k != "on.scrapes.r0"],
       "goals": {"throughput_pct": 3.0, "cpu_pct": 5.0}, "workloads": {}}
print("%-12s %14s %14s %8s %10s %10s %8s" % ("workload", "msgs/s ON", "msgs/s OFF", "cost %", "CPU-s ON", "CPU-s OFF", "cost %"))
met = True
for w in ("produce", "share_drain"):
    d = {f + "_" + v: vals(v, w, f) for f in ("msgs_s", "cpu_s") for v in ("on", "off")}
    if not all(d.values()):
        print("%-12s incomplete: %s" % (w, d))
        met = False
        continue
    m = {"median_" + k: statistics.median(x) for k, x in d.items()}
    tp = 100 * (m["median_msgs_s_off"] - m["median_msgs_s_on"]) / m["median_msgs_s_off"]
    cpu = 100 * (m["median_cpu_s_on"] - m["median_cpu_s_off"]) / m["median_cpu_s_off"] if m["median_cpu_s_off"] else None
    ok = tp <= 3.0 and (cpu is None or cpu <= 5.0)
    met = met and ok
    # Paired: run r of ON against run r of OFF (run back to back), the median of the ratios; less
    # sensitive to a load change during the series than the ratio of the medians.
    pairs = list(zip(d["msgs_s_on"], d["msgs_s_off"], d["cpu_s_on"], d["cpu_s_off"]))
    ptp = statistics.median(100 * (off - on) / off for on, off, _, _ in pairs)
    pcpu = statistics.median(100 * (con - coff) / coff for _, _, con, coff in pairs if coff > 0)
    doc["workloads"][w] = dict(runs=d, **m, throughput_cost_pct=round(tp, 2),
                               cpu_cost_pct=None if cpu is None else round(cpu, 2), goal_met=ok,
                               paired_throughput_cost_pct=round(ptp, 2), paired_cpu_cost_pct=round(pcpu, 2))
    print("%-12s %14.0f %14.0f %8.2f %10.2f %10.2f %8s  %s" % (w, m["median_msgs_s_on"], m["median_msgs_s_off"], tp,
          m["median_cpu_s_on"], m["median_cpu_s_off"], "n/a" if cpu is None else "%.2f" % cpu,
          "goal met" if ok else "goal NOT met"))
    print("%-12s paired (median of per-run ratios): throughput cost %.2f %%, CPU cost %.2f %%" % ("", ptp, pcpu))
print("runs: " + json.dumps({w: doc["workloads"][w]["runs"] for w in doc["workloads"]}))
json.dump(doc, open(out, "w"), indent=1)
print("written: " + out)
PY
bench_stop_watchdog
gr_finish
