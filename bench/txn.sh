#!/usr/bin/env bash
# bench/txn.sh: transactions on gregord and on Apache Kafka 4.4.0 in one run, the same clients on
# both (part of `make bench` unless BENCH_SKIP_TXN=1; alone: GR_BUILD_DIR=build bash bench/txn.sh).
#
# Per broker: a topic of 4 partitions per phase.
#   txn100 / txn1000  libgregor's transactional producer (gregor_bench_client produce with
#                     GR_BENCH_TXN_SIZE; acks=all, client defaults otherwise) sends N records of
#                     1 KiB in transactions of 100 / 1,000 records: records/s over the whole run,
#                     every commit included;
#   rc_consume        kcat (librdkafka) reads the txn1000 topic from the start with
#                     isolation.level=read_committed to the end (-e): records/s, and the count must
#                     be N (exactly the committed records); kcat's own speed bounds this figure
#                     (about 150k records/s here on both brokers);
#   rc_consume_libgregor  the same read with libgregor (gregor_bench_client consume, no group,
#                     isolation.level=read_committed): N / (first poll -> the N-th record).
# Each figure is the median of BENCH_TXN_RUNS runs (default 3), each run on new topics; broker
# CPU-s per million records (/proc/PID/stat) and the broker's peak RSS; then gregord / Kafka.
# Environment: BENCH_TXN_MESSAGES (100000), BENCH_TXN_RUNS (3), BENCH_TXN_BROKERS ("gregord
# kafka"), BENCH_KAFKA_HEAP ("-Xmx1G -Xms1G"), BENCH_TIMEOUT (1800 s), GR_BUILD_DIR.
# Any broker: --bootstrap-server H:P (or BENCH_BOOTSTRAP=H:P) measures that broker or cluster only,
# under the name --name / BENCH_NAME (default "external"), without starting anything (no CPU or
# RSS figures). Writes $GR_BUILD_DIR/bench-results/txn.txt.
set -uo pipefail
BENCH_SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
GR_TEST_TIMEOUT="${BENCH_TIMEOUT:-1800}"
# shellcheck source=../tests/lib.sh
source "$BENCH_SRC/../tests/lib.sh"
# shellcheck source=lib.sh
source "$BENCH_SRC/lib.sh"
GR_TEST_NAME=bench-txn
bench_parse_bootstrap "$@"
N="${BENCH_TXN_MESSAGES:-100000}"
RUNS="${BENCH_TXN_RUNS:-3}"
BROKERS="${BENCH_TXN_BROKERS:-gregord kafka}"
[[ -n "$BENCH_EXTERNAL" ]] && BROKERS="$BENCH_NAME"
export KAFKA_REF_HEAP="${BENCH_KAFKA_HEAP:--Xmx1G -Xms1G}"
OUT_DIR="$GR_BUILD_DIR/bench-results"
TICK="$(getconf CLK_TCK)"
CLIENT="$GR_BUILD_DIR/gregor_bench_client"
gr_init
gr_require kcat python3
[[ -x "$CLIENT" ]] || die "$CLIENT missing (make build)"
bench_results_init
put command "bash bench/txn.sh (N=$N RUNS=$RUNS BROKERS=\"$BROKERS\")"

cpu_ticks() { bench_cpu_ticks "$BPID"; }
hwm_mb() { awk '$1 == "VmHWM:" {printf "%.1f", $2 * 1024 / 1e6}' "/proc/$BPID/status" 2>/dev/null; }
median() { sort -n | awk '{v[NR] = $1} END {if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2)}'; }
BPID=""
start_broker() { bench_start_broker "$1"; }
stop_broker() { bench_stop_broker "$1"; }
create() { gr_timeout 60 "$GR_BUILD_DIR/gregor" topics --bootstrap-server "$BOOTSTRAP" --create --topic "$1" \
  --partitions 4 --replication-factor 1 >/dev/null || die "create $1"; }

