#!/usr/bin/env bash
# bench/share_memory.sh: gregord's memory per in-flight share record, against backlog, and per
# share member and session (issue 13 item 3; part of `make bench` unless BENCH_SKIP_SHARE_MEMORY=1;
# alone: GR_BUILD_DIR=build bash bench/share_memory.sh). The wire work is bench/share_memory.py
# (standard library only); memory is gregord's /proc/PID/status VmRSS (also RssAnon, RssFile and
# smaps_rollup Private_Dirty).
#
# gregord runs with the share bounds raised as far as it allows: group.share.max.partition
# .max.record.locks=10000 (Kafka's range for that bound is [2000, 10000]), group.share.max.record
# .lock.duration.ms=3600000 (locks do not expire during a run), group.share.max.size=1000 and
# member session timeouts of 600 s (members do not expire), and the admin listener (its
# gregor_share_in_flight_records confirms the ACQUIRED count). Phases, each on a fresh gregord:
#   inflight/SHAPE  P partitions x L records of 16 bytes (log batches of BATCH records; BATCH 1
#                   for the shape "single"), a group with share.partition.max.record.locks=L and a
#                   lock duration of 1 h, MEMBERS members acquire everything without acknowledging
#                   (P x L = 10^6 by default); bytes per in-flight record = delta VmRSS / ACQUIRED
#                   records. Shapes: batch, single, ack_half (ACCEPT every other record: one range
#                   per record, half ACQUIRED; also per window record), reacquire (RELEASE every
#                   other record and acquire it again: one range per record, all ACQUIRED).
#   backlog/N       N records (4 partitions, batches of 1000) produced, gregord restarted on the
#                   same log (the produce path's buffers are gone), then a group acquires
#                   BACKLOG_LOCKS per partition (the same in-flight count for every N): VmRSS after;
#                   the largest N minus the smallest N is the backlog's cost.
#   members         for each count in MEMBER_COUNTS (ascending), the missing members get a
#                   connection, a ShareGroupHeartbeat join and a share session; delta VmRSS / member.
# Every figure is the median of RUNS runs. Environment: BENCH_SM_RUNS (3), BENCH_SM_PARTITIONS
# (100), BENCH_SM_LOCKS (10000), BENCH_SM_BATCH (1000), BENCH_SM_MEMBERS (4),
# BENCH_SM_SHAPES ("batch single ack_half reacquire"), BENCH_SM_BACKLOGS ("10000 10000000"),
# BENCH_SM_BACKLOG_LOCKS (2000), BENCH_SM_BACKLOG_BATCH (1000), BENCH_SM_MEMBER_COUNTS ("1,100,1000"),
# BENCH_SM_SETTLE (1.0 s before each sample), BENCH_TIMEOUT (900 s), GR_BUILD_DIR. Writes
# BENCH_SM_OUT ($GR_BUILD_DIR/bench-results/share_memory.txt): "key value" lines, r<run>.<phase>.<key>
# per run and median.<phase>.<key>; a measurement that missed its count leaves r<run>.<phase>.note
# and fails the script. Everything listens on 127.0.0.1; processes are stopped by PID.
set -uo pipefail
BENCH_SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
GR_TEST_TIMEOUT="${BENCH_TIMEOUT:-900}"
# shellcheck source=../tests/lib.sh
source "$BENCH_SRC/../tests/lib.sh"
# shellcheck source=lib.sh
source "$BENCH_SRC/lib.sh"
GR_TEST_NAME=bench-share-memory
bench_no_external "it measures the RSS of the gregord process it starts (raised bounds, restarts)" "$@"
RUNS="${BENCH_SM_RUNS:-3}"
P="${BENCH_SM_PARTITIONS:-100}"
L="${BENCH_SM_LOCKS:-10000}"
BATCH="${BENCH_SM_BATCH:-1000}"
MEMBERS="${BENCH_SM_MEMBERS:-4}"
SHAPES="${BENCH_SM_SHAPES:-batch single ack_half reacquire}"
BACKLOGS="${BENCH_SM_BACKLOGS:-10000 10000000}"
BACKLOG_LOCKS="${BENCH_SM_BACKLOG_LOCKS:-2000}"
BACKLOG_BATCH="${BENCH_SM_BACKLOG_BATCH:-1000}"
export BENCH_SM_SETTLE="${BENCH_SM_SETTLE:-1.0}" # seconds before each RSS sample (the driver reads it)
OUT="${BENCH_SM_OUT:-$GR_BUILD_DIR/bench-results/share_memory.txt}"
MEMBER_COUNTS="${BENCH_SM_MEMBER_COUNTS:-1,100,1000}"
DRIVER="$BENCH_SRC/share_memory.py"
gr_init
gr_require python3
bench_results_init
put command "bash bench/share_memory.sh (RUNS=$RUNS P=$P L=$L BATCH=$BATCH MEMBERS=$MEMBERS SHAPES=\"$SHAPES\" BACKLOGS=\"$BACKLOGS\" MEMBER_COUNTS=$MEMBER_COUNTS)"
put settings "partitions=$P locks=$L batch=$BATCH members=$MEMBERS backlog_locks=$BACKLOG_LOCKS"

