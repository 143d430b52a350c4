#!/usr/bin/env bash
# Consumer-group metrics of GET /metrics, exact values (tests/integration/metrics_cgroup.py):
#  - a real confluent-kafka group on a 2-partition topic: members, state set, generation and
#    completed rebalances after one member, a second joining, the second leaving (LeaveGroup)
#    and the last closing (Empty, no completed rebalance); committed offset and lag (log end
#    offset - committed) per partition after commits and produces; groups by state; offset
#    commits; a simple group's commit; DeleteGroups removes the group's series;
#  - restarted with metrics.partition.series.max=1: one group and one committed offset get
#    series, the rest counted in gregor_metrics_series_dropped{kind=consumer_group|
#    consumer_group_partition}; a group loaded from the store is counted;
#  - every scrape parsed whole by the pinned prometheus_client parser.
# gregord only (the metrics are gregord's):
#   bash tests/integration/test_metrics_cgroup.sh [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
[[ "$GR_TARGET" == gregord ]] || die "test_metrics_cgroup needs gregord (the metrics are gregord's)"
VENV="$(gr_venv_dir)"
[[ -x "$VENV/bin/python" ]] || die "test venv missing at $VENV (scripts/install-deps.sh)"
"$VENV/bin/python" -c 'import prometheus_client.parser, confluent_kafka' || die "prometheus_client or confluent_kafka missing in $VENV"
DRIVER="$GR_SOURCE_DIR/tests/integration/metrics_cgroup.py"

# run STEP: the driver against the running broker, its ok/FAIL lines relayed
run() {
  local rc=0
  gr_timeout 90 "$VENV/bin/python" "$DRIVER" "$BOOTSTRAP" "http://127.0.0.1:$ADMIN_PORT" "$1" \
    >"$GR_TMP/driver-$1.out" 2>&1 || rc=$?
  gr_relay_checks "metrics_cgroup.py $1" "$GR_TMP/driver-$1.out" "$rc" 90
}

ADMIN_PORT="$(free_port)"
start_gregord --override "admin.listener=127.0.0.1:$ADMIN_PORT" --override group.initial.rebalance.delay.ms=100
wait_port "$ADMIN_PORT" 10 "$GR_GREGORD_PID" || die "admin listener not up on 127.0.0.1:$ADMIN_PORT"
run run
stop_gregord
check_eq "gregord exits 0 on SIGTERM" 0 "$GR_GREGORD_EXIT"

# The same data directory: the groups left by run are loaded.
ADMIN_PORT="$(free_port)"
start_gregord --override "admin.listener=127.0.0.1:$ADMIN_PORT" --override metrics.partition.series.max=1
wait_port "$ADMIN_PORT" 10 "$GR_GREGORD_PID" || die "admin listener not up on 127.0.0.1:$ADMIN_PORT"
run cap
stop_gregord
check_eq "gregord exits 0 on SIGTERM" 0 "$GR_GREGORD_EXIT"
check_no_sanitizer_report
gr_finish
