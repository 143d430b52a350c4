#!/usr/bin/env bash
# bench/run.sh: gregord next to Apache Kafka 4.4.0 on loopback, in one run (`make bench`).
#
# Workload, the same for both brokers (same clients, same settings, 1 partition, 1 KiB values):
#   produce acks=1 and acks=all with Apache Kafka's ProducerPerformance (kafka-tools 4.4.0, Java
#     producer defaults) and with kcat -P from a prepared file (librdkafka defaults);
#   fetch the kcat acks=1 topic with kcat -C (from the beginning, no group, exits at the N-th
#     message: -c N, not at the end-of-partition that librdkafka detects only after an empty
#     fetch.wait.max.ms long poll) and with libgregor's consumer (gregor_bench_client consume, no
#     group; rate = N / process wall time, as kcat's), and the
#     ProducerPerformance acks=1 topic with ConsumerPerformance when the broker has consumer groups;
#   broker CPU-seconds per phase (/proc/PID/stat utime+stime), idle RSS after start-up and peak RSS
#     (VmHWM); client CPU-seconds (/usr/bin/time);
#   a raw loopback TCP copy of the same bytes (bench_loopback, median of 3): the physical limit;
#   gregord start-up with 1,000 partitions holding data (SIGTERM, restart, time until the port
#     answers; the "opened N partition(s) in M ms" log line), and Apache Kafka's restart on the same.
#   share drain: the same libgregor share consumers drain one topic on each broker with 1, 2 and 4
#     consumers in one group (bench/share_drain.sh);
# Prints a table with the ratios and the goals of issue 2; writes $GR_BUILD_DIR/bench-results/latest.json
# (bench/plots.sh, run by `make bench`, draws it).
#
# Environment:
#   BENCH_MESSAGES      messages per phase (default 500000 = 512 MB per phase; 1000000 = 1 GiB)
#   BENCH_REPEAT        runs of each kcat phase, the median run is reported (default 3);
#                       the ProducerPerformance/ConsumerPerformance phases run once
#   BENCH_KAFKA_HEAP    reference broker heap (default "-Xmx1G -Xms1G", kafka-server-start.sh's)
#   BENCH_STARTUP_PARTS partitions for the start-up test (default 1000)
#   BENCH_SKIP_KAFKA=1  gregord only;  BENCH_SKIP_STARTUP=1  no start-up test
#   BENCH_SHARE_MESSAGES, BENCH_SHARE_PARTITIONS, BENCH_SHARE_CONSUMERS, BENCH_SKIP_SHARE=1: the share
#                       drains (bench/share_drain.sh)
#   BENCH_TIMEOUT       watchdog for the whole run, s (default 1800)
#   GR_BUILD_DIR        where gregord and bench_loopback are (default ./build), GR_KEEP_TMP=1
#   --bootstrap-server H:P (or BENCH_BOOTSTRAP=H:P)  run the workload against that broker or cluster
#                       only (--name / BENCH_NAME, default "external", names it), starting nothing: no
#                       broker CPU or RSS figures, no start-up test; the figures are printed as they
#                       are (report.py compare) into $GR_BUILD_DIR/bench-results/latest-NAME.txt
# Everything listens on 127.0.0.1 only; every process is started and stopped by PID.
set -uo pipefail

BENCH_SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
GR_TEST_TIMEOUT="${BENCH_TIMEOUT:-1800}"
# shellcheck source=../tests/lib.sh
source "$BENCH_SRC/../tests/lib.sh"
# shellcheck source=lib.sh
source "$BENCH_SRC/lib.sh"
# shellcheck source=share_drain.sh
source "$BENCH_SRC/share_drain.sh"
GR_TEST_NAME=bench
bench_parse_bootstrap "$@"
TS="-$$" # topic name suffix: new topics each run (an external broker keeps them)

