#!/usr/bin/env bash
# confluent-kafka (librdkafka) with group.protocol=consumer (KIP-848): 2/2 split, take-over,
# commit and resume (tests/interop/python/confluent_consumer_group.py). gregord runs with a 1 s
# heartbeat interval (Kafka's floor is 5 s) so reconciliation is quick.
#   bash tests/interop/test_confluent_consumer_group.sh [--ref | --bootstrap H:P] [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
PY="$(gr_venv_dir)/bin/python"
[[ -x "$PY" ]] || die "python venv missing at $PY (run scripts/install-deps.sh)"
start_target --override auto.create.topics.enable=false --override group.consumer.heartbeat.interval.ms=1000 \
  --override group.consumer.min.heartbeat.interval.ms=500
out="$(gr_timeout 150 "$PY" "$GR_SOURCE_DIR/tests/interop/python/confluent_consumer_group.py" "$BOOTSTRAP" ck848 \
  2>"$GR_TMP/client.err")" || true
echo "$out"
GR_PASSED=$((GR_PASSED + $(grep -c '^ok ' <<<"$out" || true)))
GR_FAILED=$((GR_FAILED + $(grep -c '^FAIL ' <<<"$out" || true)))
grep -q '^done' <<<"$out" || fail "the client did not finish: $(tail -n 5 "$GR_TMP/client.err")"
stop_target
[[ "$GR_TARGET" != gregord ]] || check_no_sanitizer_report
gr_finish
