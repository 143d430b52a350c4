#!/usr/bin/env bash
# bench/latency.sh: end-to-end share-group latency on gregord and on Apache Kafka 4.4.0 in one
# run, the same client (build/gregor_latency, libgregor) on both (part of `make bench` unless
# BENCH_SKIP_LATENCY=1; alone: GR_BUILD_DIR=build bash bench/latency.sh).
#
# Workload per broker and point: a new topic `lat-<point>` with 4 partitions and a new group; records of 1 KiB produced with acks=all
# by an open-loop producer (a fixed schedule; latency counted from each record's due time, so
# a stall is not hidden); 4 share consumers acknowledging every record explicitly (ACCEPT,
# commit_sync per batch). Points: BENCH_LAT_RATES (default "1000 10000 50000") records/s plus
# 80 % of the broker's own maximum, measured first with the same tool in closed loop
# (BENCH_LAT_MAX_S seconds). Each point runs BENCH_LAT_SECONDS (default 60) after a 5 s warm-up
# and reports latency p50/p99/p99.9/max, acknowledgement (commit_sync) latency p50/p99, the
# rate achieved, broker CPU-s per million records and the broker's peak RSS. A rate the
# broker does not sustain (achieved < 95 % of asked) is reported with its figures and marked.
# The producer runs with BENCH_LAT_PROPS (default "linger.ms=1": a latency-oriented producer;
# libgregor's default linger.ms 5, as the Java producer 4.x, adds about 2.5 ms at 10,000/s on
# 4 partitions), the same on every broker; client defaults otherwise.
#
# Any broker: --bootstrap-server H:P (or BENCH_BOOTSTRAP=H:P; BENCH_LAT_BOOTSTRAP, the older name,
# too) measures that broker (or cluster) only, under the name --name / BENCH_NAME
# (BENCH_LAT_NAME; default "external"), without starting anything (no CPU/RSS figures).
# Environment: BENCH_LAT_BROKERS ("gregord kafka"), BENCH_KAFKA_HEAP ("-Xmx1G -Xms1G"),
# BENCH_TIMEOUT (3600 s), GR_BUILD_DIR. Writes $GR_BUILD_DIR/bench-results/latency.txt.
set -uo pipefail
BENCH_SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
GR_TEST_TIMEOUT="${BENCH_TIMEOUT:-3600}"
# shellcheck source=../tests/lib.sh
source "$BENCH_SRC/../tests/lib.sh"
# shellcheck source=lib.sh
source "$BENCH_SRC/lib.sh"
GR_TEST_NAME=bench-latency
BENCH_NAME="${BENCH_NAME:-${BENCH_LAT_NAME:-external}}"
bench_parse_bootstrap "$@"
RATES="${BENCH_LAT_RATES:-1000 10000 50000}"
SECS="${BENCH_LAT_SECONDS:-60}"
MAX_S="${BENCH_LAT_MAX_S:-15}"
BROKERS="${BENCH_LAT_BROKERS:-gregord kafka}"
EXTERNAL="${BENCH_EXTERNAL:-${BENCH_LAT_BOOTSTRAP:-}}"
PROPS=()
for kv in ${BENCH_LAT_PROPS-linger.ms=1}; do PROPS+=(-X "$kv"); done
[[ -n "$EXTERNAL" ]] && BROKERS="$BENCH_NAME"
export KAFKA_REF_HEAP="${BENCH_KAFKA_HEAP:--Xmx1G -Xms1G}"
OUT_DIR="$GR_BUILD_DIR/bench-results"
TICK="$(getconf CLK_TCK)"
LAT="$GR_BUILD_DIR/gregor_latency"
gr_init
[[ -x "$LAT" ]] || die "$LAT missing (make build)"
bench_results_init
put command "bash bench/latency.sh (RATES=\"$RATES\" SECONDS=$SECS BROKERS=\"$BROKERS\" PROPS=\"${BENCH_LAT_PROPS-linger.ms=1}\")"