# produce BROKER SIZE RUN: one transactional produce run; prints "records/s cpu_s_per_million"
produce() {
  local b="$1" k="$2" r="$3" t="txn$2-$3-$$" c0 out
  create "$t"
  c0="$(cpu_ticks)"
  out="$(GR_BENCH_TXN_SIZE="$k" gr_timeout 600 "$CLIENT" produce "$BOOTSTRAP" "$t" "$N" 1024 \
    -X "transactional.id=bench-$b-$k-$r" 2>>"$GR_TMP/client.err" | tail -n 1)"
  local done_; done_="$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["done"])' "$out" 2>/dev/null)"
  [[ "$done_" == "$N" ]] || { say "$b txn$k run $r failed: $out $(tail -n 2 "$GR_TMP/client.err")"; return 1; }
  python3 -c 'import json,sys; d = json.loads(sys.argv[1]); print(d["msgs_per_s"])' "$out"
  if [[ -n "$BPID" ]]; then calc "($(cpu_ticks) - $c0) / $TICK / ($N / 1e6)"; else echo nan; fi
}

# consume BROKER RUN: kcat read_committed over txn1000-RUN; prints "records/s" (or fails)
consume() {
  local b="$1" r="$2" t0 got secs
  t0="$(date +%s.%N)"
  got="$(gr_timeout 600 kcat -b "$BOOTSTRAP" -C -t "txn1000-$r-$$" -o beginning -e -q -X isolation.level=read_committed \
    -f '.\n' 2>/dev/null | wc -l)"
  secs="$(calc "$(date +%s.%N) - $t0")"
  [[ "$got" == "$N" ]] || { say "$b read_committed run $r: $got of $N records"; return 1; }
  calc "$N / $secs"
}

# consume_lg BROKER RUN: libgregor read_committed over txn1000-RUN; prints "records/s" (or fails)
consume_lg() {
  local b="$1" r="$2" out
  out="$(gr_timeout 600 "$CLIENT" consume "$BOOTSTRAP" "txn1000-$r-$$" "$N" -X isolation.level=read_committed \
    2>"$GR_TMP/consume.err" | tail -n 1)" || { say "$b libgregor read_committed run $r failed: $out $(tail -n 2 "$GR_TMP/consume.err")"; return 1; }
  python3 -c 'import json,sys; print(json.loads(sys.argv[1])["msgs_per_s"])' "$out"
}

for b in $BROKERS; do
  start_broker "$b"
  put "$b.loadavg_start" "$(cut -d' ' -f1 /proc/loadavg)"
  for k in 100 1000; do
    rates=() cpus=()
    for ((r = 1; r <= RUNS; r++)); do
      mapfile -t res < <(produce "$b" "$k" "$r") || true
      ((${#res[@]} == 2)) || continue
      rates+=("${res[0]}") cpus+=("${res[1]}")
      say "$b txn$k run $r: ${res[0]} records/s, ${res[1]} broker CPU-s per million"
    done
    if ((${#rates[@]})); then
      put "$b.txn$k.msgs_s" "$(printf '%s\n' "${rates[@]}" | median)"
      [[ -n "$BPID" ]] && put "$b.txn$k.cpu_s_per_million" "$(printf '%s\n' "${cpus[@]}" | median)"
    else
      put "$b.txn$k.note" "failed"
    fi
  done
  rates=()
  for ((r = 1; r <= RUNS; r++)); do
    x="$(consume "$b" "$r")" && rates+=("$x") && say "$b read_committed run $r: $x records/s"
  done
  if ((${#rates[@]})); then put "$b.rc_consume.msgs_s" "$(printf '%s\n' "${rates[@]}" | median)"
  else put "$b.rc_consume.note" "failed"; fi
  rates=()
  for ((r = 1; r <= RUNS; r++)); do
    x="$(consume_lg "$b" "$r")" && rates+=("$x") && say "$b libgregor read_committed run $r: $x records/s"
  done
  if ((${#rates[@]})); then put "$b.rc_consume_libgregor.msgs_s" "$(printf '%s\n' "${rates[@]}" | median)"
  else put "$b.rc_consume_libgregor.note" "failed"; fi
  [[ -n "$BPID" ]] && put "$b.peak_rss_mb" "$(hwm_mb)"
  stop_broker "$b"
done

mkdir -p "$OUT_DIR"
cp "$RES" "$OUT_DIR/txn.txt"
python3 "$BENCH_SRC/report.py" compare "$RES"
bench_stop_watchdog || true
ok "bench/txn.sh done"
gr_finish
