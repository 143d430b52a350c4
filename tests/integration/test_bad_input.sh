#!/usr/bin/env bash
# Bad-input catalogue (issue 2, item 7) against the real gregord, over raw sockets
# (tests/integration/bad_input.py). Each case is checked for its exact answer, and after
# each case a second connection must still get ApiVersions + Metadata promptly:
#  - frame sizes -1, INT32_MIN, 0, over socket.request.max.bytes (1 MiB here; 2 MiB sent):
#    closed with exactly one log line naming the peer (and the size);
#  - truncated header, client_id past the end, unknown api keys (9999, -1, 23), unsupported
#    versions (Produce v2/v14, Fetch v3/v99, Metadata v-1): closed;
#  - ApiVersions v99/v5: the v0-layout fallback with error 35 (exact bytes); v0..v4 answered;
#  - every proper prefix of a valid Produce v9, Metadata v12, Fetch v13, CreateTopics v7 body;
#  - negative/absurd array counts, negative string lengths, overflowing compact lengths,
#    over-long varints, broken tagged-field sections: closed, VmRSS/VmHWM stay small;
#  - corrupt record batches: exact partition errors (2, 87, 10), the connection stays usable;
#  - half frames, a parked Fetch (MaxWaitMs=30000) abandoned, 200 pipelined requests closed
#    before reading, clients that never read large fetches (memory bounded), 50 abrupt closes;
#  - no descriptor leak, gregord exits cleanly on SIGTERM, no sanitizer report in its log.
# gregord only (the log-line checks need its log).   bash tests/integration/test_bad_input.sh [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
gr_require python3
[[ "$GR_TARGET" == gregord ]] || die "test_bad_input needs GR_TARGET=gregord (it reads gregord's log and /proc)"
GR_TEST_TIMEOUT_PY="${GR_BAD_INPUT_TIMEOUT:-300}"
MAX_REQ=1048576

start_gregord --override "socket.request.max.bytes=$MAX_REQ" --override log.client.errors.max.per.10s=0

out="$GR_TMP/bad_input.out"
rc=0
gr_timeout "$GR_TEST_TIMEOUT_PY" python3 "$GR_SOURCE_DIR/tests/integration/bad_input.py" \
  "$BOOTSTRAP" "$GR_GREGORD_PID" "$GR_TMP/gregord.log" "$MAX_REQ" >"$out" 2>&1 || rc=$?
gr_relay_checks bad_input.py "$out" "$rc" "$GR_TEST_TIMEOUT_PY"

if alive "$GR_GREGORD_PID"; then ok "gregord still running after the catalogue"; else fail "gregord died"; fi
stop_gregord 20
check_eq "gregord exits 0 on SIGTERM" 0 "$GR_GREGORD_EXIT"
check_no_sanitizer_report
gr_finish
