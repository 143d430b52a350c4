#!/usr/bin/env bash
# bench/share_dlq.sh: share drain with 5 % of the records REJECTed into a dead-letter queue, on
# gregord and on Apache Kafka 4.4.0 in one run (part of `make bench`; alone:
# GR_BUILD_DIR=build bash bench/share_dlq.sh).
#
# Workload, the same on both brokers and with the same client: a topic of N records of 1 KiB
# (BENCH_DLQ_PARTITIONS partitions), drained by one libgregor share consumer
# (bench/gregor_bench_client share-drain, GR_BENCH_REJECT_EVERY=20: explicit acknowledgement,
# REJECT when offset % 20 == 0, ACCEPT otherwise) in a new share group per run, in two modes:
#   dlq     the group has errors.deadletterqueue.topic.name=dlq.bench-PID (a 1-partition topic with
#           errors.deadletterqueue.group.enable=true; copy.record per BENCH_DLQ_COPY): every
#           REJECTed record is written to the DLQ; the run ends when the DLQ holds all of them
#           (its growth is checked: exactly N/20 per run);
#   nodlq   REJECT without a DLQ (the records are only archived): the cost of the DLQ write is
#           dlq minus nodlq.
# Both brokers need share.version=2 to dead-letter (docs/dlq.md §1), what a fresh node of either
# finalizes; FeatureCommand upgrades it after each start anyway (a no-op then). Reported per broker and mode, the median of BENCH_DLQ_RUNS runs: records/s (N / first ->
# last record of the consumer), broker CPU-s per million records (/proc/PID/stat utime+stime over
# the drain and the DLQ wait), and the broker's peak RSS (VmHWM) after all runs.
# gregord without a DLQ implementation refuses the group config: the dlq mode is then reported as
# "not-supported" with gregord's message, and the other measurements still run.
#
# Environment: BENCH_DLQ_MESSAGES (default 200000), BENCH_DLQ_RUNS (3), BENCH_DLQ_PARTITIONS (1),
# BENCH_DLQ_COPY (false), BENCH_DLQ_BROKERS ("gregord kafka"), BENCH_KAFKA_HEAP ("-Xmx1G -Xms1G"),
# BENCH_TIMEOUT (1800 s), GR_BUILD_DIR. Writes $GR_BUILD_DIR/bench-results/share_dlq.json.
# Any broker: --bootstrap-server H:P (or BENCH_BOOTSTRAP=H:P) measures that broker or cluster only,
# under the name --name / BENCH_NAME (default "external"), without starting anything and without
# changing its features (it needs share.version=2 to dead-letter; no CPU or RSS figures).
# Everything listens on 127.0.0.1 only; every process is started and stopped by PID.
set -uo pipefail

BENCH_SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
GR_TEST_TIMEOUT="${BENCH_TIMEOUT:-1800}"
# shellcheck source=../tests/lib.sh
source "$BENCH_SRC/../tests/lib.sh"
# shellcheck source=lib.sh
source "$BENCH_SRC/lib.sh"
GR_TEST_NAME=bench-share-dlq
bench_parse_bootstrap "$@"
SRCT="bench-dlq-src-$$" DLQT="dlq.bench-$$" # new topics each run (an external broker keeps them)

N="${BENCH_DLQ_MESSAGES:-200000}"
RUNS="${BENCH_DLQ_RUNS:-3}"
PARTS="${BENCH_DLQ_PARTITIONS:-1}"
COPY="${BENCH_DLQ_COPY:-false}"
BROKERS="${BENCH_DLQ_BROKERS:-gregord kafka}"
[[ -n "$BENCH_EXTERNAL" ]] && BROKERS="$BENCH_NAME"
export KAFKA_REF_HEAP="${BENCH_KAFKA_HEAP:--Xmx1G -Xms1G}"
OUT_DIR="$GR_BUILD_DIR/bench-results"
CLIENT="$GR_BUILD_DIR/gregor_bench_client"
CLI="$GR_BUILD_DIR/gregor"
TICK="$(getconf CLK_TCK)"
REJ=$((N / 20)) # offsets 0, 20, 40, ... of each partition: N/20 when N/PARTS is a multiple of 20

