#!/usr/bin/env bash
# The transaction coordinator on the wire (tests/integration/txn_coord_wire.py):
# FindCoordinator key type 1, InitProducerId with a transactional id (epoch bumps,
# fencing, KIP-360, timeouts), AddPartitionsToTxn / AddOffsetsToTxn / TxnOffsetCommit /
# EndTxn (v3 and v5) errors, DescribeTransactions, ListTransactions, the coordinator's
# timeout abort, then kill -9 and the state recovered. Runs against the reference
# Apache Kafka 4.4.0 too (--ref): the same expectations hold there.
#   bash tests/integration/test_txn_coord.sh [--ref] [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
gr_require python3
export PYTHONPATH="$GR_SOURCE_DIR/tests/integration${PYTHONPATH:+:$PYTHONPATH}"
settings=(transaction.abort.timed.out.transaction.cleanup.interval.ms=300 offsets.topic.num.partitions=1
  transaction.state.log.replication.factor=1 transaction.state.log.min.isr=1 offsets.topic.replication.factor=1)
if [[ "$GR_TARGET" == ref ]]; then
  start_ref_kafka "${settings[@]}"
else
  overrides=()
  for kv in "${settings[@]}"; do overrides+=(--override "$kv"); done
  start_target "${overrides[@]}"
fi
run="$RANDOM$RANDOM"
wire="$GR_SOURCE_DIR/tests/integration/txn_coord_wire.py"

out=$(gr_timeout 60 python3 "$wire" "$BOOTSTRAP" main "$run") || true
printf '%s\n' "$out" | grep -v '^STATE' || true
state=$(printf '%s\n' "$out" | sed -n 's/^STATE //p')
check "main scenarios passed" test -n "$state"
check "no failed main check" bash -c '! grep -q "^FAIL" <<<"$1"' _ "$out"

kill9_target
restart_target
out=$(gr_timeout 90 python3 "$wire" "$BOOTSTRAP" after_restart "$run" $state) || true
printf '%s\n' "$out"
check "no failed check after kill -9" bash -c '! grep -q "^FAIL" <<<"$1" && grep -q "^ok" <<<"$1"' _ "$out"
gr_finish
