#!/usr/bin/env bash
# Disk full: gregord's log.dirs is a small tmpfs (8 MiB, 5 MiB of it taken by a filler
# file). An acks=all producer without retries sends until the disk is full and errors
# come back (every acknowledged offset is recorded); reads still work while the disk is
# full; then the filler is deleted and, WITHOUT a restart, produce and fetch work again;
# every acknowledged record is readable at its offset with its content and nothing else
# is in the log (no half-written batch, no offset used by a failed append); a segment roll
# on the full disk is undone and leaves the old segment active. The same
# holds after a clean restart, and after a second fill and a kill -9.
# Needs root (or CAP_SYS_ADMIN) to mount the tmpfs; where mounting is impossible the
# test prints "SKIP: ..." and exits 0. The tmpfs is unmounted on every exit path.
#   bash tests/integration/test_disk_full.sh [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
[[ "$GR_TARGET" == gregord ]] || { echo "test_disk_full: gregord only (it mounts gregord's data dir)"; exit 2; }
PY="$(gr_venv_dir)/bin/python"
[[ -x "$PY" ]] || die "python venv missing at $PY (run scripts/install-deps.sh)"
CLIENT="$GR_SOURCE_DIR/tests/integration/disk_full_client.py"

MNT="$GR_TMP/disk" # unmounted by lib.sh's cleanup after gregord has stopped
if ! gr_mount_tmpfs "$MNT" 8m; then
  echo "SKIP: test_disk_full: cannot mount a tmpfs (${GR_MOUNT_ERR%%$'\n'*}; needs root or CAP_SYS_ADMIN)"
  exit 0
fi

GR_PORT="$(free_port)"
GR_DATA_DIR="$MNT/data"
mkdir -p "$GR_DATA_DIR"
GR_GREGORD_ARGS=()
restart_gregord
topic="diskfull-$RANDOM"
acked="$GR_TMP/acked.txt"
: >"$acked"
dd if=/dev/zero of="$MNT/filler" bs=1M count=5 status=none 2>/dev/null || true
log "disk: $(df -k --output=avail "$MNT" | tail -n 1) KiB free after the filler"

client() { gr_timeout 180 "$PY" "$CLIENT" "$BOOTSTRAP" "$topic" "$acked" "$@"; }
out=$(client fill 2>"$GR_TMP/fill.err") || true
log "fill: $out"
check "disk filled: some messages acknowledged, then errors ($out)" grep -q "acked [1-9].* failed [1-9]" <<<"$out"
check "the failures are KAFKA_STORAGE_ERROR ($out)" grep -q "KAFKA_STORAGE_ERROR=" <<<"$out"
check "gregord logged the full disk once, log online" grep -q "nothing appended, the log stays online" "$GR_TMP/gregord.log"
check "every acknowledged record readable while the disk is full" client verify
# segment.ms is 1 s: once it has passed, the next append must roll, and a roll on a full disk
# (the old segment's index files cannot be written) must be undone, the old segment kept.
nlogs() { find "$GR_DATA_DIR" -path "*/$topic-*" -name '*.log' | wc -l; }
before=$(nlogs)
sleep 1.2
check "appends that need a segment roll on the full disk are refused with 56" client refused 16
check_eq "the failed rolls left no new segment file" "$before" "$(nlogs)"
check "every acknowledged record still readable" client verify

rm -f "$MNT/filler"
log "filler removed: $(df -k --output=avail "$MNT" | tail -n 1) KiB free"
check "produce works again without a restart (300 acks=all messages)" client more 300
check "every acknowledged record readable without a restart, nothing else in the log" client verify
check "no partition went offline" bash -c "! grep -q 'offline' '$GR_TMP/gregord.log'"
check "gregord logged that appends succeed again" grep -q "appends succeed again" "$GR_TMP/gregord.log"
check "segments rolled once the space was back ($before -> $(nlogs) .log files)" test "$(nlogs)" -gt "$before"

stop_gregord
check_eq "clean shutdown" 0 "$GR_GREGORD_EXIT"
restart_gregord
check "after a restart: every acknowledged record readable, nothing else" client verify
check "after a restart: produce works (100 messages)" client more 100

# A producer with its default retries (idempotent) started on a full disk: 56 is retriable,
# so its messages are delivered, each exactly once, once the space is back.
dd if=/dev/zero of="$MNT/filler" bs=1M count=8 status=none 2>/dev/null || true
gr_bg rpid client retry 200 >"$GR_TMP/retry.out" 2>"$GR_TMP/retry.err"
sleep 3
rm -f "$MNT/filler"
rrc=0
wait "$rpid" || rrc=$?
check_eq "retrying producer: all 200 delivered after space returned ($(cat "$GR_TMP/retry.out"))" 0 "$rrc"
check "and readable exactly once, nothing else" client verify

# Second round: fill again, kill -9 while full, free the space, restart (recovery).
dd if=/dev/zero of="$MNT/filler" bs=1M count=8 status=none 2>/dev/null || true
out=$(client fill 2>"$GR_TMP/fill2.err") || true
log "fill 2: $out"
check "disk filled again ($out)" grep -q "failed [1-9]" <<<"$out"
kill9_gregord
rm -f "$MNT/filler"
restart_gregord
check "after kill -9 on a full disk: every acknowledged record readable, nothing else" client verify
check "after kill -9 on a full disk: produce works (100 messages)" client more 100
check "and all of it readable" client verify
stop_gregord
gr_finish
