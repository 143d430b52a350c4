#!/usr/bin/env bash
# bench/cgroup.sh: consumer groups on gregord and on Apache Kafka 4.4.0 in one run (part of
# `make bench` unless BENCH_SKIP_CGROUP=1; alone: GR_BUILD_DIR=build bash bench/cgroup.sh).
#
# Workload, the same on both brokers: a topic of 4 partitions with N/4 records of 1 KiB each
# (kcat -P per partition), both brokers with group.initial.rebalance.delay.ms=BENCH_CG_INITIAL_DELAY_MS
# (default 300: members started together make the first generation together on both brokers; with
# 0, as Kafka's shipped server.properties, which generation a member makes is a race, see
# docs/benchmarks.md). Phases, each in a new group:
#   kcat_g    1 and 4 kcat -G (librdkafka, classic protocol) members started together, each exits at the
#             end of its partitions (-e); two rates: N / (first start -> last exit), join and the
#             final empty long poll included (msgs_s), and N / (first record of any member -> last
#             record of any member) (msgs_s_first_last: their output through bench/stamp_lines.py);
#   perf      ConsumerPerformance (the Java KafkaConsumer of kafka-tools 4.4.0), 1 member, reading
#             N records; rate = N / (start.time -> end.time it prints), join included, and the
#             fetch.nMsg.sec it prints (its window without the join: fetch_msgs_s); with
#             BENCH_CG_PROTOCOLS containing "consumer", also with group.protocol=consumer (KIP-848)
#             when the broker advertises ConsumerGroupHeartbeat. Not with 4 members: each
#             ConsumerPerformance stops at a record count, so the records re-read after a
#             rebalance (offsets auto-committed every 5 s) leave one member waiting for its
#             timeout and the window measures that timeout; kcat -G -e stops at the partition
#             ends instead;
#   rebalance the time from a member leaving to the remaining member consuming the partitions it
#             left (bench/cgroup_rebalance.py, confluent-kafka, client defaults, records flowing at
#             2,000/s), per protocol, the median of BENCH_CG_ROUNDS rounds.
# Reported per broker: records/s, broker CPU-s per million records (/proc/PID/stat) for the
# consumption phases, the rebalance latency, and the broker's peak RSS; then gregord / Kafka.
# Environment: BENCH_CG_MESSAGES (default 400000), BENCH_CG_ROUNDS (3), BENCH_CG_INITIAL_DELAY_MS (300), BENCH_CG_BROKERS
# ("gregord kafka"), BENCH_CG_PROTOCOLS ("classic consumer"), BENCH_KAFKA_HEAP ("-Xmx1G -Xms1G"),
# BENCH_TIMEOUT (1800 s), GR_BUILD_DIR. Writes $GR_BUILD_DIR/bench-results/cgroup.txt.
# Any broker: --bootstrap-server H:P (or BENCH_BOOTSTRAP=H:P) measures that broker or cluster only,
# under the name --name / BENCH_NAME (default "external"), without starting anything (no CPU or
# RSS figures; its group.initial.rebalance.delay.ms is its own).
set -uo pipefail
BENCH_SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
GR_TEST_TIMEOUT="${BENCH_TIMEOUT:-1800}"
# shellcheck source=../tests/lib.sh
source "$BENCH_SRC/../tests/lib.sh"
# shellcheck source=lib.sh
source "$BENCH_SRC/lib.sh"
GR_TEST_NAME=bench-cgroup
bench_parse_bootstrap "$@"
CGT="cgbench-$$" CGR="cgrebal-$$" # topic names: new ones each run (an external broker keeps them)
N="${BENCH_CG_MESSAGES:-400000}"
ROUNDS="${BENCH_CG_ROUNDS:-3}"
BROKERS="${BENCH_CG_BROKERS:-gregord kafka}"
[[ -n "$BENCH_EXTERNAL" ]] && BROKERS="$BENCH_NAME"
PROTOCOLS="${BENCH_CG_PROTOCOLS:-classic consumer}"
DELAY_MS="${BENCH_CG_INITIAL_DELAY_MS:-300}"
export KAFKA_REF_HEAP="${BENCH_KAFKA_HEAP:--Xmx1G -Xms1G}"
OUT_DIR="$GR_BUILD_DIR/bench-results"
TICK="$(getconf CLK_TCK)"
gr_init
gr_require python3 kcat java
PY="$(gr_venv_dir)/bin/python"
[[ -x "$PY" ]] || die "python venv missing ($PY): run scripts/install-deps.sh"
((N % 4 == 0)) || die "BENCH_CG_MESSAGES must be a multiple of 4"
bench_results_init
put command "bash bench/cgroup.sh (N=$N ROUNDS=$ROUNDS DELAY_MS=$DELAY_MS BROKERS=\"$BROKERS\" PROTOCOLS=\"$PROTOCOLS\")"
TOOLS_DIR="$GR_TMP/tools"; mkdir -p "$TOOLS_DIR"
FILE="$GR_TMP/in.txt"
bench_kcat_input "$FILE" $((N / 4)) 1024

