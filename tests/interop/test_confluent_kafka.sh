#!/usr/bin/env bash
# confluent-kafka (PyPI, librdkafka inside): admin creates a 3-partition topic, an idempotent
# acks=all producer sends N messages (lz4), a consumer reads them back identical, admin deletes.
#   bash tests/interop/test_confluent_kafka.sh [--ref | --bootstrap H:P] [--keep]
# Env: GR_PY_MESSAGES (default 20000).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
PY="$(gr_venv_dir)/bin/python"
[[ -x "$PY" ]] || die "python venv missing at $PY (run scripts/install-deps.sh)"
start_target
out="$(gr_timeout 240 "$PY" "$GR_SOURCE_DIR/tests/interop/python/produce_consume.py" \
  "$BOOTSTRAP" "${GR_PY_MESSAGES:-20000}" 2>"$GR_TMP/py.err")" || true
echo "$out"
GR_PASSED=$((GR_PASSED + $(grep -c '^ok ' <<<"$out" || true)))
GR_FAILED=$((GR_FAILED + $(grep -c '^FAIL ' <<<"$out" || true)))
grep -q 'delete topic' <<<"$out" || fail "python client did not finish: $(tail -n 5 "$GR_TMP/py.err")"
stop_target
gr_finish