# glibc's malloc totals through gdb (BENCH_SM_HEAP=0: off): heap bytes in use apart from RSS.
HEAP=()
[[ "${BENCH_SM_HEAP:-1}" == 1 ]] && command -v gdb >/dev/null && HEAP=(--heap-log "$GR_TMP/gregord.log")
APORT=""
start() { # a fresh gregord (new data dir) with the raised bounds
  rm -rf "$GR_TMP/gregord-data"
  APORT="$(free_port)"
  start_gregord --override "admin.listener=127.0.0.1:$APORT" \
    --override group.share.max.partition.max.record.locks=10000 \
    --override group.share.max.record.lock.duration.ms=3600000 \
    --override group.share.max.size=1000 \
    --override group.share.max.session.timeout.ms=600000 --override group.share.session.timeout.ms=600000
  wait_port "$APORT" 10 "$GR_GREGORD_PID" || die "admin listener not up on 127.0.0.1:$APORT"
}

# drive NAME RUN args...: run the driver, its "key value" lines go to RES as r<RUN>.<NAME>.<key>
drive() {
  local name="$1" run="$2" out="$GR_TMP/drv.$1.$2.txt" rc=0 k v
  shift 2
  gr_timeout 600 python3 "$DRIVER" "$@" >"$out" 2>"$out.err" || rc=$?
  while read -r k v; do
    [[ "$k" == "#" ]] && { say "$name: $v"; continue; }
    put "r$run.$name.$k" "$v"
  done <"$out"
  ((rc == 0)) || { put "r$run.$name.note" "failed-rc-$rc"; say "$name run $run failed: $(tail -n 3 "$out.err")"; }
  return "$rc"
}
val() { awk -v k="$1" '$1 == k {print $2}' "$RES" | tail -n 1; }

inflight() { # inflight SHAPE RUN
  local shape="$1" run="$2" batch="$BATCH" topic="smem-$1"
  [[ "$shape" == single ]] && batch=1
  start
  gr_timeout 600 python3 "$DRIVER" produce "$BOOTSTRAP" "$topic" "$P" "$L" "$batch" >>"$GR_TMP/produce.log" 2>&1 ||
    { put "r$run.inflight_$shape.note" "produce-failed"; stop_gregord; return; }
  drive "inflight_$shape" "$run" inflight "$BOOTSTRAP" "$GR_GREGORD_PID" "$topic" "$shape" --members "$MEMBERS" \
    --locks "$L" --admin "127.0.0.1:$APORT" "${HEAP[@]}"
  local want=$((P * L)) win got
  win="$(val "r$run.inflight_$shape.window")"
  got="$(val "r$run.inflight_$shape.broker_in_flight")"
  [[ "$win" == "$want" ]] || { put "r$run.inflight_$shape.note" "window-$win-of-$want"; say "$shape: only $win of $want in flight"; }
  [[ "$got" == "$(val "r$run.inflight_$shape.acquired")" ]] ||
    put "r$run.inflight_$shape.note" "broker-in-flight-$got-not-$(val "r$run.inflight_$shape.acquired")"
  say "$shape run $run: window $win, ACQUIRED $got (gregord), $(val "r$run.inflight_$shape.bytes_per_acquired") B per ACQUIRED record"
  stop_gregord
}

backlog() { # backlog N RUN
  local n="$1" run="$2" per=$(($1 / 4))
  start
  gr_timeout 600 python3 "$DRIVER" produce "$BOOTSTRAP" smem-backlog 4 "$per" "$BACKLOG_BATCH" >>"$GR_TMP/produce.log" 2>&1 ||
    { put "r$run.backlog_$n.note" "produce-failed"; stop_gregord; return; }
  stop_gregord
  restart_gregord
  wait_port "$APORT" 10 "$GR_GREGORD_PID" || die "admin listener not up after the restart"
  drive "backlog_$n" "$run" inflight "$BOOTSTRAP" "$GR_GREGORD_PID" smem-backlog batch --members 1 \
    --locks "$BACKLOG_LOCKS" --admin "127.0.0.1:$APORT"
  local a b
  a="$(val "r$run.backlog_$n.acquired")" b="$(val "r$run.backlog_$n.broker_in_flight")"
  [[ -n "$a" && "$a" == "$b" ]] || put "r$run.backlog_$n.note" "acquired-$a-broker-$b"
  say "backlog $n run $run: VmRSS $(val "r$run.backlog_$n.after.rss") B with $(val "r$run.backlog_$n.acquired") in flight"
  stop_gregord
}

