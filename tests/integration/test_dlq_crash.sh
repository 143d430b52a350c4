#!/usr/bin/env bash
# The atomic share-group DLQ write under kill -9 (issue 14 item 2; docs/dlq.md §7).
# A share consumer (dlq_crash.py) drains 2 partitions x N records (default 500), REJECTing every offset
# O % 10 == 0 and RELEASEing every O % 10 == 1 (archived at share.delivery.count.limit=2, the second
# delivery), ACCEPTing the rest, into the DLQ topic dlq.crash (copy.record on). Meanwhile gregord is killed
# with kill -9 and restarted on the same data dir 20 times (GR_DLQ_CRASH_KILLS): odd rounds at a random
# moment (0.2-0.9 s apart), even rounds exactly between a DLQ append and the share-state record that
# commits it (an LD_PRELOAD shim, dlq_kill_shim.c, SIGKILLs gregord right after its next write to the DLQ
# partition's log), the case the start-up recovery rolls forward. Afterwards the consumer drains the rest
# and the DLQ must hold every archived record exactly once, with the right reason, delivery count and
# copied key, and nothing else. Without recovery the torn rounds leave records that are redelivered and
# dead-lettered twice. gregord only (it kills the broker).
set -euo pipefail
GR_TEST_TIMEOUT="${GR_TEST_TIMEOUT:-240}"
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
[[ "$GR_TARGET" == gregord ]] || die "test_dlq_crash.sh kills the broker: gregord only"
gr_require cc python3
PY="$(gr_venv_dir)/bin/python"
[[ -x "$PY" ]] || PY=python3
CLIENT="$GR_SOURCE_DIR/tests/integration/dlq_crash.py"
N="${GR_DLQ_CRASH_RECORDS:-500}"
KILLS="${GR_DLQ_CRASH_KILLS:-20}"
SEED="${GR_DLQ_CRASH_SEED:-$(($(date +%s) % 100000))}"
RANDOM="$SEED"
log "records 2 x $N, kills $KILLS, seed $SEED"

SHIM="$GR_TMP/dlq_kill_shim.so"
cc -shared -fPIC -O1 -o "$SHIM" "$GR_SOURCE_DIR/tests/integration/dlq_kill_shim.c" -ldl || die "cannot build $SHIM"
TRIGGER="$GR_TMP/kill-at-next-dlq-append"
SLOW="$GR_TMP/slow"
export LD_PRELOAD="$SHIM" GR_DLQ_KILL_FILE="$TRIGGER" GR_DLQ_KILL_PATH="/dlq.crash-0/"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
start_gregord --override group.share.min.record.lock.duration.ms=1000 --override auto.create.topics.enable=false
unset LD_PRELOAD # the shim is for gregord only (restart_gregord inherits the exported variables below)

gr_timeout 60 "$PY" "$CLIENT" setup "$BOOTSTRAP" "$N" >"$GR_TMP/setup.out" 2>&1 || die "setup: $(tail -3 "$GR_TMP/setup.out")"
touch "$SLOW"
gr_bg consumer gr_timeout 200 "$PY" "$CLIENT" consume "$BOOTSTRAP" "$SLOW" >"$GR_TMP/consume.out" 2>"$GR_TMP/consume.err"

torn=0
for ((k = 1; k <= KILLS; k++)); do
  if ((k % 2 == 0)); then
    touch "$TRIGGER" # the shim kills gregord right after its next DLQ append
    for ((i = 0; i < 100; i++)); do alive "$GR_GREGORD_PID" || break; sleep 0.05; done
    # (the shim may kill it between the check and our kill: that kill then finds no process)
    if alive "$GR_GREGORD_PID"; then kill -9 "$GR_GREGORD_PID" 2>/dev/null || true; else torn=$((torn + 1)); fi
  else
    sleep "0.$((2 + RANDOM % 8))"
    kill -9 "$GR_GREGORD_PID" 2>/dev/null || true
  fi
  wait "$GR_GREGORD_PID" 2>/dev/null || true
  rm -f "$TRIGGER"
  LD_PRELOAD="$SHIM" restart_gregord
done
log "$KILLS kills, $torn between a DLQ append and its share-state record"
check "at least 5 kills landed between a DLQ append and its share-state record" test "$torn" -ge 5
check "gregord rolled torn archives forward at start-up" grep -q "DLQ recovery: .* rolled forward" "$GR_TMP/gregord.log"
rm -f "$SLOW"
rc=0
wait "$consumer" || rc=$?
check_eq "the consumer drained the topic (lag 0 on both partitions)" 0 "$rc"
rc=0
gr_timeout 60 "$PY" "$CLIENT" check "$BOOTSTRAP" "$N" >"$GR_TMP/check.out" 2>&1 || rc=$?
gr_relay_checks "the DLQ after the kills" "$GR_TMP/check.out" "$rc" 60
stop_gregord
check_no_sanitizer_report
gr_finish
