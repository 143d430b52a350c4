#!/usr/bin/env bash
# bench/littles_law.sh: the Little's-law ceiling of a share group, measured on gregord and on
# Apache Kafka 4.4.0 in one run with the same client (part of `make bench` unless
# BENCH_SKIP_LITTLE=1; alone: GR_BUILD_DIR=build bash bench/littles_law.sh).
#
# The users' documents: in a steady state the records ACQUIRED are throughput x W, so a share
# group cannot deliver more than share-partitions x cap / W records/s, cap being
# share.partition.max.record.locks and W the time a record spends acquired. Here both brokers
# run at the same time (light load: a few thousand records/s) and the runs alternate between
# them, so that the machine's noise hits both. Per broker: one topic of BENCH_LL_PARTITIONS (2)
# partitions holding records of 100 B in log batches of about 8 records (libgregor producer,
# batch.size=1000: the cap is soft on both brokers, an acquisition may run to the end of a log
# batch, so big batches would let the in-flight records pass the cap), enough for one run at the
# highest ceiling. Per run: a new share group (group configs share.auto.offset.reset=earliest and
# share.partition.max.record.locks=BENCH_LL_CAP, 100 = the lowest both brokers accept) and
# build/gregor_hold (bench/gregor_hold.c): BENCH_LL_CONSUMERS (8) share consumers with
# max.poll.records=BENCH_LL_BATCH (50), explicit acknowledgement, each holding the whole batch it
# got for W, then ACCEPTing every record (sent with its next poll). 8 x 50 records wanted
# against 2 x 100 locks: the cap binds. The window opens BENCH_LL_WARMUP (5) s after the
# first record (Apache Kafka's join takes seconds) and lasts BENCH_LL_MEASURE (15) s:
#   measured   = records accepted in the window / its length;
#   predicted  = partitions x cap / W (W as set, the consumers' hold);
#   L          = records held by all consumers together (sampled every 2 ms): L > partitions x
#                cap shows the soft cap (acquisitions running past the cap to a batch's end);
#   W_little   = L / measured: the W the broker saw (hold + the poll round trip).
# BENCH_REPEAT (3) runs per W and broker; the median run is reported, with measured/predicted
# (goal: within 10 %).
#
# Environment: BENCH_LL_W ("50 200", ms), BENCH_LL_PARTITIONS, BENCH_LL_CAP, BENCH_LL_CONSUMERS,
# BENCH_LL_BATCH, BENCH_LL_WARMUP, BENCH_LL_MEASURE, BENCH_LL_RECORDS (records per topic), BENCH_REPEAT, BENCH_LL_BROKERS ("gregord
# kafka"), BENCH_LL_PROPS (more consumer properties, "name=value ..."), BENCH_KAFKA_HEAP,
# BENCH_TIMEOUT (1800 s), GR_BUILD_DIR, BENCH_OUT_DIR (default $GR_BUILD_DIR/bench-results).
# Any broker: --bootstrap-server H:P (or BENCH_BOOTSTRAP=H:P) measures that broker or cluster
# only, under the name BENCH_NAME (default "external"), without starting anything.
# Writes $GR_BUILD_DIR/bench-results/littles_law.json and prints a table.
set -uo pipefail

BENCH_SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
GR_TEST_TIMEOUT="${BENCH_TIMEOUT:-1800}"
# shellcheck source=../tests/lib.sh
source "$BENCH_SRC/../tests/lib.sh"
# shellcheck source=lib.sh
source "$BENCH_SRC/lib.sh"
GR_TEST_NAME=bench-littles-law
bench_parse_bootstrap "$@"

WS="${BENCH_LL_W:-50 200}"
P="${BENCH_LL_PARTITIONS:-2}"
CAP="${BENCH_LL_CAP:-100}"
K="${BENCH_LL_CONSUMERS:-8}"
B="${BENCH_LL_BATCH:-50}"
WARMUP="${BENCH_LL_WARMUP:-5}"
MEASURE="${BENCH_LL_MEASURE:-15}"
REPEAT="${BENCH_REPEAT:-3}"
BROKERS="${BENCH_LL_BROKERS:-gregord kafka}"
[[ -n "$BENCH_EXTERNAL" ]] && BROKERS="$BENCH_NAME"
CX=(-C "max.poll.records=$B")
for kv in ${BENCH_LL_PROPS:-}; do CX+=(-C "$kv"); done
export KAFKA_REF_HEAP="${BENCH_KAFKA_HEAP:--Xmx1G -Xms1G}"
OUT_DIR="${BENCH_OUT_DIR:-$GR_BUILD_DIR/bench-results}"
HOLD="$GR_BUILD_DIR/gregor_hold"
CLIENT="$GR_BUILD_DIR/gregor_bench_client"
CLI="$GR_BUILD_DIR/gregor"