N="${BENCH_MESSAGES:-500000}"
REPEAT="${BENCH_REPEAT:-3}"
STARTUP_PARTS="${BENCH_STARTUP_PARTS:-1000}"
export KAFKA_REF_HEAP="${BENCH_KAFKA_HEAP:--Xmx1G -Xms1G}"
OUT_DIR="$GR_BUILD_DIR/bench-results"
REPORT="$BENCH_SRC/report.py"
TICK="$(getconf CLK_TCK)"

gr_init
gr_require kcat java python3 /usr/bin/time
[[ -x "$GR_BUILD_DIR/gregord" ]] || die "no $GR_BUILD_DIR/gregord (make, or GR_BUILD_DIR=...)"
[[ -x "$GR_BUILD_DIR/bench_loopback" ]] || die "no $GR_BUILD_DIR/bench_loopback (make)"
bash "$GR_REF_SH" setup || die "reference Kafka jars unavailable (tests/ref/kafka-ref.sh setup)"

bench_results_init
put messages "$N"
put repeat "$REPEAT"
put share_drain_messages "$SD_N"
put share_drain_partitions "$SD_PARTS"
put command "bash bench/run.sh (BENCH_MESSAGES=$N BENCH_REPEAT=$REPEAT BENCH_SHARE_MESSAGES=$SD_N)"

cpu_ticks() { bench_cpu_ticks "$1"; } # utime+stime of PID, in ticks (0 without a PID)
status_kb() { awk -v k="$2:" '$1 == k {print $2}' "/proc/$1/status" 2>/dev/null; }
kb_to_mb() { awk -v x="$1" 'BEGIN {printf "%.1f", x * 1024 / 1e6}'; }

# ------------------------------------------------------------------ inputs
KCAT_FILE="$GR_TMP/kcat-input.txt"
bench_kcat_input "$KCAT_FILE" "$N" 1024

# ------------------------------------------------------------------ raw loopback copy
BYTES=$((N * 1024))
lb=()
for i in 1 2 3; do
  v="$("$GR_BUILD_DIR/bench_loopback" "$BYTES" 65536 --json | tail -n1 |
       python3 -c 'import json,sys; print(json.load(sys.stdin)["mb_per_s"])')" || die "bench_loopback failed"
  lb+=("$v")
done
LOOPBACK="$(printf '%s\n' "${lb[@]}" | sort -g | sed -n 2p)"
say "raw loopback copy: ${lb[*]} MB/s (median $LOOPBACK)"
put loopback_mb_s "$LOOPBACK"

# ------------------------------------------------------------------ phases
TOOLS_DIR="$GR_TMP/tools"
mkdir -p "$TOOLS_DIR"
jtool() { bash "$GR_REF_SH" tool "$TOOLS_DIR" "$@"; }

# phase_begin / phase_end B KEY: broker CPU delta over the phase
# Dirty pages of the previous phase are written back first (sync), so that no phase pays
# for the one before; the 1-minute load average is noted (this machine may be shared).
phase_begin() {
  gr_timeout 120 sync
  PH_LOAD="$(cut -d' ' -f1 /proc/loadavg)"
  PH_T0=$(cpu_ticks "$BPID")
}
phase_end() {
  [[ -n "$BPID" ]] || { put "$1.$2.loadavg" "$PH_LOAD"; return 0; }
  local t1; t1=$(cpu_ticks "$BPID")
  put "$1.$2.cpu_s" "$(calc "($t1 - $PH_T0) / $TICK")"
  put "$1.$2.loadavg" "$PH_LOAD"
  put "$1.$2.peak_rss_mb_so_far" "$(kb_to_mb "$(status_kb "$BPID" VmHWM)")"
}
client_cpu() { awk 'NR == 1 {printf "%.2f", $1 + $2}' "$1"; }


