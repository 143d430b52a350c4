#!/usr/bin/env bash
# Resource limits (issue 8, defect 5) against the real gregord, with hostile raw-socket
# clients (tests/integration/limits.py):
#  - memory: 10 clients each claim a 100 MB frame, push 20 MB and trickle; with
#    queued.max.request.bytes=16 MiB gregord's VmRSS stays under 64 MB, the stuck frames are
#    closed by socket.request.read.timeout.ms and a new client is served afterwards;
#  - a client trickling a frame byte by byte is closed by socket.request.read.timeout.ms;
#  - max.connections / max.connections.per.ip: the connection over the limit is closed at once,
#    one rate-limited log line;
#  - CreateTopics with 19000 partitions while another client's ApiVersions+Metadata are
#    answered within 100 ms (the one latency bound the issue asks for);
#  - group.share.max.groups: the group over the cap is refused with GROUP_MAX_SIZE_REACHED;
#  - DeleteTopics of the big topic while the probe is answered within 100 ms; the topic
#    re-created at once with the same name is empty; shutdown and restart with 19000 idle
#    partitions (times logged); a restart during a pending delete neither brings the topic
#    back nor leaves its directories (or its tombstone) behind.
# gregord only (it reads gregord's /proc and log).   bash tests/integration/test_limits.sh [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
gr_require python3
[[ "$GR_TARGET" == gregord ]] || die "test_limits needs GR_TARGET=gregord (it reads gregord's /proc and log)"
PY="$GR_SOURCE_DIR/tests/integration/limits.py"
PARTS="${GR_LIMITS_PARTITIONS:-19000}"

# phase NAME TIMEOUT_S ARGS...: run one limits.py mode and turn its lines into ok/fail
phase() {
  local name="$1" t="$2" out rc=0
  shift 2
  out="$GR_TMP/limits-$name.out"
  gr_timeout "$t" python3 "$PY" "$BOOTSTRAP" "$GR_GREGORD_PID" "$@" >"$out" 2>&1 || rc=$?
  gr_relay_checks "$name: limits.py" "$out" "$rc" "$t"
}

finish_gregord() { # finish_gregord WHAT [stop timeout s]
  if alive "$GR_GREGORD_PID"; then ok "gregord still running after $1"; else fail "gregord died during $1"; fi
  stop_gregord "${2:-60}"
  check_eq "gregord exits 0 on SIGTERM after $1" 0 "$GR_GREGORD_EXIT"
}

# Under ASan, freed buffers wait in its quarantine (256 MB) and would count as RSS.
GR_ASAN_SAVED="${ASAN_OPTIONS:-}"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0"
start_gregord --override queued.max.request.bytes=16777216 --override socket.request.read.timeout.ms=8000
export ASAN_OPTIONS="$GR_ASAN_SAVED"
phase memory 120 memory
grep -q 'request incomplete .* ms after its first byte' "$GR_TMP/gregord.log" && ok "the timeout closes are logged" \
  || fail "no socket.request.read.timeout.ms line in gregord's log"
finish_gregord "the memory phase"

start_gregord --override socket.request.read.timeout.ms=1500
phase trickle 60 trickle
finish_gregord "the trickle phase"

start_gregord --override max.connections=6 --override max.connections.per.ip=3 \
  --override max.connections.per.ip.overrides=127.0.0.3:10
phase conns 60 conns 6 3
n=$(grep -c 'too many connections' "$GR_TMP/gregord.log" || true)
if ((n >= 1 && n <= 2)); then ok "rejections logged, rate-limited ($n line(s) for 2 rejections in 10 s)"
else fail "expected 1-2 'too many connections' lines, got $n"; fi
finish_gregord "the connection-limit phase"

start_gregord --override group.share.max.groups=5 --override group.share.min.session.timeout.ms=1000 \
  --override group.share.session.timeout.ms=2000 --override group.share.min.heartbeat.interval.ms=500 \
  --override group.share.heartbeat.interval.ms=500
phase groups 60 groups 5
finish_gregord "the share-group cap phase"

# Each partition holds a file descriptor: raise the soft limit as far as allowed and stay under it.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
fds=$(ulimit -n)
if [[ "$fds" != unlimited ]] && ((PARTS + 2000 > fds)); then
  PARTS=$((fds > 2500 ? (fds - 2000) : 500))
  log "open-file limit $fds: CreateTopics with $PARTS partitions instead of 19000"
fi
start_gregord
# An ASan build opens logs several times slower: fewer partitions keep the test short.
if [[ -z "${GR_LIMITS_PARTITIONS:-}" ]] && grep -q asan "/proc/$GR_GREGORD_PID/maps" 2>/dev/null; then PARTS=3000; fi
phase create 600 create "$PARTS"
# Written partitions (64, over the 32 from which they are closed together with two syncfs)
# and idle ones: each written one gets its shutdown marker, the idle ones need none.
WRITTEN=64
phase produce 120 produce "$WRITTEN"
t0=$(date +%s%N)
stop_gregord 120
log "shutdown with $PARTS+ partitions took $(( ($(date +%s%N) - t0) / 1000000 )) ms"
check_eq "gregord exits 0 on SIGTERM after the large CreateTopics" 0 "$GR_GREGORD_EXIT"
unclean=0
for ((p = 0; p < WRITTEN; p++)); do
  grep -q '^clean 1 ' "$GR_DATA_DIR/limits-big-$p/recovery-point.checkpoint" 2>/dev/null || unclean=$((unclean + 1))
done
check_eq "every written partition has its clean-shutdown marker" 0 "$unclean"
restart_gregord
phase offsets 60 offsets "$WRITTEN"
grep 'opened [0-9]* partition(s) in' "$GR_TMP/gregord.log" | tail -n 1 | sed 's/^/# /' || true
if grep -q 'recovered:' "$GR_TMP/gregord.log"; then fail "the restart after a clean shutdown recovered a log"
else ok "the restart after a clean shutdown recovered nothing"; fi
phase delete 600 delete
# A restart while the directories of a deleted topic are still being removed.
DOOMED=$((PARTS < 4000 ? PARTS : 4000))
phase doomed 300 doomed "$DOOMED"
stop_gregord 60
left=$( (find "$GR_DATA_DIR" -maxdepth 1 -name 'limits-doomed-*' 2>/dev/null || true) | wc -l)
log "$left of $DOOMED directories of limits-doomed left at the shutdown"
if compgen -G "$GR_DATA_DIR/.gregor-deleting-*" >/dev/null; then ok "the pending delete left its tombstone"
elif ((left == 0)); then ok "the delete finished before the shutdown (nothing pending to check)"
else fail "$left directories of limits-doomed left without a tombstone"; fi
restart_gregord
phase gone 30 gone
for ((i = 0; i < 600; i++)); do
  left=$( (find "$GR_DATA_DIR" -maxdepth 1 -name 'limits-doomed-*' 2>/dev/null || true) | wc -l)
  ((left == 0)) && ! compgen -G "$GR_DATA_DIR/.gregor-deleting-*" >/dev/null && break
  sleep 0.1
done
check_eq "the restarted broker removed every directory of limits-doomed" 0 "$left"
if compgen -G "$GR_DATA_DIR/.gregor-deleting-*" >/dev/null; then fail "a tombstone is left behind"
else ok "no tombstone left"; fi
finish_gregord "the deletes" 120
check_no_sanitizer_report
gr_finish