cpu_ticks() { [[ -n "$BPID" ]] && sed 's/^.*) //' "/proc/$BPID/stat" 2>/dev/null | awk '{print $12 + $13}' || echo 0; }
hwm_mb() { awk '$1 == "VmHWM:" {printf "%.1f", $2 * 1024 / 1e6}' "/proc/$1/status" 2>/dev/null; }
BPID=""
start_broker() { # start_broker NAME: BPID, BOOTSTRAP
  case "$1" in
    gregord) start_gregord; BPID="$GR_GREGORD_PID" ;;
    kafka) start_ref_kafka; BPID="$(cat "$GR_REF_DIR/kafka.pid")" ;;
    *) BOOTSTRAP="$EXTERNAL"; BPID="" ;;
  esac
}
stop_broker() { case "$1" in gregord) stop_gregord ;; kafka) stop_ref_kafka ;; esac; }
field() { python3 -c 'import json,sys
d = json.loads(sys.argv[1])
for k in sys.argv[2].split("."): d = d[k]
print(d)' "$1" "$2"; }

# point NAME RATE LABEL: one run of the tool at RATE (0: closed loop) in a new group
point() {
  local b="$1" rate="$2" label="$3" g="lat-$1-$3-$$" t="lat-$3" c0 out secs
  gr_timeout 60 "$GR_BUILD_DIR/gregor" topics --bootstrap-server "$BOOTSTRAP" --create --topic "$t" --partitions 4 \
    --replication-factor 1 >/dev/null 2>&1 || say "$b: topic $t not created (exists?)"
  "$GR_BUILD_DIR/gregor" configs --bootstrap-server "$BOOTSTRAP" --alter --group "$g" \
    --add-config share.auto.offset.reset=earliest >/dev/null 2>&1 || say "$b: could not set the group config of $g"
  c0="$(cpu_ticks)"
  secs="$SECS"; ((rate == 0)) && secs="$MAX_S"
  out="$(gr_timeout $((secs + 120)) "$LAT" "$BOOTSTRAP" "$t" "$g" "$rate" "$secs" "${PROPS[@]}" 2>"$GR_TMP/lat.$b.$label.err" | tail -n 1)"
  if ! field "$out" received >/dev/null 2>&1; then
    put "$b.$label.note" "failed"; say "$b $label failed: $(tail -n 3 "$GR_TMP/lat.$b.$label.err")"; return 1
  fi
  local sent recv ach
  sent="$(field "$out" sent)" recv="$(field "$out" received)" ach="$(field "$out" achieved_rate)"
  put "$b.$label.achieved_rate" "$ach"
  ((recv < sent)) && put "$b.$label.note" "received-$recv-of-$sent"
  if [[ -n "$BPID" ]] && ((sent > 0)); then put "$b.$label.cpu_s_per_million" "$(calc "($(cpu_ticks) - $c0) / $TICK / ($sent / 1e6)")"; fi
  LAST_RATE="$ach"
  ((rate == 0)) && { say "$b max (closed loop): $ach records/s"; return 0; }
  awk -v a="$ach" -v r="$rate" 'BEGIN { exit !(a < 0.95 * r) }' && put "$b.$label.note" "not-sustained"
  for k in p50 p99 p999 max; do put "$b.$label.latency_$k""_us" "$(field "$out" "latency_us.$k")"; done
  for k in p50 p99; do put "$b.$label.ack_$k""_us" "$(field "$out" "ack_us.$k")"; done
  say "$b $label: $out"
}

for b in $BROKERS; do
  start_broker "$b"
  put "$b.loadavg_start" "$(cut -d' ' -f1 /proc/loadavg)"
  LAST_RATE=0
  point "$b" 0 max
  max="$LAST_RATE"
  for r in $RATES; do point "$b" "$r" "r$r"; done
  r80="$(awk -v m="$max" 'BEGIN { printf "%d", 0.8 * m }')"
  if ((r80 > 0)); then put "$b.r80pct.rate" "$r80"; point "$b" "$r80" r80pct; fi
  [[ -n "$BPID" ]] && put "$b.peak_rss_mb" "$(hwm_mb "$BPID")"
  stop_broker "$b"
done

mkdir -p "$OUT_DIR"
cp "$RES" "$OUT_DIR/latency.txt"
python3 "$BENCH_SRC/report.py" compare "$RES"
bench_stop_watchdog || true
ok "bench/latency.sh done"
gr_finish