members() { # members RUN
  local n
  start
  drive members "$1" members "$BOOTSTRAP" "$GR_GREGORD_PID" "$MEMBER_COUNTS" --admin "127.0.0.1:$APORT" "${HEAP[@]}"
  for n in ${MEMBER_COUNTS//,/ }; do
    [[ "$(val "r$1.members.m$n.broker_members") $(val "r$1.members.m$n.broker_sessions")" == "$n $n" ]] ||
      put "r$1.members.m$n.note" "gregord-counts-members-$(val "r$1.members.m$n.broker_members")-sessions-$(val "r$1.members.m$n.broker_sessions")"
  done
  stop_gregord
}

for ((run = 1; run <= RUNS; run++)); do
  put "r$run.loadavg_start" "$(cut -d' ' -f1 /proc/loadavg)"
  for s in $SHAPES; do inflight "$s" "$run"; done
  for n in $BACKLOGS; do backlog "$n" "$run"; done
  members "$run"
done

# Medians over the runs, and the backlog difference.
python3 - "$RES" "$BACKLOGS" >"$GR_TMP/summary.txt" <<'PY'
import statistics, sys
res, backlogs = sys.argv[1], sys.argv[2].split()
runs = {}
for line in open(res):
    k, _, v = line.strip().partition(" ")
    if k.startswith("r") and "." in k and k[1:k.index(".")].isdigit():
        try:
            f = float(v)
        except ValueError:
            continue
        runs.setdefault(k.split(".", 1)[1], []).append(f)
med = {k: statistics.median(v) for k, v in runs.items()}
out = []
for k in sorted(med):
    out.append("median.%s %s" % (k, ("%.2f" % med[k]).rstrip("0").rstrip(".")))
lo, hi = "backlog_%s.after.rss" % backlogs[0], "backlog_%s.after.rss" % backlogs[-1]
if lo in med and hi in med:
    out.append("median.backlog.rss_diff_mb %.2f" % ((med[hi] - med[lo]) / 1e6))
print("\n".join(out))
PY
cat "$GR_TMP/summary.txt" >>"$RES"

python3 - "$GR_TMP/summary.txt" <<'PY'
import sys
m = dict(l.split(" ", 1) for l in open(sys.argv[1]).read().split("\n") if l)
g = lambda k: m.get("median." + k, "-").strip()
print("\n%-10s %9s %9s %11s %13s %13s %13s" % ("in flight", "window", "ACQUIRED", "B/ACQUIRED", "B/window rec",
                                                "heap B/ACQ.", "RSS after MB"))
for s in sorted({k.split(".")[1][9:] for k in m if k.startswith("median.inflight_")}):
    p = "inflight_" + s + "."
    rss = g(p + "after.rss")
    print("%-10s %9s %9s %11s %13s %13s %13s" % (s, g(p + "window"), g(p + "acquired"), g(p + "bytes_per_acquired"),
                                               g(p + "bytes_per_window_record"), g(p + "heap_bytes_per_acquired"),
                                               "%.1f" % (float(rss) / 1e6) if rss != "-" else "-"))
for k in sorted(k for k in m if k.startswith("median.backlog_") and k.endswith(".after.rss")):
    print("%-30s %8.1f MB" % (k[7:], float(m[k]) / 1e6))
if "median.backlog.rss_diff_mb" in m:
    print("%-30s %8s MB" % ("backlog difference", m["median.backlog.rss_diff_mb"]))
for k in sorted((k for k in m if k.startswith("median.members.m") and k.endswith("bytes_per_member")),
                key=lambda k: int(k.split(".")[2][1:])):
    n = k.split(".")[2]
    heap = ""
    if "median.members.%s.heap_conn_bytes" % n in m:
        heap = "; heap in use per connection / join / session: %s / %s / %s B" % tuple(
            m["median.members.%s.heap_%s_bytes" % (n, x)] for x in ("conn", "join", "session"))
    print("%-14s %8s B RSS per member (connection + join + share session)%s" % (n[1:] + " members", m[k], heap))
PY
mkdir -p "$(dirname "$OUT")"
cp "$RES" "$OUT"
bench_stop_watchdog || true
if grep -q '^r[0-9]*\.[^ ]*\.note ' "$RES"; then
  fail "some measurements failed: $(grep '^r[0-9]*\.[^ ]*\.note ' "$RES" | tr '\n' ';')"
else
  ok "bench/share_memory.sh done ($OUT)"
fi
gr_finish
