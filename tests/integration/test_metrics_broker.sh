#!/usr/bin/env bash
# Broker-wide metrics of GET /metrics, exact values (tests/integration/metrics_broker.py):
#  - requests per API and version and errors per API, version and error name after raw-wire
#    requests of known number (Produce v8, Fetch v11, an unknown topic, unknown partitions);
#  - per-topic bytes and records in and out, per-partition log end / start offset and size
#    against the batches produced; one fsync for one acks=all produce;
#  - connections open / accepted / closed / refused{reason} around max.connections;
#  - metrics.partition.series.max=3: 3 partition series and dropped{kind} counts, and a
#    deleted topic's series gone;
#  - ShareFetch: records acquired and Records bytes counted out, its errors counted;
#  - every scrape parsed whole by the pinned prometheus_client parser.
# gregord only (the metrics are gregord's):
#   bash tests/integration/test_metrics_broker.sh [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
[[ "$GR_TARGET" == gregord ]] || die "test_metrics_broker needs gregord (the metrics are gregord's)"
gr_require python3
VENV="$(gr_venv_dir)"
[[ -x "$VENV/bin/python" ]] || die "test venv missing at $VENV (scripts/install-deps.sh)"
"$VENV/bin/python" -c 'import prometheus_client.parser' || die "prometheus_client missing in $VENV"

ADMIN_PORT="$(free_port)"
start_gregord --override "admin.listener=127.0.0.1:$ADMIN_PORT" \
  --override metrics.partition.series.max=3 --override max.connections=8
wait_port "$ADMIN_PORT" 10 "$GR_GREGORD_PID" || die "admin listener not up on 127.0.0.1:$ADMIN_PORT"

rc=0
gr_timeout 120 "$VENV/bin/python" "$GR_SOURCE_DIR/tests/integration/metrics_broker.py" \
  "$BOOTSTRAP" "http://127.0.0.1:$ADMIN_PORT" >"$GR_TMP/driver.out" 2>&1 || rc=$?
gr_relay_checks metrics_broker.py "$GR_TMP/driver.out" "$rc" 120

stop_gregord
check_eq "gregord exits 0 on SIGTERM" 0 "$GR_GREGORD_EXIT"
check_no_sanitizer_report
gr_finish
