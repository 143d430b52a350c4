#!/usr/bin/env bash
# Smoke test of bench/share_memory.sh (docs/benchmarks.md, "Memory per in-flight record"): a tiny
# run (2 partitions x 1,000 records in flight per shape, backlogs of 2,000 and 20,000 records over 4 partitions with 200 in flight each,
# 1 and 3 members) that checks the results file's format and that every count was reached, as
# gregord itself reports it (gregor_share_in_flight_records, _group_members, _group_sessions).
# No memory figure is asserted: RSS deltas this small are page-granular noise.
#   bash tests/integration/test_bench_share_memory.sh [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
GR_TEST_TIMEOUT="${GR_TEST_TIMEOUT:-120}"
gr_init "$@"
[[ "$GR_TARGET" == gregord ]] || die "test_bench_share_memory starts gregord itself (through the bench script)"
OUT="$GR_TMP/share_memory.txt"
rc=0
BENCH_SM_RUNS=1 BENCH_SM_PARTITIONS=2 BENCH_SM_LOCKS=1000 BENCH_SM_BATCH=100 BENCH_SM_MEMBERS=2 \
  BENCH_SM_SHAPES="batch ack_half reacquire" BENCH_SM_BACKLOGS="2000 20000" BENCH_SM_BACKLOG_LOCKS=200 \
  BENCH_SM_BACKLOG_BATCH=100 BENCH_SM_MEMBER_COUNTS=1,3 BENCH_SM_SETTLE=0.05 BENCH_SM_HEAP=0 BENCH_SM_OUT="$OUT" BENCH_TIMEOUT=100 \
  gr_timeout 110 bash "$GR_SOURCE_DIR/bench/share_memory.sh" >"$GR_TMP/bench.out" 2>"$GR_TMP/bench.err" || rc=$?
check_eq "bench/share_memory.sh exits 0" 0 "$rc"
((rc == 0)) || { tail -n 20 "$GR_TMP/bench.err"; cat "$GR_TMP/bench.out"; }
check "it prints its summary table" grep -q '^in flight .*B/ACQUIRED' "$GR_TMP/bench.out"
[[ -s "$OUT" ]] || die "no results file $OUT"
v() { awk -v k="$1" '$1 == k {print $2}' "$OUT" | tail -n 1; }
num() { [[ "$1" =~ ^-?[0-9]+(\.[0-9]+)?$ ]]; }
for k in date loadavg_start machine command r1.loadavg_start; do
  check "results carry $k" test -n "$(v "$k")"
done
check_eq "no failed measurement (note keys)" "" "$(grep '\.note ' "$OUT" || true)"
for s in batch ack_half reacquire; do
  check_eq "$s: the whole window in flight (2 x 1000)" 2000 "$(v "median.inflight_$s.window")"
  want=2000
  [[ "$s" == ack_half ]] && want=1000
  check_eq "$s: ACQUIRED as gregord counts it" "$want $want" \
    "$(v "median.inflight_$s.acquired") $(v "median.inflight_$s.broker_in_flight")"
  for k in before.rss after.rss after.rss_anon after.rss_file after.private_dirty bytes_per_acquired \
    bytes_per_window_record; do
    check "$s: $k is a number" num "$(v "median.inflight_$s.$k")"
  done
done
check_eq "reacquire: the released half acquired again" 1000 "$(v "median.inflight_reacquire.reacquired")"
for n in 2000 20000; do
  check_eq "backlog $n: the same 4 x 200 in flight" "800 800" \
    "$(v "median.backlog_$n.acquired") $(v "median.backlog_$n.broker_in_flight")"
  check "backlog $n: RSS is a number" num "$(v "median.backlog_$n.after.rss")"
done
check "the backlog difference is reported" num "$(v median.backlog.rss_diff_mb)"
for n in 1 3; do
  check_eq "$n members and sessions, as gregord counts them" "$n $n" \
    "$(v "median.members.m$n.broker_members") $(v "median.members.m$n.broker_sessions")"
  check "$n members: bytes per member is a number" num "$(v "median.members.m$n.bytes_per_member")"
done
check_eq "no gregord left running from the bench" "" "$(pgrep -f "$GR_BUILD_DIR/gregord .*share-memory" || true)"
gr_finish
