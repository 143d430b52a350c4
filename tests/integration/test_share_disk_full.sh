#!/usr/bin/env bash
# Share acknowledgements on a full disk (issue 8, defect 4; spec share-groups.md §1.4, §3.4):
# a state change and its durable write are one unit, so an acknowledgement answered
# KAFKA_STORAGE_ERROR (56) is not applied, in memory or on disk, now or after later writes.
# gregord runs with log.dirs on a small tmpfs mounted here (needs root / CAP_SYS_ADMIN; the test
# is skipped with a message when mounting is impossible); the disk is filled with a filler file
# (tests/integration/share_disk_full.py) and freed by deleting it.
#  1. without restart: ACCEPT and REJECT (ShareAcknowledge and piggybacked on ShareFetch) answered
#     56 leave the records ACQUIRED by the member (nobody else gets them); right after space
#     returns the same acks succeed; a session-end release and a lock expiry that cannot be
#     written keep the records locked, and once space returns they are delivered again (count 2).
#  2. with a restart: ACCEPT/REJECT answered 56, space returns, another ack of the same
#     share-partition succeeds (the write that used to persist the failed acks too), gregord
#     restarts: the records of the failed acks are delivered again and can be acknowledged.
#   bash tests/integration/test_share_disk_full.sh [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
gr_require python3
[[ "$GR_TARGET" == gregord ]] || die "this test mounts gregord's data dir: gregord only"
HERE="$GR_SOURCE_DIR/tests/integration"
export PYTHONPATH="$HERE${PYTHONPATH:+:$PYTHONPATH}"
PY=(python3 "$HERE/share_disk_full.py")

MNT="$GR_TMP/gregord-data" # start_gregord's data dir; unmounted by lib.sh's cleanup
if ! gr_mount_tmpfs "$MNT" 16m; then
  echo "SKIP: cannot mount a tmpfs ($GR_MOUNT_ERR); run as root to test a full disk"
  GR_PASSED=1 # a skip is not a failure
  gr_finish
fi

# Short locks for the expiry check.
start_gregord --override group.share.min.record.lock.duration.ms=1000
log "data dir $MNT: $(df -h --output=size,used "$MNT" | tail -n 1)"

# py PHASE: run one phase, pass its ok/FAIL lines through
py() {
  local out rc=0
  out="$(gr_timeout 120 "${PY[@]}" "$BOOTSTRAP" "$1" "$MNT" "$GR_TMP/state.json" 2>&1)" || rc=$?
  report "$1" "$out" "$rc"
}
report() {
  local line
  while IFS= read -r line; do
    case "$line" in
      "ok - "*) ok "$1: ${line#ok - }" ;;
      "FAIL - "*) fail "$1: ${line#FAIL - }" ;;
      *) [[ -n "$line" ]] && echo "  $line" ;;
    esac
  done <<<"$2"
  (($3 == 0)) || [[ "$2" == *"FAIL - "* ]] || fail "$1 exited $3"
}

# 1. without restart
py norestart
rm -f "$MNT/filler"

# 2. with a restart; the member's session stays open while gregord restarts
out1="$GR_TMP/before.out"
gr_bg holder "${PY[@]}" "$BOOTSTRAP" before "$MNT" "$GR_TMP/state.json" >"$out1" 2>&1
for _ in $(seq 600); do grep -q READY "$out1" && break; alive "$holder" || break; sleep 0.1; done
grep -q READY "$out1" || fail "phase before did not get ready"
report before "$(grep -v READY "$out1")" 0
rm -f "$MNT/filler"
stop_gregord
check_eq "gregord stopped cleanly" 0 "$GR_GREGORD_EXIT"
restart_gregord
py after
stop_pid "$holder" 5
holder=""

check "gregord still running" alive "$GR_GREGORD_PID"
stop_gregord
check_eq "gregord stopped cleanly (no sanitizer report under ASan)" 0 "$GR_GREGORD_EXIT"
gr_finish
