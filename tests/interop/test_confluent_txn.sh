#!/usr/bin/env bash
# confluent-kafka (librdkafka) transactions: committed and aborted transactions over 3
# partitions read by read_committed / read_uncommitted consumers, and an open transaction
# holding back later committed records on its partition until it is aborted
# (tests/interop/python/txn_read_committed.py). Passes against Apache Kafka 4.4.0 (--ref).
#   bash tests/interop/test_confluent_txn.sh [--ref | --bootstrap H:P] [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
PY="$(gr_venv_dir)/bin/python"
[[ -x "$PY" ]] || die "python venv missing at $PY (run scripts/install-deps.sh)"
start_target
out="$(gr_timeout 120 "$PY" "$GR_SOURCE_DIR/tests/interop/python/txn_read_committed.py" "$BOOTSTRAP" \
  2>"$GR_TMP/py.err")" || true
echo "$out"
GR_PASSED=$((GR_PASSED + $(grep -c '^ok ' <<<"$out" || true)))
GR_FAILED=$((GR_FAILED + $(grep -c '^FAIL ' <<<"$out" || true)))
grep -qx 'done' <<<"$out" || fail "python client did not finish: $(tail -n 5 "$GR_TMP/py.err")"
stop_target
gr_finish
