#!/usr/bin/env bash
# Smoke test of the Little's-law and scaling benchmarks (bench/littles_law.sh, bench/scaling.sh,
# build/gregor_hold; docs/benchmarks.md): tiny runs against gregord that check the output format
# and that every record was delivered. No timing or throughput is asserted.
#  - gregor_hold: 2,000 records over 2 partitions, 4 consumers holding each batch 10 ms, cap 100:
#    every record received and accepted once, none redelivered;
#  - bench/littles_law.sh --bootstrap-server (an already running broker, nothing started): one
#    W, one short run; its table and JSON (measured, predicted, ratio, L) are there;
#  - bench/scaling.sh with its own gregord: one point (2 partitions x 2 consumers), 2,000 records
#    drained, rate and broker CPU per record in the JSON.
#   bash tests/integration/test_bench_curves.sh [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
GR_TEST_TIMEOUT="${GR_TEST_TIMEOUT:-120}"
gr_init "$@"
[[ "$GR_TARGET" == gregord ]] || die "test_bench_curves starts gregord itself"
start_gregord
G="$GR_BUILD_DIR/gregor"
B="$GR_BUILD_DIR/gregor_bench_client"
HOLD="$GR_BUILD_DIR/gregor_hold"
jget() { python3 -c 'import json,sys
d = json.loads(sys.argv[1])
for k in sys.argv[2].split("."): d = d[int(k) if k.isdigit() else k]
print(d)' "$1" "$2"; }
num() { [[ "$1" =~ ^-?[0-9]+(\.[0-9]+)?$ ]]; }

"$G" topics --bootstrap-server "$BOOTSTRAP" --create --topic hc --partitions 2 >/dev/null || die "create hc"
"$G" configs --bootstrap-server "$BOOTSTRAP" --alter --group hg \
  --add-config share.auto.offset.reset=earliest,share.partition.max.record.locks=100 >/dev/null || die "group config"
gr_timeout 60 "$B" produce "$BOOTSTRAP" hc 2000 100 -X acks=1 -X batch.size=1000 >/dev/null || die "produce hc"
out="$(gr_timeout 60 "$HOLD" "$BOOTSTRAP" hc hg 10 --consumers 4 --measure 0 --records 2000 --idle-exit 5 \
  -C max.poll.records=50 2>"$GR_TMP/hold.err" | tail -n 1)" || true
check "gregor_hold prints one JSON line" jget "$out" accepted
[[ -n "$out" ]] || cat "$GR_TMP/hold.err"
check_eq "gregor_hold: every record received and accepted once" "2000 2000 0 0" \
  "$(jget "$out" received 2>/dev/null) $(jget "$out" accepted 2>/dev/null) $(jget "$out" redelivered 2>/dev/null) $(jget "$out" consumer_errors 2>/dev/null)"
for k in rate in_flight_mean in_flight_peak hold_mean_ms little_w_ms gap_mean_ms cpu_s; do
  check "gregor_hold: $k is a number" num "$(jget "$out" "$k" 2>/dev/null)"
done

# bench/littles_law.sh against the running gregord (--bootstrap-server: it starts nothing)
rc=0
BENCH_OUT_DIR="$GR_TMP/ll" BENCH_LL_W=100 BENCH_REPEAT=1 BENCH_LL_WARMUP=0.5 BENCH_LL_MEASURE=1 BENCH_LL_RECORDS=4000 \
  BENCH_LL_CONSUMERS=4 BENCH_TIMEOUT=60 gr_timeout 70 bash "$GR_SOURCE_DIR/bench/littles_law.sh" \
  --bootstrap-server "$BOOTSTRAP" --name smoke >"$GR_TMP/ll.out" 2>"$GR_TMP/ll.err" || rc=$?
check_eq "bench/littles_law.sh --bootstrap-server exits 0" 0 "$rc"
((rc == 0)) || { tail -n 20 "$GR_TMP/ll.err"; cat "$GR_TMP/ll.out"; }
check "it prints its table" grep -qE '^smoke +100 +1 ' "$GR_TMP/ll.out"
doc="$(cat "$GR_TMP/ll/littles_law.json" 2>/dev/null || echo '{}')"
check_eq "one point, named by --name, predicted 2 x 100 / 0.1 s" "smoke 2000.0" \
  "$(jget "$doc" points.0.broker 2>/dev/null) $(jget "$doc" points.0.predicted_msgs_s 2>/dev/null)"
for k in measured_msgs_s ratio in_flight_mean little_w_ms; do
  check "littles_law.json: $k is a number" num "$(jget "$doc" "points.0.$k" 2>/dev/null)"
done

# bench/scaling.sh with its own gregord
rc=0
BENCH_OUT_DIR="$GR_TMP/sc" BENCH_SCALING_POINTS=2x2 BENCH_SCALING_MESSAGES=2000 BENCH_REPEAT=1 \
  BENCH_SCALING_BROKERS=gregord BENCH_TIMEOUT=60 gr_timeout 70 bash "$GR_SOURCE_DIR/bench/scaling.sh" \
  >"$GR_TMP/sc.out" 2>"$GR_TMP/sc.err" || rc=$?
check_eq "bench/scaling.sh exits 0 (every record drained)" 0 "$rc"
((rc == 0)) || { tail -n 20 "$GR_TMP/sc.err"; cat "$GR_TMP/sc.out"; }
doc="$(cat "$GR_TMP/sc/scaling.json" 2>/dev/null || echo '{}')"
check_eq "one point: gregord, 2 partitions x 2 consumers, 2000 records" "gregord 2 2 2000" \
  "$(jget "$doc" points.0.broker 2>/dev/null) $(jget "$doc" points.0.partitions 2>/dev/null) $(jget "$doc" points.0.consumers 2>/dev/null) $(jget "$doc" points.0.records 2>/dev/null)"
for k in msgs_s cpu_s cpu_us_per_record; do
  check "scaling.json: $k is a number" num "$(jget "$doc" "points.0.$k" 2>/dev/null)"
done
check_no_sanitizer_report
gr_finish