gr_init
gr_require python3 kcat
[[ -x "$CLIENT" && -x "$CLI" ]] || die "no $CLIENT or $CLI (make)"
(( (N / PARTS) % 20 == 0 )) || die "BENCH_DLQ_MESSAGES / BENCH_DLQ_PARTITIONS must be a multiple of 20"
bench_results_init
put command "bash bench/share_dlq.sh (N=$N RUNS=$RUNS PARTS=$PARTS COPY=$COPY BROKERS=\"$BROKERS\")"

cpu_ticks() { bench_cpu_ticks "$1"; }
hwm_mb() { awk '$1 == "VmHWM:" {printf "%.1f", $2 * 1024 / 1e6}' "/proc/$1/status" 2>/dev/null; }
dlq_end() { echo $(($(last_offset "$DLQT") + 1)); } # the DLQ's end offset (kcat, bench/lib.sh)
cfg() { # cfg GROUP CONFIGS: alter a group's configs; the CLI's output in $GR_TMP/cfg.out
  gr_timeout 60 "$CLI" configs --bootstrap-server "$BOOTSTRAP" --alter --entity-type groups --entity-name "$1" \
    --add-config "$2" >"$GR_TMP/cfg.out" 2>&1
}

run_once() { # run_once BROKER MODE RUN: one drain; prints "records_s cpu_per_m dlq_growth" or fails
  local b="$1" mode="$2" r="$3" group="bench-dlq-$1-$2-$3-$$" c0 c1 d0 d1 out
  local conf="share.auto.offset.reset=earliest"
  [[ "$mode" == dlq ]] && conf="$conf,errors.deadletterqueue.topic.name=$DLQT"
  cfg "$group" "$conf" || { echo "config-refused"; return 1; }
  [[ "$mode" == dlq && "$COPY" == true ]] && { cfg "$group" errors.deadletterqueue.copy.record.enable=true ||
    { echo "config-refused"; return 1; }; }
  d0="$(dlq_end)"
  gr_timeout 120 sync
  c0="$(cpu_ticks "$BPID")"
  out="$GR_TMP/$b.$mode.$r.out"
  GR_BENCH_REJECT_EVERY=20 GR_BENCH_IDLE_EXIT_MS=3000 gr_timeout 600 "$CLIENT" share-drain "$BOOTSTRAP" "$group" \
    "$SRCT" "$N" >"$out" 2>"$GR_TMP/$b.$mode.$r.err"
  d1="$d0"
  if [[ "$mode" == dlq ]]; then # the DLQ writes may finish after the consumer: wait for them (30 s at most)
    for _ in $(seq 300); do d1="$(dlq_end)"; ((d1 >= d0 + REJ)) && break; sleep 0.1; done
  else
    d1="$(dlq_end)"
  fi
  c1="$(cpu_ticks "$BPID")"
  python3 - "$out" "$N" "$REJ" "$c0" "$c1" "$TICK" "$((d1 - d0))" <<'PY'
import json, sys
out, n, rej, c0, c1, tick, grow = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7])
d = json.loads(open(out).read().strip().splitlines()[-1])
if d["done"] != n or d.get("rejected") != rej:
    print("received-%d-rejected-%s" % (d["done"], d.get("rejected"))); sys.exit(1)
secs = max(d["last_epoch"] - d["first_epoch"], 1e-3)
print("%.1f %.3f %d" % (n / secs, (c1 - c0) / tick / n * 1e6, grow))
PY
}

median() { printf '%s\n' "$@" | sort -g | awk '{a[NR] = $1} END {if (NR) print a[int((NR + 1) / 2)]}'; }

