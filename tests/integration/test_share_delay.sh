#!/usr/bin/env bash
# Delayed redelivery (gregord only: gregor.share.redelivery.backoff.ms / .max.ms, issue 14
# item 3) with a real gregord and raw ShareFetch/ShareAcknowledge
# (tests/integration/share_delay_wire.py):
#  - timing: base 1000 ms; a RELEASEd record is not redelivered within its backoff while
#    the records behind it are; it comes back after ~1 s with count 2; the second release
#    holds it ~2 s; a lock expiry delays too; the admin endpoint /v1/share-groups/<g>/delayed
#    and the gregor_share_delayed_records gauge show it; the configs are validated;
#  - restart: base 6000 ms, kill -9 during the delay, restart: still held back (fetch,
#    admin endpoint, `gregor share-groups --describe --state`), then redelivered with
#    count 2 no earlier than its due time.
#   bash tests/integration/test_share_delay.sh [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
[[ "$GR_TARGET" == gregord ]] || die "test_share_delay needs gregord (delayed redelivery is gregord's)"
gr_require python3
HERE="$GR_SOURCE_DIR/tests/integration"
export PYTHONPATH="$HERE${PYTHONPATH:+:$PYTHONPATH}"
DRIVER=(python3 "$HERE/share_delay_wire.py")
ADMIN_PORT="$(free_port)"
start_gregord --override "admin.listener=127.0.0.1:$ADMIN_PORT" --override group.share.min.record.lock.duration.ms=1000
wait_port "$ADMIN_PORT" 10 "$GR_GREGORD_PID" || die "admin listener not up on 127.0.0.1:$ADMIN_PORT"
ADMIN="http://127.0.0.1:$ADMIN_PORT"

rc=0
gr_timeout 120 "${DRIVER[@]}" "$BOOTSTRAP" "$ADMIN" timing >"$GR_TMP/timing.out" 2>&1 || rc=$?
gr_relay_checks "share_delay_wire.py timing" "$GR_TMP/timing.out" "$rc" 120

# ---------------------------------------------------------------- kill -9 during the delay
state="$GR_TMP/restart.json"
out1="$GR_TMP/restart1.out"
gr_bg r1 "${DRIVER[@]}" "$BOOTSTRAP" "$ADMIN" restart1 "$state" >"$out1" 2>&1
for _ in $(seq 200); do grep -q READY "$out1" && break; sleep 0.05; done
grep -q READY "$out1" || fail "restart: phase 1 did not get ready: $(cat "$out1")"
kill9_gregord
kill "$r1" 2>/dev/null || true
wait "$r1" 2>/dev/null || true
gr_relay_checks "share_delay_wire.py restart1" "$out1" 0 60
restart_gregord
wait_port "$ADMIN_PORT" 10 "$GR_GREGORD_PID" || die "admin listener not up after the restart"
rc=0
gr_timeout 120 "${DRIVER[@]}" "$BOOTSTRAP" "$ADMIN" restart2 "$state" "$GR_BUILD_DIR/gregor" >"$GR_TMP/restart2.out" 2>&1 ||
  rc=$?
gr_relay_checks "share_delay_wire.py restart2" "$GR_TMP/restart2.out" "$rc" 120
stop_gregord
check_eq "gregord exits 0 on SIGTERM" 0 "$GR_GREGORD_EXIT"
check_no_sanitizer_report
gr_finish
