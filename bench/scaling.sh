#!/usr/bin/env bash
# bench/scaling.sh: share drain records/s and broker CPU per record as consumers and partitions
# grow, gregord next to Apache Kafka 4.4.0 in one run with the same clients (part of `make bench`
# unless BENCH_SKIP_SCALING=1; alone: GR_BUILD_DIR=build bash bench/scaling.sh).
#
# Grid: consumers 1, 4, 16, 64 x partitions 1, 8, 64 (members > partitions included); a subset with
# BENCH_SCALING_POINTS, a list of PARTITIONSxCONSUMERS, e.g. "1x1 1x4 8x16". Both brokers run at
# the same time and the runs alternate between them (the machine's noise hits both). Per broker
# and partition count: one topic holding BENCH_SCALING_MESSAGES (200000) records of 1 KiB
# (gregor_bench_client produce, acks=1). Per run: a new share group reading from the earliest
# offset drains it with C libgregor share consumers (bench/share_drain.sh: gregor_bench_client
# share-drain, implicit acknowledgement, client defaults, one process each, each stopping 2 s
# after its last record); rate = N / (first record of any consumer -> last record of any), so a
# group's join (seconds on Apache Kafka) is left out. Broker CPU: utime+stime of the broker
# process (/proc/PID/stat), sampled every 50 ms during the run and interpolated at the first
# and the last record, so the join and the consumers' idle exit are left out too; reported as
# CPU us per record. BENCH_REPEAT (3) runs per point and broker; the median run is reported.
#
# Environment: BENCH_SCALING_POINTS, BENCH_SCALING_MESSAGES, BENCH_REPEAT, BENCH_SCALING_BROKERS
# ("gregord kafka"), BENCH_KAFKA_HEAP, BENCH_TIMEOUT (3600 s), GR_BUILD_DIR, BENCH_OUT_DIR (default
# $GR_BUILD_DIR/bench-results).
# Any broker: --bootstrap-server H:P (or BENCH_BOOTSTRAP=H:P) drains that broker or cluster only,
# under the name BENCH_NAME (default "external"), without starting anything (no CPU figures).
# Writes $GR_BUILD_DIR/bench-results/scaling.json (bench/plots.sh draws it) and prints a table.
set -uo pipefail

BENCH_SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
GR_TEST_TIMEOUT="${BENCH_TIMEOUT:-3600}"
# shellcheck source=../tests/lib.sh
source "$BENCH_SRC/../tests/lib.sh"
# shellcheck source=lib.sh
source "$BENCH_SRC/lib.sh"
# shellcheck source=share_drain.sh
source "$BENCH_SRC/share_drain.sh"
GR_TEST_NAME=bench-scaling
bench_parse_bootstrap "$@"

POINTS="${BENCH_SCALING_POINTS:-}"
if [[ -z "$POINTS" ]]; then
  for p in 1 8 64; do for c in 1 4 16 64; do POINTS+="${p}x$c "; done; done
fi
N="${BENCH_SCALING_MESSAGES:-200000}"
REPEAT="${BENCH_REPEAT:-3}"
BROKERS="${BENCH_SCALING_BROKERS:-gregord kafka}"
[[ -n "$BENCH_EXTERNAL" ]] && BROKERS="$BENCH_NAME"
export KAFKA_REF_HEAP="${BENCH_KAFKA_HEAP:--Xmx1G -Xms1G}"
OUT_DIR="${BENCH_OUT_DIR:-$GR_BUILD_DIR/bench-results}"
TICK="$(getconf CLK_TCK)"

gr_init
gr_require python3
[[ -x "$SD_CLIENT" && -x "$SD_CLI" ]] || die "no $SD_CLIENT or $SD_CLI (make)"
for pt in $POINTS; do [[ "$pt" =~ ^[0-9]+x[0-9]+$ ]] || die "BENCH_SCALING_POINTS: '$pt' is not PARTITIONSxCONSUMERS"; done
bench_results_init
put messages "$N"
put command "bash bench/scaling.sh (POINTS=\"${POINTS% }\" N=$N REPEAT=$REPEAT BROKERS=\"$BROKERS\")"

declare -A BOOT PID
for b in $BROKERS; do
  bench_start_broker "$b"
  BOOT[$b]="$BOOTSTRAP" PID[$b]="$BPID"
  put "$b.loadavg_start" "$(cut -d' ' -f1 /proc/loadavg)"
done

# One topic per partition count, N records each, on every broker.
PARTS="$(for pt in $POINTS; do echo "${pt%x*}"; done | sort -n -u)"
for b in $BROKERS; do
  BOOTSTRAP="${BOOT[$b]}"
  for p in $PARTS; do
    gr_timeout 120 "$SD_CLI" topics --bootstrap-server "$BOOTSTRAP" --create --topic "scaling-p$p-$$" --partitions "$p" \
      --replication-factor 1 >"$GR_TMP/$b.topic-p$p.out" 2>&1 || die "$b: topic: $(cat "$GR_TMP/$b.topic-p$p.out")"
    say "$b: producing $N x 1 KiB to scaling-p$p-$$ ($p partition(s))"
    gr_timeout 600 "$SD_CLIENT" produce "$BOOTSTRAP" "scaling-p$p-$$" "$N" 1024 -X acks=1 >"$GR_TMP/$b.produce-p$p.out" 2>&1 \
      || die "$b: produce failed: $(tail -n3 "$GR_TMP/$b.produce-p$p.out")"
  done
