#!/usr/bin/env bash
# Durability of acks=all across kill -9: a producer (confluent-kafka, acks=all, paced at
# 3000 msg/s) sends continuously and records every acknowledged message; the broker is
# killed with SIGKILL mid-run (GR_KILL9_ROUNDS times, default 2) and restarted on the same
# data dir and port. The producer must make progress after each restart, and afterwards
# every acknowledged message must be readable.
#   bash tests/integration/test_kill9_acks_all.sh [--ref] [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
PY="$(gr_venv_dir)/bin/python"
[[ -x "$PY" ]] || die "python venv missing at $PY (run scripts/install-deps.sh)"
PYDIR="$GR_SOURCE_DIR/tests/interop/python"
ROUNDS="${GR_KILL9_ROUNDS:-2}"
start_target
topic="kill9-$RANDOM"
acked="$GR_TMP/acked.txt"
stopf="$GR_TMP/stop-producer"
: >"$acked"

acked_count() { wc -l <"$acked"; }
# wait_progress N TIMEOUT_S: until more than N messages are acknowledged
wait_progress() {
  local n="$1" deadline=$(( $(date +%s) + $2 ))
  while (( $(acked_count) <= n )); do
    (( $(date +%s) >= deadline )) && return 1
    sleep 0.2
  done
}

gr_bg prod gr_timeout 400 "$PY" "$PYDIR/acked_producer.py" "$BOOTSTRAP" "$topic" "$acked" "$stopf" 3000 300 \
  2>"$GR_TMP/producer.err"
wait_progress 0 60 || die "producer got no acknowledgement within 60 s: $(tail -n 3 "$GR_TMP/producer.err")"
for ((r = 1; r <= ROUNDS; r++)); do
  sleep 2
  before=$(acked_count)
  kill9_target
  log "round $r: kill -9 with $before messages acknowledged so far"
  sleep 1
  restart_target
  after=$(acked_count)
  check "round $r: producer acknowledged again after restart" wait_progress "$after" 60
done
sleep 1
touch "$stopf"
prc=0
wait "$prod" || prc=$?
total=$(acked_count)
check_eq "producer finished ($(tail -n 1 "$GR_TMP/producer.err"))" 0 "$prc"

gr_timeout 120 "$PY" "$PYDIR/read_all.py" "$BOOTSTRAP" "$topic" 90 >"$GR_TMP/read.txt" 2>"$GR_TMP/read.err" \
  || fail "reading back failed: $(tail -n 3 "$GR_TMP/read.err")"
sort -u "$acked" >"$GR_TMP/acked.sorted"
sort -u "$GR_TMP/read.txt" >"$GR_TMP/read.sorted"
missing=$(comm -23 "$GR_TMP/acked.sorted" "$GR_TMP/read.sorted" | wc -l)
check_eq "every acknowledged message readable after $ROUNDS kill -9 rounds ($total acked, $(wc -l <"$GR_TMP/read.sorted") distinct read)" 0 "$missing"
((missing == 0)) || comm -23 "$GR_TMP/acked.sorted" "$GR_TMP/read.sorted" | head -n 5
stop_target
gr_finish
