#!/usr/bin/env bash
# The KEDA and Grafana examples of docs/metrics.md against the names gregord really exports:
#  - docs/examples/keda-scaledobject.yaml parses (strict YAML subset) and is a ScaledObject with
#    one prometheus trigger on sum(...gregor_share_partition_lag...), string metadata, min < max
#    replicas and a longer scale-down than scale-up stabilization;
#  - docs/examples/grafana-dashboard.json parses, has the data-source, group and topic variables
#    and the panels the issue lists;
#  - every metric name their queries use is documented in docs/metrics.md (right type: _bucket,
#    _sum, _count only on a histogram) and present in the /metrics page of a live gregord
#    (admin.listener on a free port) after records were produced and share-consumed, with samples
#    for that share group; the page parses with prometheus_client's parser; every family on the
#    page is documented.
#   bash tests/integration/test_metrics_examples.sh [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
gr_require curl python3
G="$GR_BUILD_DIR/gregor"
[[ -x "$G" ]] || die "gregor not built in $GR_BUILD_DIR"
CHECK="$GR_SOURCE_DIR/tests/integration/metrics_examples_check.py"
PY="$(gr_venv_dir)/bin/python"
[[ -x "$PY" ]] || PY=python3 # prometheus_client is in the venv (scripts/install-deps.sh)

# 1. The files and docs/metrics.md alone.
if "$PY" "$CHECK" docs "$GR_SOURCE_DIR" >"$GR_TMP/docs-check.out" 2>&1; then
  ok "examples parse and use only names documented in docs/metrics.md"
else
  fail "examples against docs/metrics.md:"; grep -v '^ok' "$GR_TMP/docs-check.out" || true
fi

# 2. A live gregord with the admin listener.
APORT="$(free_port)"
start_gregord --override "admin.listener=127.0.0.1:$APORT"
wait_port "$APORT" 10 "$GR_GREGORD_PID" || die "admin listener not up on 127.0.0.1:$APORT"
TOPIC=mex-topic
GROUP=mex-group
gr_timeout 60 "$G" topics --bootstrap-server "$BOOTSTRAP" --create --topic "$TOPIC" --partitions 2 >/dev/null \
  || die "topic create failed"
seq 1 20 | sed 's/^/record-/' | gr_timeout 60 "$G" produce --bootstrap-server "$BOOTSTRAP" --topic "$TOPIC" \
  >"$GR_TMP/produce.out" 2>&1 || die "produce failed: $(tail -n3 "$GR_TMP/produce.out")"
gr_timeout 60 "$G" configs --bootstrap-server "$BOOTSTRAP" --alter --entity-type groups --entity-name "$GROUP" \
  --add-config share.auto.offset.reset=earliest >/dev/null || die "group config failed"
n="$(gr_timeout 60 "$G" share-consume --bootstrap-server "$BOOTSTRAP" --topic "$TOPIC" --group "$GROUP" \
       --max-messages 5 --timeout-ms 20000 2>"$GR_TMP/share-consume.err" | wc -l)"
check_eq "share-consume got 5 records" 5 "$n"

code="$(curl -s -o "$GR_TMP/metrics.txt" -w '%{http_code}' --max-time 10 "http://127.0.0.1:$APORT/metrics")" || code=curl-failed
check_eq "GET /metrics answers 200" 200 "$code"
if "$PY" "$CHECK" live "$GR_SOURCE_DIR" "$GR_TMP/metrics.txt" "$GROUP" "$TOPIC" >"$GR_TMP/live-check.out" 2>&1; then
  ok "every metric name of the examples is in the live /metrics ($(grep -c '^# TYPE' "$GR_TMP/metrics.txt") families)"
else
  fail "examples against the live /metrics:"; grep -v '^ok' "$GR_TMP/live-check.out" || true
fi
alive "$GR_GREGORD_PID" && ok "gregord still running" || fail "gregord died (log: $GR_TMP/gregord.log)"
stop_gregord
check_no_sanitizer_report
gr_finish