cpu_ticks() { bench_cpu_ticks "$1"; }
hwm_mb() { awk '$1 == "VmHWM:" {printf "%.1f", $2 * 1024 / 1e6}' "/proc/$1/status" 2>/dev/null; }
now() { date +%s.%N; }
BPID=""

start_broker() { bench_start_broker "$1" group.initial.rebalance.delay.ms="$DELAY_MS"; } # BPID, BOOTSTRAP
stop_broker() { bench_stop_broker "$1"; }

# cpu_per_m C0: broker CPU-s per million records since tick count C0
cpu_per_m() { if [[ -n "$BPID" ]]; then calc "($(cpu_ticks "$BPID") - $1) / $TICK / ($N / 1e6)"; else echo n/a; fi; }

kcat_g() { # kcat_g BROKER MEMBERS
  local b="$1" k="$2" g="cg-kcat-$1-$2-$$" i pids=() t0 c0 got window
  c0="$(cpu_ticks "$BPID")"; t0="$(now)"
  for ((i = 0; i < k; i++)); do
    gr_timeout 300 kcat -b "$BOOTSTRAP" -G "$g" "$CGT" -X auto.offset.reset=earliest -e -q -f '%p\n' 2>/dev/null |
      python3 "$BENCH_SRC/stamp_lines.py" "$GR_TMP/kg.$b.$k.$i" &
    pids+=($!)
  done
  for i in "${pids[@]}"; do wait "$i"; done
  local secs; secs="$(calc "$(now) - $t0")"
  # every member's "LINES FIRST LAST": records received, first and last record times
  read -r got window <<<"$(cat "$GR_TMP/kg.$b.$k".* | awk '$1 > 0 {
      n += $1; if (!f || $2 < f) f = $2; if ($3 > l) l = $3 } END {printf "%d %.6f\n", n, l - f}')"
  if ((got < N)); then put "$b.kcat_g_m$k.note" "consumed-$got-of-$N"; say "$b kcat -G x$k: only $got of $N"; return; fi
  put "$b.kcat_g_m$k.msgs_s" "$(calc "$N / $secs")"
  put "$b.kcat_g_m$k.msgs_s_first_last" "$(calc "$N / $window")"
  put "$b.kcat_g_m$k.cpu_s_per_million" "$(cpu_per_m "$c0")"
  say "$b kcat -G x$k: $N in $secs s = $(calc "$N / $secs") records/s; first -> last record $window s = $(calc "$N / $window") records/s ($got received: duplicates after rebalances count once)"
}