bench_broker() { # bench_broker gregord|kafka
  local b="$1" mode r line rates cpus grows note
  case "$b" in
    gregord|kafka) bench_start_broker "$b" ;;
    *) bench_start_broker "$b"; say "$b: an external broker: its features are left as they are" ;;
  esac
  # Dead-lettering needs level 2 on both (docs/dlq.md §1); fresh nodes have it, so this upgrade is a
  # no-op unless KAFKA_REF_FEATURES asked for less.
  mkdir -p "$GR_TMP/tools"
  [[ -z "$BPID" ]] || gr_timeout 120 bash "$GR_REF_SH" tool "$GR_TMP/tools" org.apache.kafka.tools.FeatureCommand \
    --bootstrap-server "$BOOTSTRAP" upgrade --feature share.version=2 >"$GR_TMP/$b.features" 2>&1 ||
    { put "$b.note" "share.version-upgrade-failed"; say "$b: share.version=2 refused"; }
  [[ -n "$BPID" ]] && put "$b.idle_rss_mb" "$(hwm_mb "$BPID")"
  gr_timeout 60 "$CLI" topics --bootstrap-server "$BOOTSTRAP" --create --topic "$SRCT" --partitions "$PARTS" \
    --replication-factor 1 >/dev/null 2>&1 || { put "$b.note" "topic-create-failed"; return; }
  if ! gr_timeout 60 "$CLI" topics --bootstrap-server "$BOOTSTRAP" --create --topic "$DLQT" --partitions 1 \
    --replication-factor 1 --config errors.deadletterqueue.group.enable=true >"$GR_TMP/$b.dlqtopic" 2>&1; then
    say "$b: the DLQ topic config is refused: $(tail -n1 "$GR_TMP/$b.dlqtopic")"
    gr_timeout 60 "$CLI" topics --bootstrap-server "$BOOTSTRAP" --create --topic "$DLQT" --partitions 1 \
      --replication-factor 1 >/dev/null 2>&1
  fi
  say "$b: producing $N x 1 KiB to $SRCT ($PARTS partition(s))"
  gr_timeout 300 "$CLIENT" produce "$BOOTSTRAP" "$SRCT" "$N" 1024 -X acks=1 >"$GR_TMP/$b.produce.out" 2>&1 ||
    { put "$b.note" "produce-failed"; return; }
  for mode in dlq nodlq; do
    rates=() cpus=() grows=() note=""
    for ((r = 1; r <= RUNS; r++)); do
      line="$(run_once "$b" "$mode" "$r")" || { note="$line"; break; }
      read -r rate cpu grow <<<"$line"
      rates+=("$rate") cpus+=("$cpu") grows+=("$grow")
      say "$b $mode run $r: $rate records/s, $cpu broker CPU-s per million, DLQ +$grow"
      if [[ "$mode" == dlq && "$grow" != "$REJ" ]]; then note="dlq-grew-$grow-of-$REJ"; fi
    done
    if [[ "$note" == config-refused ]]; then
      note="not-supported($(grep -o 'Unknown group config name[^.]*\|Error: .*' "$GR_TMP/cfg.out" | head -n1))"
      say "$b $mode: the broker refuses the DLQ group config (no DLQ yet): $(tail -n1 "$GR_TMP/cfg.out")"
    fi
    [[ -n "$note" ]] && put "$b.$mode.note" "${note// /_}"
    ((${#rates[@]})) || continue
    put "$b.$mode.records_s" "$(median "${rates[@]}")"
    [[ -n "$BPID" ]] && put "$b.$mode.cpu_s_per_million" "$(median "${cpus[@]}")"
    put "$b.$mode.runs" "$(IFS=/; echo "${rates[*]}")"
    put "$b.$mode.dlq_growth" "$(IFS=/; echo "${grows[*]}")"
  done
  [[ -n "$BPID" ]] && put "$b.peak_rss_mb" "$(hwm_mb "$BPID")"
  bench_stop_broker "$b"
}

for b in $BROKERS; do bench_broker "$b"; done
put loadavg_end "$(cut -d' ' -f1 /proc/loadavg)"

mkdir -p "$OUT_DIR"
python3 - "$RES" "$OUT_DIR/share_dlq.json" $BROKERS <<'PY'
import json, sys
res = {}
for line in open(sys.argv[1]):
    k, _, v = line.rstrip("\n").partition(" ")
    res[k] = v
json.dump(res, open(sys.argv[2], "w"), indent=1, sort_keys=True)
print("%-8s %-6s %12s %16s %12s  %s" % ("broker", "mode", "records/s", "CPU-s/million", "peak RSS MB", "note"))
for b in sys.argv[3:]:
    for m in ("dlq", "nodlq"):
        g = lambda k: res.get("%s.%s.%s" % (b, m, k), "-")
        if g("records_s") == "-" and g("note") == "-":
            continue
        print("%-8s %-6s %12s %16s %12s  %s" % (b, m, g("records_s"), g("cpu_s_per_million"),
                                               res.get(b + ".peak_rss_mb", "-"), g("note") if g("note") != "-" else ""))
PY
say "results: $RES and $OUT_DIR/share_dlq.json"
bench_stop_watchdog
ok "bench/share_dlq.sh finished"
gr_finish