produce_java() { # produce_java BROKER ACKS
  local b="$1" acks="$2" key="produce_java_acks$2" topic="bench-java-acks$2$TS" out line
  say "$b: ProducerPerformance acks=$acks, $N records"
  phase_begin
  out="$GR_TMP/$b.$key.out"
  gr_timeout 900 /usr/bin/time -f '%U %S' -o "$GR_TMP/$b.$key.time" bash "$GR_REF_SH" tool "$TOOLS_DIR" \
    org.apache.kafka.tools.ProducerPerformance --bootstrap-server "$BOOTSTRAP" --topic "$topic" \
    --num-records "$N" --record-size 1024 --throughput -1 --producer-props "acks=$acks" \
    >"$out" 2>&1
  local rc=$?
  phase_end "$b" "$key"
  line="$(grep -E '^[0-9]+ records sent' "$out" | tail -n1)"
  if ((rc != 0)) || [[ -z "$line" ]]; then
    put "$b.$key.note" "failed(rc=$rc)"; say "$b: ProducerPerformance failed, see $out"; tail -n5 "$out" >&2; return
  fi
  local sent rps
  sent="$(awk '{print $1}' <<<"$line")"
  rps="$(sed -E 's/^[0-9]+ records sent, ([0-9.]+) records\/sec.*/\1/' <<<"$line")"
  [[ "$sent" == "$N" ]] || { put "$b.$key.note" "sent-$sent"; return; }
  local lo; lo="$(last_offset "$topic")"
  ((lo == N - 1)) || { put "$b.$key.note" "last-offset-$lo"; say "$b: $topic ends at $lo, expected $((N - 1))"; return; }
  put "$b.$key.msgs_s" "$rps"
  put "$b.$key.mb_s" "$(calc "$rps * 1024 / 1e6")"
  put "$b.$key.client_cpu_s" "$(client_cpu "$GR_TMP/$b.$key.time")"
  say "$b: $line"
}

produce_kcat() { # produce_kcat BROKER ACKS RUN
  local b="$1" acks="$2" key="produce_kcat_acks$2.r$3" topic="bench-kcat-acks$2-r$3$TS"
  say "$b: kcat -P acks=$acks, $N messages (run $3)"
  phase_begin
  local t0 t1 rc
  t0=$(date +%s%N)
  gr_timeout 900 /usr/bin/time -f '%U %S' -o "$GR_TMP/$b.$key.time" \
    kcat -P -b "$BOOTSTRAP" -t "$topic" -p 0 -X "acks=$acks" -l "$KCAT_FILE" >"$GR_TMP/$b.$key.out" 2>&1
  rc=$?
  t1=$(date +%s%N)
  phase_end "$b" "$key"
  if ((rc != 0)); then put "$b.$key.note" "failed(rc=$rc)"; tail -n5 "$GR_TMP/$b.$key.out" >&2; return; fi
  local lo; lo="$(last_offset "$topic")"
  ((lo == N - 1)) || { put "$b.$key.note" "last-offset-$lo"; say "$b: $topic ends at $lo, expected $((N - 1))"; return; }
  local s; s="$(calc "($t1 - $t0) / 1e9")"
  put "$b.$key.msgs_s" "$(calc "$N / $s")"
  put "$b.$key.mb_s" "$(calc "$N * 1024 / 1e6 / $s")"
  put "$b.$key.client_cpu_s" "$(client_cpu "$GR_TMP/$b.$key.time")"
  say "$b: kcat acks=$acks: $N in $s s = $(calc "$N / $s") msgs/s"
}