done

# share_drain_run calls phase_begin / phase_end around the drain: sample the broker's CPU.
SAMPLER=""
phase_begin() {
  SAMPLES="$GR_TMP/cpu-samples.txt"
  : >"$SAMPLES"
  [[ -n "$BPID" ]] || return 0
  python3 - "$BPID" "$SAMPLES" <<'PY' &
import sys, time
pid, path = sys.argv[1], sys.argv[2]
with open(path, "w", buffering=1) as f:
    while True:
        try:
            st = open("/proc/%s/stat" % pid).read().rsplit(")", 1)[1].split()
        except OSError:
            break
        f.write("%.4f %d\n" % (time.time(), int(st[11]) + int(st[12])))
        time.sleep(0.05)
PY
  SAMPLER=$!
  GR_PIDS+=("$SAMPLER")
  local i # the consumers start once the first sample is in
  for ((i = 0; i < 200; i++)); do [[ -s "$SAMPLES" ]] && break; sleep 0.01; done
}
phase_end() {
  [[ -n "$SAMPLER" ]] && { kill "$SAMPLER" 2>/dev/null; wait "$SAMPLER" 2>/dev/null; SAMPLER=""; }
  return 0
}

: >"$GR_TMP/runs.jsonl"
v() { awk -v k="$1" '$1 == k {print $2}' "$RES" | tail -n 1; }
run_point() { # run_point BROKER PARTITIONS CONSUMERS RUN
  local b="$1" p="$2" c="$3" r="$4" key="p$2c$3r$4" load
  BOOTSTRAP="${BOOT[$b]}" BPID="${PID[$b]}"
  load="$(cut -d' ' -f1 /proc/loadavg)"
  share_drain_run "$b" "scaling-p$p-$$" "$c" "$key" "$N"
  local rate; rate="$(v "$b.$key.msgs_s")"
  [[ -n "$rate" ]] || return 0
  python3 - "$b" "$p" "$c" "$r" "$N" "$rate" "$(v "$b.$key.first_epoch")" "$(v "$b.$key.last_epoch")" \
    "$(v "$b.$key.first_s")" "$(v "$b.$key.client_cpu_s")" "$load" "$SAMPLES" "$TICK" >>"$GR_TMP/runs.jsonl" <<'PY'
import json, sys
b, p, c, r, n, rate, e0, e1, first_s, ccpu, load, samples, tick = sys.argv[1:]
e0, e1, tick = float(e0), float(e1), float(tick)
pts = [tuple(map(float, l.split())) for l in open(samples) if len(l.split()) == 2]
def at(t):  # broker CPU ticks at wall time t, linear between the samples around it
    if not pts:
        return None
    prev = pts[0]
    for cur in pts:
        if cur[0] >= t:
            if cur[0] == prev[0]:
                return cur[1]
            return prev[1] + (cur[1] - prev[1]) * (t - prev[0]) / (cur[0] - prev[0])
        prev = cur
    return pts[-1][1]
cpu = None
if pts and pts[0][0] <= e0 + 0.1 and pts[-1][0] >= e1 - 0.1:
    cpu = round((at(e1) - at(e0)) / tick, 3)
print(json.dumps({"broker": b, "partitions": int(p), "consumers": int(c), "run": int(r), "records": int(n),
                  "msgs_s": float(rate), "seconds": round(e1 - e0, 3), "first_s": float(first_s),
                  "client_cpu_s": float(ccpu), "cpu_s": cpu,
                  "cpu_s_phase": round((pts[-1][1] - pts[0][1]) / tick, 3) if pts else None,
                  "loadavg": float(load)}))
PY
}

for pt in $POINTS; do
  for ((r = 1; r <= REPEAT; r++)); do
    for b in $BROKERS; do run_point "$b" "${pt%x*}" "${pt#*x}" "$r"; done
  done
done
for b in $BROKERS; do
  [[ -n "${PID[$b]}" ]] && put "$b.peak_rss_mb" "$(awk '$1 == "VmHWM:" {printf "%.1f", $2 * 1024 / 1e6}' "/proc/${PID[$b]}/status")"
  [[ "$b" == gregord ]] && { alive "$GR_GREGORD_PID" || fail "gregord died (log: $GR_TMP/gregord.log)"; }
  bench_stop_broker "$b"
done
put loadavg_end "$(cut -d' ' -f1 /proc/loadavg)"
mkdir -p "$OUT_DIR"
cp "$RES" "$OUT_DIR/scaling.txt"
notes="$(grep '\.note ' "$RES" || true)"
[[ -z "$notes" ]] || say "failed runs: $notes"
if python3 "$BENCH_SRC/report_curves.py" scaling "$RES" "$GR_TMP/runs.jsonl" "$OUT_DIR/scaling.json"; then
  ok "scaling benchmark ran"
else
  fail "scaling report"
fi
[[ -z "$notes" ]] || fail "some drains did not receive every record: $notes"
bench_stop_watchdog
gr_finish