perf() { # perf BROKER MEMBERS PROTOCOL
  local b="$1" k="$2" proto="$3" g="cg-perf-$1-$2-$3-$$" i pids=() c0 cfg="$GR_TMP/perf-$3.properties"
  echo "group.protocol=$proto" >"$cfg"
  c0="$(cpu_ticks "$BPID")"
  for ((i = 0; i < k; i++)); do
    gr_timeout 600 bash "$GR_REF_SH" tool "$TOOLS_DIR" org.apache.kafka.tools.ConsumerPerformance \
      --bootstrap-server "$BOOTSTRAP" --topic "$CGT" --num-records $((N / k)) --timeout 60000 --hide-header \
      --group "$g" --command-config "$cfg" >"$GR_TMP/perf.$b.$k.$proto.$i" 2>&1 &
    pids+=($!)
  done
  local rc=0
  for i in "${pids[@]}"; do wait "$i" || rc=1; done
  local key="perf_${proto}_m$k" r
  # start.time, end.time, MB, MB.sec, nMsg, ...: the window from the earliest start to the latest end
  r="$(cat "$GR_TMP/perf.$b.$k.$proto".* | python3 -c '
import sys, datetime
rows = [l.split(", ") for l in sys.stdin if l[:2] == "20"]
t = lambda s: datetime.datetime.strptime(s.strip(), "%Y-%m-%d %H:%M:%S:%f").timestamp()
if not rows: sys.exit(1)
n = sum(int(r[4]) for r in rows)
# fetch.nMsg.sec (column 10) is per member: their sum
print(n, max(t(r[1]) for r in rows) - min(t(r[0]) for r in rows), sum(float(r[9]) for r in rows))')" || rc=1
  if ((rc)); then put "$b.$key.note" "failed"; say "$b perf $proto x$k failed: $(tail -n 2 "$GR_TMP/perf.$b.$k.$proto.0")"; return; fi
  local n secs fetch_rate; read -r n secs fetch_rate <<<"$r"
  put "$b.$key.msgs_s" "$(calc "$N / $secs")"
  put "$b.$key.fetch_msgs_s" "$fetch_rate"
  put "$b.$key.cpu_s_per_million" "$(cpu_per_m "$c0")"
  say "$b ConsumerPerformance $proto x$k: $n records, window $secs s = $(calc "$N / $secs") records/s (without the join: $fetch_rate)"
}

rebalance() { # rebalance BROKER PROTOCOL
  local b="$1" proto="$2" out
  out="$(gr_timeout 600 "$PY" "$BENCH_SRC/cgroup_rebalance.py" "$BOOTSTRAP" "$CGR" 4 "$proto" "$ROUNDS" 2>"$GR_TMP/rebal.$b.$proto.err" | tail -n 1)"
  local med; med="$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["median_ms"])' "$out" 2>/dev/null)" ||
    { put "$b.rebalance_$proto.note" "failed"; say "$b rebalance $proto failed: $out $(tail -n 2 "$GR_TMP/rebal.$b.$proto.err")"; return; }
  put "$b.rebalance_$proto.median_ms" "$med"
  say "$b rebalance latency ($proto): $out"
}

has_api() { # has_api KEY: the broker advertises it (ApiVersions through kcat's debug output is clumsy; python)
  python3 "$BENCH_SRC/report.py" apikeys 127.0.0.1 "${BOOTSTRAP##*:}" 2>/dev/null | tr ' ' '\n' | grep -qx "$1"
}

for b in $BROKERS; do
  start_broker "$b"
  say "$b: producing $N x 1 KiB into $CGT (4 partitions)"
  gr_timeout 60 kcat -b "$BOOTSTRAP" -L >/dev/null 2>&1
  "$GR_BUILD_DIR/gregor" topics --bootstrap-server "$BOOTSTRAP" --create --topic "$CGT" --partitions 4 \
    --replication-factor 1 >/dev/null || die "create $CGT"
  "$GR_BUILD_DIR/gregor" topics --bootstrap-server "$BOOTSTRAP" --create --topic "$CGR" --partitions 4 \
    --replication-factor 1 >/dev/null || die "create $CGR"
  for p in 0 1 2 3; do gr_timeout 300 kcat -P -b "$BOOTSTRAP" -t "$CGT" -p "$p" -X acks=1 -l "$FILE" || die "produce"; done
  for k in 1 4; do kcat_g "$b" "$k"; done
  for proto in $PROTOCOLS; do
    if [[ "$proto" == consumer ]] && ! has_api 68; then
      put "$b.perf_consumer.note" "no-ConsumerGroupHeartbeat"; say "$b: no KIP-848 (ConsumerGroupHeartbeat not advertised)"; continue
    fi
    perf "$b" 1 "$proto"
    rebalance "$b" "$proto"
  done
  [[ -n "$BPID" ]] && put "$b.peak_rss_mb" "$(hwm_mb "$BPID")"
  stop_broker "$b"
done

mkdir -p "$OUT_DIR"
cp "$RES" "$OUT_DIR/cgroup.txt"
python3 "$BENCH_SRC/report.py" compare "$RES"
bench_stop_watchdog || true
ok "bench/cgroup.sh done"
gr_finish