gr_init
gr_require python3
for x in "$HOLD" "$CLIENT" "$CLI"; do [[ -x "$x" ]] || die "no $x (make)"; done
bench_results_init
put command "bash bench/littles_law.sh (W=\"$WS\" ms P=$P CAP=$CAP K=$K B=$B WARMUP=$WARMUP MEASURE=$MEASURE REPEAT=$REPEAT BROKERS=\"$BROKERS\")"

declare -A BOOT
# Start every broker first (the runs alternate between them).
for b in $BROKERS; do
  bench_start_broker "$b"
  BOOT[$b]="$BOOTSTRAP"
  put "$b.loadavg_start" "$(cut -d' ' -f1 /proc/loadavg)"
done

# Records for one run at the highest ceiling (the shortest W), 1.5x, plus 10 s for the join
# (BENCH_LL_RECORDS overrides).
WMIN="$(tr ' ' '\n' <<<"$WS" | sort -g | head -n1)"
N="${BENCH_LL_RECORDS:-$(awk -v p="$P" -v c="$CAP" -v w="$WMIN" -v a="$WARMUP" -v m="$MEASURE" \
  'BEGIN {printf "%d", 1.5 * p * c / (w / 1000) * (a + m + 10)}')}"
TOPIC="ll-$$"
put records "$N"
for b in $BROKERS; do
  BOOTSTRAP="${BOOT[$b]}"
  gr_timeout 60 "$CLI" topics --bootstrap-server "$BOOTSTRAP" --create --topic "$TOPIC" --partitions "$P" \
    --replication-factor 1 >"$GR_TMP/$b.topic.out" 2>&1 || die "$b: topic $TOPIC: $(cat "$GR_TMP/$b.topic.out")"
  say "$b: producing $N x 100 B to $TOPIC ($P partitions, log batches of about 8 records)"
  gr_timeout 600 "$CLIENT" produce "$BOOTSTRAP" "$TOPIC" "$N" 100 -X acks=1 -X batch.size=1000 \
    >"$GR_TMP/$b.produce.out" 2>&1 || die "$b: produce failed: $(tail -n3 "$GR_TMP/$b.produce.out")"
done

: >"$GR_TMP/runs.jsonl"
run_one() { # run_one BROKER W_MS RUN
  local b="$1" w="$2" r="$3" group="ll-$1-w$2-r$3-$$" out
  BOOTSTRAP="${BOOT[$b]}"
  gr_timeout 60 "$CLI" configs --bootstrap-server "$BOOTSTRAP" --alter --entity-type groups --entity-name "$group" \
    --add-config "share.auto.offset.reset=earliest,share.partition.max.record.locks=$CAP" >"$GR_TMP/cfg.out" 2>&1 \
    || { put "$b.w$w.r$r.note" "group-config-failed"; say "$b: group config: $(cat "$GR_TMP/cfg.out")"; return; }
  local load; load="$(cut -d' ' -f1 /proc/loadavg)"
  out="$(gr_timeout 300 "$HOLD" "$BOOTSTRAP" "$TOPIC" "$group" "$w" --consumers "$K" \
    --warmup "$WARMUP" --measure "$MEASURE" "${CX[@]}" 2>"$GR_TMP/$b.w$w.r$r.err" | tail -n1)"
  if [[ "$out" != "{"* ]]; then
    put "$b.w$w.r$r.note" "failed"; say "$b W=$w ms run $r failed: $(tail -n3 "$GR_TMP/$b.w$w.r$r.err")"; return
  fi
  python3 -c 'import json, sys
d = json.loads(sys.argv[1]); d.update(broker=sys.argv[2], w_ms=float(sys.argv[3]), run=int(sys.argv[4]), loadavg=float(sys.argv[5]))
print(json.dumps(d))' "$out" "$b" "$w" "$r" "$load" >>"$GR_TMP/runs.jsonl"
  say "$b W=$w ms run $r: $out"
}

for w in $WS; do
  for ((r = 1; r <= REPEAT; r++)); do
    for b in $BROKERS; do run_one "$b" "$w" "$r"; done
  done
done
for b in $BROKERS; do
  [[ "$b" == gregord ]] && { alive "$GR_GREGORD_PID" || fail "gregord died (log: $GR_TMP/gregord.log)"; }
  bench_stop_broker "$b"
done

put loadavg_end "$(cut -d' ' -f1 /proc/loadavg)"
mkdir -p "$OUT_DIR"
cp "$RES" "$OUT_DIR/littles_law.txt"
if python3 "$BENCH_SRC/report_curves.py" littles "$RES" "$GR_TMP/runs.jsonl" "$OUT_DIR/littles_law.json" "$P" "$CAP"; then
  ok "Little's-law benchmark ran"
else
  fail "Little's-law report"
fi
bench_stop_watchdog
gr_finish
