#!/usr/bin/env bash
# bench/soak.sh: gregord under a steady load for a long time; does its memory or fd count grow?
#
# Starts gregord ($GR_BUILD_DIR/gregord, 127.0.0.1, a fresh data directory), creates one topic,
# and runs for SOAK_S seconds:
#   SOAK_PRODUCERS x `gregor produce --request-required-acks all` (libgregor), each fed by a
#     pacer that writes its share of SOAK_RATE records/s (SOAK_SIZE bytes, unique values) on
#     the producer's stdin at a fixed rate (catching up to rate x elapsed every 10 ms);
#   SOAK_CONSUMERS x `gregor share-consume` in one share group (starting at the earliest
#     offset, every record accepted), printing partition and offset of each record.
# The log is kept bounded (log.segment.bytes / log.retention.bytes per partition, see
# SOAK_GREGORD_ARGS), so segments roll and are deleted during the run as in production.
# Every SOAK_REPORT_S seconds one line: elapsed s, gregord VmRSS (MB, /proc/PID/status; also split
# into RssAnon, the heap, and RssFile, the mapped binary and libraries), open fds
# (/proc/PID/fd), segment files of the topic (each holds an fd), records sent and consumed so far. At the end, after the producers flushed and
# the consumers caught up (at most 120 s): min/max RSS under load (the idle sample at start-up is
# shown but not counted), the relative spread (max - min) / min over all load samples and over the
# second half of the run (the log at its retention size), fds at the first load sample and at
# the end, records sent, records in the log (end offsets), records consumed (and distinct).
# Goal (issue 8): RSS flat within +-10 % and no fd growth.
# Writes $GR_BUILD_DIR/bench-results/soak.tsv (the samples) and soak.txt (the summary).
#
# Environment:
#   SOAK_S (600)  SOAK_RATE (2000 records/s in total)  SOAK_REPORT_S (60)  SOAK_SIZE (200 bytes)
#   SOAK_PRODUCERS (2)  SOAK_CONSUMERS (2)  SOAK_PARTITIONS (4)
#   SOAK_GREGORD_ARGS   extra gregord --override pairs, "key=value ..." (default: 2 MiB segments,
#                       8 MiB retention per partition, a retention check every 10 s: at the default
#                       rate segments roll every ~10 s and the log reaches its steady size within
#                       ~2 minutes; the in-memory segment indexes grow until then)
#   GR_BUILD_DIR (./build), GR_KEEP_TMP=1
# `make bench BENCH_SOAK=1` runs it after the other benchmarks. Everything listens on 127.0.0.1
# only; every process is started and stopped by PID.
set -uo pipefail

BENCH_SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SOAK_S="${SOAK_S:-600}"
SOAK_RATE="${SOAK_RATE:-2000}"
SOAK_REPORT_S="${SOAK_REPORT_S:-60}"
SOAK_SIZE="${SOAK_SIZE:-200}"
SOAK_PRODUCERS="${SOAK_PRODUCERS:-2}"
SOAK_CONSUMERS="${SOAK_CONSUMERS:-2}"
SOAK_PARTITIONS="${SOAK_PARTITIONS:-4}"
SOAK_GREGORD_ARGS="${SOAK_GREGORD_ARGS:-log.segment.bytes=2097152 log.retention.bytes=8388608 log.retention.check.interval.ms=10000}"
GR_TEST_TIMEOUT=$((SOAK_S + 600))
# shellcheck source=../tests/lib.sh
source "$BENCH_SRC/../tests/lib.sh"
# shellcheck source=lib.sh
source "$BENCH_SRC/lib.sh"
GR_TEST_NAME=soak
bench_no_external "it watches the RSS and file descriptors of the gregord process it starts" "$@"

gr_init
gr_require python3 kcat
CLI="$GR_BUILD_DIR/gregor"
[[ -x "$GR_BUILD_DIR/gregord" ]] || die "no $GR_BUILD_DIR/gregord (make, or GR_BUILD_DIR=...)"
[[ -x "$CLI" ]] || die "no $CLI (make)"
((SOAK_RATE > 0 && SOAK_S > 0 && SOAK_REPORT_S > 0 && SOAK_PRODUCERS > 0 && SOAK_CONSUMERS > 0)) ||
  die "SOAK_RATE, SOAK_S, SOAK_REPORT_S, SOAK_PRODUCERS and SOAK_CONSUMERS must be positive"
OUT_DIR="$GR_BUILD_DIR/bench-results"
mkdir -p "$OUT_DIR"