fetch_kcat() { # fetch_kcat BROKER RUN: read bench-kcat-acks1-r1 from the beginning to the end
  local b="$1" key="fetch_kcat.r$2" topic="bench-kcat-acks1-r1$TS" t0 t1 lo
  say "$b: kcat -C from the beginning, $N messages (run $2)"
  phase_begin
  t0=$(date +%s%N)
  lo="$(gr_timeout 900 /usr/bin/time -f '%U %S' -o "$GR_TMP/$b.$key.time" \
        kcat -C -b "$BOOTSTRAP" -t "$topic" -p 0 -o beginning -c "$N" -e -q -f '%o\n' 2>"$GR_TMP/$b.$key.err" | tail -n1)"
  t1=$(date +%s%N)
  phase_end "$b" "$key"
  [[ "${lo:-}" == "$((N - 1))" ]] || { put "$b.$key.note" "last-offset-${lo:-none}"; return; }
  local s; s="$(calc "($t1 - $t0) / 1e9")"
  put "$b.$key.msgs_s" "$(calc "$N / $s")"
  put "$b.$key.mb_s" "$(calc "$N * 1024 / 1e6 / $s")"
  put "$b.$key.client_cpu_s" "$(client_cpu "$GR_TMP/$b.$key.time")"
  say "$b: kcat -C: $N in $s s = $(calc "$N / $s") msgs/s"
}

fetch_libgregor() { # fetch_libgregor BROKER RUN: the same topic with libgregor's consumer (no group)
  local b="$1" key="fetch_libgregor.r$2" topic="bench-kcat-acks1-r1$TS" t0 t1 out
  say "$b: libgregor consume from the beginning, $N messages (run $2)"
  phase_begin
  t0=$(date +%s%N)
  out="$(gr_timeout 900 /usr/bin/time -f '%U %S' -o "$GR_TMP/$b.$key.time" \
        "$GR_BUILD_DIR/gregor_bench_client" consume "$BOOTSTRAP" "$topic" "$N" 2>"$GR_TMP/$b.$key.err" | tail -n1)"
  t1=$(date +%s%N)
  phase_end "$b" "$key"
  [[ "$out" == *"\"done\":$N,"* ]] || { put "$b.$key.note" "incomplete"; say "$b: libgregor consume: $out"; return; }
  local s; s="$(calc "($t1 - $t0) / 1e9")"
  put "$b.$key.msgs_s" "$(calc "$N / $s")"
  put "$b.$key.mb_s" "$(calc "$N * 1024 / 1e6 / $s")"
  put "$b.$key.client_cpu_s" "$(client_cpu "$GR_TMP/$b.$key.time")"
  say "$b: libgregor consume: $N in $s s = $(calc "$N / $s") msgs/s"
}

