#!/usr/bin/env bash
# The order on disk of a dead-lettering transition (docs/dlq.md §7, "Order on disk"): the DLQ batch is
# appended and fsynced before the share-state record that commits it is written, so a power loss (only
# fsynced data survives) can never leave a durable archive without its DLQ records.
# An LD_PRELOAD shim (dlq_order_shim.c) journals every pwrite and completed fsync/fdatasync of the DLQ
# partition's and the share-state store's segment files, in call order. A share consumer acknowledges
# 32 records one at a time in fours (REJECT when offset % 4 == 0: 8 dead-lettering transitions); the
# journal must show, after every DLQ write, a completed DLQ fsync before the next share-state write.
# Fault case: the shim then fails the DLQ fsync (EIO); a REJECT must be answered with KAFKA_STORAGE_ERROR
# and no share-state record may be written after the failed fsync. gregord only (it preloads a shim).
set -euo pipefail
GR_TEST_TIMEOUT="${GR_TEST_TIMEOUT:-60}"
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
[[ "$GR_TARGET" == gregord ]] || die "test_dlq_fsync_order.sh preloads a shim into the broker: gregord only"
gr_require cc python3
PY="$(gr_venv_dir)/bin/python"
[[ -x "$PY" ]] || PY=python3
CLIENT="$GR_SOURCE_DIR/tests/integration/dlq_order.py"

SHIM="$GR_TMP/dlq_order_shim.so"
cc -shared -fPIC -O1 -o "$SHIM" "$GR_SOURCE_DIR/tests/integration/dlq_order_shim.c" -ldl || die "cannot build $SHIM"
JOURNAL="$GR_TMP/io-journal"
FAULT="$GR_TMP/fail-dlq-fsync"
export LD_PRELOAD="$SHIM" GR_ORDER_LOG="$JOURNAL" GR_ORDER_FAULT="$FAULT"
export GR_ORDER_DLQ="/dlq.order-0/" GR_ORDER_STATE="/__share_group_state-0/"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
start_gregord --override auto.create.topics.enable=false
unset LD_PRELOAD # the shim is for gregord only

gr_timeout 30 "$PY" "$CLIENT" setup "$BOOTSTRAP" 40 >"$GR_TMP/setup.out" 2>&1 || die "setup: $(tail -3 "$GR_TMP/setup.out")"
rc=0
gr_timeout 30 "$PY" "$CLIENT" run "$BOOTSTRAP" 31 >"$GR_TMP/run.out" 2>&1 || rc=$?
gr_relay_checks "dlq_order.py run" "$GR_TMP/run.out" "$rc" 30

# After each "W dlq": a "S dlq" must come before the next "W state" (the record that commits it).
order() { # journal -> "dlq_writes committed_after_fsync violations"
  awk '$1 == "M" { exit }
       $0 == "W dlq" { w++; pending = 1 }
       $0 == "S dlq" { if (pending) synced = 1; pending = 0 }
       $0 == "W state" { if (pending) bad++; else if (synced) good++; synced = 0 }
       END { printf "%d %d %d\n", w, good, bad }' "$1"
}
read -r writes good bad < <(order "$JOURNAL")
log "journal: $writes DLQ writes, $good share-state writes right after a DLQ fsync, $bad before it"
check "the 8 dead-lettering transitions appended to the DLQ log (got $writes writes)" test "$writes" -ge 8
check_eq "no share-state write between a DLQ write and the DLQ fsync" 0 "$bad"
check "each DLQ fsync was followed by the share-state write that commits it ($good of $writes)" test "$good" -ge 8

echo "M fault" >>"$JOURNAL"
touch "$FAULT"
rc=0
gr_timeout 30 "$PY" "$CLIENT" fault "$BOOTSTRAP" >"$GR_TMP/fault.out" 2>&1 || rc=$?
gr_relay_checks "dlq_order.py fault" "$GR_TMP/fault.out" "$rc" 30
after="$(sed -n '/^M fault$/,$p' "$JOURNAL")"
check "the DLQ record was appended and its fsync failed" grep -q '^F dlq' <<<"$after"
check_eq "no share-state write after the DLQ write whose fsync failed" 0 \
  "$(sed -n '/^W dlq$/,$p' <<<"$after" | grep -c '^W state' || true)"
check "gregord logged the failed DLQ fsync and took the share groups offline" \
  grep -q "DLQ fsync failed: its share-state record is not written" "$GR_TMP/gregord.log"
rm -f "$FAULT"
stop_gregord
check_no_sanitizer_report
gr_finish