ovr=()
for kv in $SOAK_GREGORD_ARGS; do ovr+=(--override "$kv"); done
start_gregord "${ovr[@]}"
PID="$GR_GREGORD_PID"
TOPIC="soak"
GROUP="soak-workers"

gr_timeout 60 "$CLI" topics --bootstrap-server "$BOOTSTRAP" --create --topic "$TOPIC" \
  --partitions "$SOAK_PARTITIONS" >/dev/null || die "cannot create topic $TOPIC"
gr_timeout 60 "$CLI" configs --bootstrap-server "$BOOTSTRAP" --entity-type groups --entity-name "$GROUP" \
  --alter --add-config share.auto.offset.reset=earliest >/dev/null || die "cannot configure group $GROUP"

rss_kb() { awk -v k="${1:-VmRSS}:" '$1 == k {print $2}' "/proc/$PID/status" 2>/dev/null; }
fd_count() { ls "/proc/$PID/fd" 2>/dev/null | wc -l; }
sent_count() { local f t=0; for f in "$GR_TMP"/sent.*; do [[ -s "$f" ]] && t=$((t + $(cat "$f"))); done; echo "$t"; }
segment_count() { find "$GR_DATA_DIR" -name '*.log' -path "*/$TOPIC-*" 2>/dev/null | wc -l; }
consumed_count() { cat "$GR_TMP"/consumer.*.out 2>/dev/null | wc -l; }

# ------------------------------------------------------------------ clients
CONS=()
for ((i = 0; i < SOAK_CONSUMERS; i++)); do
  # stdbuf -oL: a line per record as it comes (the running count reads the file)
  gr_bg c stdbuf -oL "$CLI" share-consume --bootstrap-server "$BOOTSTRAP" --topic "$TOPIC" --group "$GROUP" \
    --property print.value=false --property print.partition=true --property print.offset=true \
    >"$GR_TMP/consumer.$i.out" 2>"$GR_TMP/consumer.$i.err"
  CONS+=("$c")
done

# The pacer: RATE records/s for DUR s on stdout, unique values of SIZE bytes; its running count
# in COUNTFILE (once a second and at the end).
PACER='
import sys, time
rate, dur, size, tag, countfile = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
pad = "x" * max(0, size - len(tag) - 14)
out = sys.stdout
t0 = time.monotonic(); sent = 0; last = -1.0
def save():
    with open(countfile + ".tmp", "w") as f: f.write(str(sent))
    import os; os.replace(countfile + ".tmp", countfile)
try:
    while True:
        el = time.monotonic() - t0
        due = int(min(el, dur) * rate)
        if due > sent:
            out.write("".join("%s-%012d-%s\n" % (tag, i, pad) for i in range(sent, due)))
            out.flush()
            sent = due
        if el - last >= 1.0:
            save(); last = el
        if el >= dur: break
        time.sleep(0.01)
finally:
    save()
'
PRODS=()
per_rate="$(calc "$SOAK_RATE / $SOAK_PRODUCERS")"
for ((i = 0; i < SOAK_PRODUCERS; i++)); do
  gr_bg p bash -c 'python3 -c "$1" "$2" "$3" "$4" "$5" "$6" | "$7" produce --bootstrap-server "$8" --topic "$9" \
      --request-required-acks all' _ "$PACER" "$per_rate" "$SOAK_S" "$SOAK_SIZE" "p$i" "$GR_TMP/sent.$i" \
    "$CLI" "$BOOTSTRAP" "$TOPIC" 2>"$GR_TMP/producer.$i.err"
  PRODS+=("$p")
done
say "soak: $SOAK_RATE records/s of $SOAK_SIZE B for $SOAK_S s ($SOAK_PRODUCERS producers acks=all," \
  "$SOAK_CONSUMERS share consumers, $SOAK_PARTITIONS partitions), a sample every $SOAK_REPORT_S s"

# ------------------------------------------------------------------ samples
TSV="$GR_TMP/soak.tsv"
printf 'elapsed_s\trss_kb\tfds\tsent\tconsumed\trss_anon_kb\trss_file_kb\tsegments\n' >"$TSV"
sample() { # sample ELAPSED
  local r f s c a m g
  r="$(rss_kb)" f="$(fd_count)" s="$(sent_count)" c="$(consumed_count)" a="$(rss_kb RssAnon)" m="$(rss_kb RssFile)"
  g="$(segment_count)"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "${r:-0}" "$f" "$s" "$c" "${a:-0}" "${m:-0}" "$g" >>"$TSV"
  printf '%6s s  rss %7s MB (anon %6s, file %6s)  fds %4s  segments %4s  sent %9s  consumed %9s\n' "$1" \
    "$(calc "${r:-0} / 1024")" "$(calc "${a:-0} / 1024")" "$(calc "${m:-0} / 1024")" "$f" "$g" "$s" "$c"
}
T0=$(date +%s)
sample 0
next=$SOAK_REPORT_S
while :; do
  now=$(($(date +%s) - T0))
  if ((now >= next)); then sample "$next"; next=$((next + SOAK_REPORT_S)); fi
  ((now >= SOAK_S)) && break
  alive "$PID" || die "gregord died during the soak (log: $GR_TMP/gregord.log)"
  sleep 1
