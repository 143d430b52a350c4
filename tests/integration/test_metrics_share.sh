#!/usr/bin/env bash
# Share-group metrics of GET /metrics, exact values (tests/integration/metrics_share.py):
#  - a share drain over raw ShareFetch/ShareAcknowledge with known ACCEPT/RELEASE/REJECT/RENEW/
#    GAP acknowledgements, lock expiries (1 s locks), delivery-limit (2) and log-start
#    archivals: every per-share-partition counter exact while records are in flight and
#    after, in-flight and record-lock-limit gauges, the W histogram count equal to
#    ACCEPT+REJECT+RELEASE, lag and start offset equal to DescribeShareGroupOffsets' for
#    every partition, group members/sessions/epoch, broker sessions and limit, state-store
#    counters; a deleted group's series gone;
#  - metrics.partition.series.max=1: one share-partition and one group get series, the
#    rest counted in gregor_metrics_series_dropped;
#  - every scrape parsed whole by the pinned prometheus_client parser.
# gregord only (the metrics are gregord's):
#   bash tests/integration/test_metrics_share.sh [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
[[ "$GR_TARGET" == gregord ]] || die "test_metrics_share needs gregord (the metrics are gregord's)"
gr_require python3
VENV="$(gr_venv_dir)"
[[ -x "$VENV/bin/python" ]] || die "test venv missing at $VENV (scripts/install-deps.sh)"
"$VENV/bin/python" -c 'import prometheus_client.parser' || die "prometheus_client missing in $VENV"
DRIVER="$GR_SOURCE_DIR/tests/integration/metrics_share.py"
SHARE=(--override group.share.min.record.lock.duration.ms=1000 --override group.share.max.size=10
  --override group.share.max.share.sessions=50)

# run CHECK: the driver against the running broker, its ok/FAIL lines relayed
run() {
  local rc=0
  gr_timeout 120 "$VENV/bin/python" "$DRIVER" "$BOOTSTRAP" "http://127.0.0.1:$ADMIN_PORT" "$1" \
    >"$GR_TMP/driver-$1.out" 2>&1 || rc=$?
  gr_relay_checks "metrics_share.py $1" "$GR_TMP/driver-$1.out" "$rc" 120
}

ADMIN_PORT="$(free_port)"
start_gregord --override "admin.listener=127.0.0.1:$ADMIN_PORT" "${SHARE[@]}"
wait_port "$ADMIN_PORT" 10 "$GR_GREGORD_PID" || die "admin listener not up on 127.0.0.1:$ADMIN_PORT"
run drain
stop_gregord
check_eq "gregord exits 0 on SIGTERM" 0 "$GR_GREGORD_EXIT"

ADMIN_PORT="$(free_port)"
start_gregord --override "admin.listener=127.0.0.1:$ADMIN_PORT" --override metrics.partition.series.max=1 "${SHARE[@]}"
wait_port "$ADMIN_PORT" 10 "$GR_GREGORD_PID" || die "admin listener not up on 127.0.0.1:$ADMIN_PORT"
run cap
stop_gregord
check_eq "gregord exits 0 on SIGTERM" 0 "$GR_GREGORD_EXIT"
check_no_sanitizer_report
gr_finish