fetch_java() { # fetch_java BROKER: ConsumerPerformance on bench-java-acks1 (needs consumer groups)
  local b="$1" key=fetch_java keys out line
  local first="${BOOTSTRAP%%,*}"
  keys=" $(python3 "$REPORT" apikeys "${first%:*}" "${first##*:}" 2>/dev/null) "
  if [[ "$keys" != *" 11 "* || "$keys" != *" 14 "* ]]; then
    put "$b.$key.note" "no-consumer-groups(JoinGroup/SyncGroup-not-advertised)"
    say "$b: ConsumerPerformance skipped (no JoinGroup/SyncGroup in ApiVersions)"
    return
  fi
  say "$b: ConsumerPerformance, $N records"
  out="$GR_TMP/$b.$key.out"
  phase_begin
  gr_timeout 900 /usr/bin/time -f '%U %S' -o "$GR_TMP/$b.$key.time" bash "$GR_REF_SH" tool "$TOOLS_DIR" \
    org.apache.kafka.tools.ConsumerPerformance --bootstrap-server "$BOOTSTRAP" --topic "bench-java-acks1$TS" \
    --num-records "$N" --timeout 30000 --hide-header --group "bench-$b-$$" >"$out" 2>&1
  local rc=$?
  phase_end "$b" "$key"
  # start.time, end.time, MB, MB.sec, nMsg, nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec
  line="$(grep -E '^[0-9]{4}-' "$out" | tail -n1)"
  if ((rc != 0)) || [[ -z "$line" ]]; then put "$b.$key.note" "failed(rc=$rc)"; tail -n5 "$out" >&2; return; fi
  local n rps
  n="$(awk -F', *' '{print $5}' <<<"$line")"
  rps="$(awk -F', *' '{print $10}' <<<"$line")"
  [[ "$n" == "$N" ]] || { put "$b.$key.note" "consumed-$n"; return; }
  put "$b.$key.msgs_s" "$rps"
  put "$b.$key.mb_s" "$(calc "$rps * 1024 / 1e6")"
  put "$b.$key.client_cpu_s" "$(client_cpu "$GR_TMP/$b.$key.time")"
  say "$b: ConsumerPerformance: $line"
}

run_workload() { # run_workload BROKER (BPID and BOOTSTRAP set)
  local b="$1"
  sleep 2
  if [[ -n "$BPID" ]]; then
    put "$b.idle_rss_mb" "$(kb_to_mb "$(status_kb "$BPID" VmRSS)")"
    say "$b: idle RSS $(status_kb "$BPID" VmRSS) kB"
  fi
  produce_java "$b" 1
  produce_java "$b" all
  local r
  for ((r = 1; r <= REPEAT; r++)); do produce_kcat "$b" 1 "$r"; done
  for ((r = 1; r <= REPEAT; r++)); do produce_kcat "$b" all "$r"; done
  for ((r = 1; r <= REPEAT; r++)); do fetch_kcat "$b" "$r"; done
  for ((r = 1; r <= REPEAT; r++)); do fetch_libgregor "$b" "$r"; done
  fetch_java "$b"
  share_drain_series "$b"
  [[ -n "$BPID" ]] || return 0
  put "$b.peak_rss_mb" "$(kb_to_mb "$(status_kb "$BPID" VmHWM)")"
  put "$b.total_cpu_s" "$(calc "$(cpu_ticks "$BPID") / $TICK")"
  say "$b: peak RSS $(status_kb "$BPID" VmHWM) kB"
}

# ------------------------------------------------------------------ an external broker
if [[ -n "$BENCH_EXTERNAL" ]]; then
  bench_start_broker "$BENCH_NAME"
  run_workload "$BENCH_NAME"
  put loadavg_end "$(cut -d' ' -f1 /proc/loadavg)"
  rm -f "$KCAT_FILE"
  mkdir -p "$OUT_DIR"
  cp "$RES" "$OUT_DIR/latest-$BENCH_NAME.txt"
  python3 "$REPORT" compare "$RES"
  ok "benchmark ran against $BENCH_EXTERNAL"
  bench_stop_watchdog
  gr_finish
fi

# ------------------------------------------------------------------ gregord
start_gregord
BPID="$GR_GREGORD_PID"
run_workload gregord
stop_gregord
say "gregord stopped (exit $GR_GREGORD_EXIT)"
rm -rf "$GR_DATA_DIR"

# ------------------------------------------------------------------ Apache Kafka
if [[ "${BENCH_SKIP_KAFKA:-0}" != 1 ]]; then
  start_ref_kafka
  BPID="$(cat "$GR_REF_DIR/kafka.pid")"
  run_workload kafka
  stop_ref_kafka
  rm -rf "$GR_REF_DIR/data"
fi

# ------------------------------------------------------------------ start-up with 1,000 partitions
startup_input() { # keyed small records spread over every partition
  python3 - "$GR_TMP/startup-input.txt" "$((STARTUP_PARTS * 20))" <<'EOF'
import sys
path, n = sys.argv[1], int(sys.argv[2])
with open(path, "w") as f:
    for i in range(n):
        f.write(f"key-{i}:" + ("v%07d" % i) * 16 + "\n")
EOF
}

fill_startup_topic() { # produce into topic "startup" (auto-created with num.partitions) and check it
  gr_timeout 300 kcat -P -b "$BOOTSTRAP" -t startup -K: -X acks=all -l "$GR_TMP/startup-input.txt" \
    >"$GR_TMP/startup-produce.$1.out" 2>&1 || say "$1: kcat -P (start-up data) failed"
  local parts
  parts="$(gr_timeout 60 kcat -b "$BOOTSTRAP" -L -t startup 2>/dev/null | grep -c 'partition [0-9]*, leader')"
  echo "$parts"
}

if [[ "${BENCH_SKIP_STARTUP:-0}" != 1 ]]; then
  startup_input
  start_gregord --override "num.partitions=$STARTUP_PARTS"
  parts="$(fill_startup_topic gregord)"
  say "gregord: topic 'startup' has $parts partitions"
  put startup.partitions "$parts"
  stop_gregord
  put startup.gregord_data_mb "$(du -sm "$GR_DATA_DIR" | awk '{print $1}')"
  runs=()
  bin="$(gregord_bin)"
  for i in 1 2 3; do
    echo "=== bench restart $i" >>"$GR_TMP/gregord.log"
    t0=$(date +%s%N)
    "$bin" --override "listeners=PLAINTEXT://127.0.0.1:$GR_PORT" \
      --override "advertised.listeners=PLAINTEXT://127.0.0.1:$GR_PORT" \
      --override "log.dirs=$GR_DATA_DIR" --override "num.partitions=$STARTUP_PARTS" \
      >>"$GR_TMP/gregord.log" 2>&1 </dev/null &
    GR_GREGORD_PID=$!
    GR_PIDS+=("$GR_GREGORD_PID")
    deadline=$(( $(date +%s) + 60 ))
    while ! port_open "$GR_PORT"; do
      alive "$GR_GREGORD_PID" || die "gregord exited during the start-up test"
      (( $(date +%s) < deadline )) || die "gregord not listening 60 s after restart"
      sleep 0.002
    done
    t1=$(date +%s%N)
    runs+=("$(( (t1 - t0) / 1000000 ))")
    sleep 0.3
    stop_gregord
  done
  med="$(printf '%s\n' "${runs[@]}" | sort -n | sed -n 2p)"
  put startup.gregord_port_ms "$med"
  put startup.gregord_port_ms_runs "$(IFS=/; echo "${runs[*]}")"
  opened="$(grep -oE 'opened [0-9]+ partition\(s\) in [0-9]+ ms' "$GR_TMP/gregord.log" | tail -n1)"
  say "gregord restart with $parts partitions: port answers after ${runs[*]} ms; last log: $opened"
  put startup.gregord_open_ms "$(sed -E 's/.* in ([0-9]+) ms/\1/' <<<"${opened:-x in nan ms}")"
  put startup.gregord_opened_line "$(tr ' ' '_' <<<"$opened")"
  rm -rf "$GR_DATA_DIR"

  if [[ "${BENCH_SKIP_KAFKA:-0}" != 1 ]]; then
    start_ref_kafka "num.partitions=$STARTUP_PARTS"
    kparts="$(fill_startup_topic kafka)"
    say "kafka: topic 'startup' has $kparts partitions"
    stop_ref_kafka
    t0=$(date +%s%N)
    restart_ref_kafka
    t1=$(date +%s%N)
    put startup.kafka_restart_ms "$(( (t1 - t0) / 1000000 ))"
    say "kafka restart with $kparts partitions: $(( (t1 - t0) / 1000000 )) ms (until 'Kafka Server started', polled every 0.2 s)"
    stop_ref_kafka
    rm -rf "$GR_REF_DIR/data"
  fi
fi

# ------------------------------------------------------------------ report
put loadavg_end "$(cut -d' ' -f1 /proc/loadavg)"
rm -f "$KCAT_FILE"
mkdir -p "$OUT_DIR"
cp "$RES" "$OUT_DIR/latest.txt"
python3 "$REPORT" report "$RES" "$OUT_DIR/latest.json" || fail "report failed"
cp "$OUT_DIR/latest.json" "$OUT_DIR/bench-$(date -u +%Y%m%dT%H%M%SZ).json"
ok "benchmark ran"
# End the watchdog here, the subshell before its sleep (ending the sleep first would let the
# subshell go on to signal this shell).
bench_stop_watchdog
gr_finish