done
((SOAK_S % SOAK_REPORT_S == 0)) || sample "$SOAK_S"

# ------------------------------------------------------------------ drain and stop
for p in "${PRODS[@]}"; do
  for _ in $(seq 600); do alive "$p" || break; sleep 0.1; done
  stop_pid "$p" 10
done
SENT="$(sent_count)"
say "producers done ($SENT records sent)"
IN_LOG=0
for ((i = 0; i < SOAK_PARTITIONS; i++)); do
  e="$(gr_timeout 30 kcat -Q -b "$BOOTSTRAP" -t "$TOPIC:$i:-1" 2>/dev/null | awk '{print $NF}')"
  IN_LOG=$((IN_LOG + ${e:-0}))
done
say "$IN_LOG records in the log; waiting for the consumers"
deadline=$(($(date +%s) + 120))
while (($(consumed_count) < IN_LOG && $(date +%s) < deadline)); do sleep 1; done
say "consumers caught up ($(consumed_count) records); stopping them"
for c in "${CONS[@]}"; do stop_pid "$c" 20; done
CONSUMED="$(consumed_count)"
DISTINCT="$(cat "$GR_TMP"/consumer.*.out | sort -u | wc -l)"
FD_END="$(fd_count)"
RSS_END="$(rss_kb)"
stop_gregord
[[ "$GR_GREGORD_EXIT" == 0 ]] || fail "gregord exited with status $GR_GREGORD_EXIT"

# ------------------------------------------------------------------ summary
cp "$TSV" "$OUT_DIR/soak.tsv"
python3 - "$TSV" "$SENT" "$IN_LOG" "$CONSUMED" "$DISTINCT" "$FD_END" "${RSS_END:-0}" <<'PY' | tee "$OUT_DIR/soak.txt"
import sys
path, sent, in_log, consumed, distinct, fd_end, rss_end = sys.argv[1], *map(int, sys.argv[2:])
rows = [list(map(int, l.split("\t"))) for l in open(path).read().splitlines()[1:]]
idle, load = rows[0], rows[1:] or rows
rss = [r[1] for r in load]
lo, hi = min(rss), max(rss)
spread = (hi - lo) / lo * 100 if lo else 0.0
print("soak summary (%d samples under load, %d s)" % (len(load), load[-1][0]))
print("  rss idle at start   %8.1f MB" % (idle[1] / 1024))
print("  rss under load      min %.1f MB  max %.1f MB  spread %.1f %% (goal <= 10 %%)" % (lo / 1024, hi / 1024, spread))
half = [r[1] for r in load if r[0] >= load[-1][0] / 2]
print("  rss, second half    min %.1f MB  max %.1f MB  spread %.1f %% (%d samples from %d s)"
      % (min(half) / 1024, max(half) / 1024, (max(half) - min(half)) / min(half) * 100 if min(half) else 0.0,
         len(half), load[-1][0] / 2))
anon = [r[5] for r in load]
print("  rss anon (heap)     min %.1f MB  max %.1f MB  spread %.1f %%; file-backed %.1f -> %.1f MB"
      % (min(anon) / 1024, max(anon) / 1024, (max(anon) - min(anon)) / min(anon) * 100 if min(anon) else 0.0,
         load[0][6] / 1024, load[-1][6] / 1024))
print("  rss at the end      %8.1f MB (after the drain)" % (rss_end / 1024))
print("  open fds            idle %d  first load sample %d  end of load %d  after the drain %d  max %d"
      % (idle[2], load[0][2], load[-1][2], fd_end, max(r[2] for r in rows)))
print("  records             sent %d  in the log %d  consumed %d (distinct %d)" % (sent, in_log, consumed, distinct))
PY
check "every record sent is in the log" test "$IN_LOG" -ge "$SENT"
check "every record in the log was consumed" test "$DISTINCT" -ge "$IN_LOG"
gr_finish
