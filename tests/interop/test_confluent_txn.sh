#!/usr/bin/env bash
# confluent-kafka (librdkafka) transactions: committed and aborted transactions over 3
# partitions read by read_committed / read_uncommitted consumers, and an open transaction
# holding back later committed records on its partition until it is aborted
# (tests/interop/python/txn_read_committed.py). Passes against Apache Kafka 4.4.0 (--ref).
#   bash tests/interop/test_confluent_txn.sh [--ref | --bootstrap H:P] [--keep]
# Skipped (exit 0, with the reason) while gregord has no transaction coordinator (EndTxn not
# in its ApiVersions): the log side and the coordinator are built on separate branches.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
PY="$(gr_venv_dir)/bin/python"
[[ -x "$PY" ]] || die "python venv missing at $PY (run scripts/install-deps.sh)"
export PYTHONPATH="$GR_SOURCE_DIR/tests/integration${PYTHONPATH:+:$PYTHONPATH}"
start_target
has_txn="$(gr_timeout 30 python3 "$GR_SOURCE_DIR/tests/integration/txn_log_wire.py" "$BOOTSTRAP" - has-txn)" \
  || die "ApiVersions failed"
if [[ "$has_txn" == no ]]; then
  echo "SKIP: $(target_name) advertises no EndTxn (no transaction coordinator yet: branch h-txcoord)"
  stop_target
  exit 0
fi
out="$(gr_timeout 120 "$PY" "$GR_SOURCE_DIR/tests/interop/python/txn_read_committed.py" "$BOOTSTRAP" \
  2>"$GR_TMP/py.err")" || true
echo "$out"
GR_PASSED=$((GR_PASSED + $(grep -c '^ok ' <<<"$out" || true)))
GR_FAILED=$((GR_FAILED + $(grep -c '^FAIL ' <<<"$out" || true)))
grep -qx 'done' <<<"$out" || fail "python client did not finish: $(tail -n 5 "$GR_TMP/py.err")"
stop_target
gr_finish
