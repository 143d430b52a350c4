#!/usr/bin/env bash
# The admin HTTP endpoint (admin.listener; docs/operations.md "Admin endpoint") against the
# real gregord, with raw-socket HTTP clients and a confluent-kafka client
# (tests/integration/admin_http_check.py):
#  - serving: /health 200 "ok", HEAD, 404, 405 (Allow), 400 (no Host, a body), 505, 431,
#    HTTP/1.0, percent-decoding, pipelining; /metrics 200 with Content-Type
#    text/plain; version=0.0.4; charset=utf-8, parsed whole by the pinned prometheus_client
#    parser; gregor_admin_http_requests_total counts every response exactly;
#  - hostile clients (a client trickling one byte per second, one that never reads 3000
#    pipelined responses, 100 connections at once, 20 garbage inputs) are closed by their
#    bounds while a Kafka client keeps producing and fetching, every round trip < 5 s;
#  - a log offline: under an LD_PRELOAD shim (fsync_fault.c) that fails fsync while a trigger
#    file exists, an acks=all produce fails and /health answers 503 naming the log;
#  - shutting down: a request completed after SIGTERM is answered 503 "shutting down";
#  - starting: with ADMIN_PARTS (default 6000) partition logs to open, /health answers 503
#    "starting" until the broker serves, then 200;
#  - clean exit (status 0) and no sanitizer report.
# gregord only.   bash tests/integration/test_admin_http.sh [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
[[ "$GR_TARGET" == gregord ]] || die "test_admin_http needs GR_TARGET=gregord (admin.listener is gregord's)"
PY="$(gr_venv_dir)/bin/python"
[[ -x "$PY" ]] || die "python venv missing at $PY (run scripts/install-deps.sh)"
CHECK="$GR_SOURCE_DIR/tests/integration/admin_http_check.py"
PARTS="${ADMIN_PARTS:-6000}"

# phase NAME TIMEOUT_S ARGS...: run one admin_http_check.py mode, relay its checks
phase() {
  local name="$1" t="$2" rc=0
  shift 2
  gr_timeout "$t" "$PY" "$CHECK" "$@" >"$GR_TMP/$name.out" 2>"$GR_TMP/$name.err" || rc=$?
  gr_relay_checks "$name" "$GR_TMP/$name.out" "$rc" "$t"
  if ((rc != 0)); then tail -n 20 "$GR_TMP/$name.err" >&2 || true; fi
}

# fsync fails while $TRIGGER exists (gregord only: the shim is preloaded into it alone).
SHIM="$GR_TMP/fsync_fault.so"
TRIGGER="$GR_TMP/fsync-fails"
gr_require cc
cc -shared -fPIC -O1 -o "$SHIM" "$GR_SOURCE_DIR/tests/integration/fsync_fault.c" -ldl || die "cannot build $SHIM"
APORT="$(free_port)"
# An ASan build checks that its runtime comes first; the shim only wraps two libc calls.
LD_PRELOAD="$SHIM" GR_FSYNC_FAULT_FILE="$TRIGGER" ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
  start_gregord --override "admin.listener=127.0.0.1:$APORT"
check "gregord logged the admin endpoint URL" grep -q "admin endpoint http://127.0.0.1:$APORT/" "$GR_TMP/gregord.log"
phase serving 180 serving "$BOOTSTRAP" "$APORT"
phase offline 90 offline "$BOOTSTRAP" "$APORT" "$TRIGGER"
phase create 300 create "$BOOTSTRAP" many "$PARTS"

phase shutdown 60 shutdown "$APORT" "$GR_GREGORD_PID"
stop_gregord 60
check_eq "clean exit after SIGTERM" 0 "$GR_GREGORD_EXIT"

# Start-up with $PARTS logs to open: the poller is waiting before gregord starts.
gr_bg poller gr_timeout 120 "$PY" "$CHECK" starting "$APORT" >"$GR_TMP/starting.out" 2>"$GR_TMP/starting.err"
sleep 0.5
restart_gregord
rc=0
wait "$poller" || rc=$?
gr_relay_checks starting "$GR_TMP/starting.out" "$rc" 120
grep "opened .* partition(s)" "$GR_TMP/gregord.log" | tail -n 1 | sed 's/^/# /' | while read -r l; do log "$l"; done

stop_gregord 60
check_eq "clean exit" 0 "$GR_GREGORD_EXIT"
check_no_sanitizer_report
gr_finish
