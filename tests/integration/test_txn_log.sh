#!/usr/bin/env bash
# The log side of transactions without a transactional producer: an idempotent producer's
# DescribeProducers entry (epoch, last sequence, timestamp, coordinator epoch -1, no
# transaction), DescribeProducers errors, Fetch's LastStableOffset and AbortedTransactions
# (null for read_uncommitted, empty for read_committed) and ListOffsets LATEST per isolation
# level, then producer.id.expiration.ms forgetting the idle producer, identical on Apache
# Kafka 4.4.0 and gregord (run_both); then, on gregord, the same
# view after a clean restart and after kill -9 and restart.
#   bash tests/integration/test_txn_log.sh [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
gr_require python3
export PYTHONPATH="$GR_SOURCE_DIR/tests/integration${PYTHONPATH:+:$PYTHONPATH}"
W="$GR_SOURCE_DIR/tests/integration/txn_log_wire.py"

scenario_idem() {
  local topic="txn-log-idem"
  gr_timeout 60 python3 "$W" "$BOOTSTRAP" "$topic" create
  gr_timeout 60 python3 "$W" "$BOOTSTRAP" "$topic" idem
  gr_timeout 60 python3 "$W" "$BOOTSTRAP" "$topic" expire
}
# producer.id.expiration.ms is dynamic; the check interval (internal in Kafka) is not.
GR_TARGET_PROPS=(producer.id.expiration.check.interval.ms=500)
run_both scenario_idem
GR_TARGET_PROPS=()
cat "$GR_TMP/run_both.scenario_idem.gregord.out"

# gregord: the same view after a clean restart and after kill -9 and restart (an
# idempotent producer's state comes back from the log's tail: no transaction, no snapshot;
# the snapshot path is covered by tests/unit/test_txn_state.c and test_txn_read_committed).
GR_TARGET=gregord
start_target
topic="txn-log-kill"
gr_timeout 60 python3 "$W" "$BOOTSTRAP" "$topic" create
# The whole output first, then its first lines: `| head` may close the pipe while Python still
# writes (BrokenPipeError, and pipefail ends the script).
before="$(gr_timeout 60 python3 "$W" "$BOOTSTRAP" "$topic" idem)"
before="$(head -n 7 <<<"$before")"
stop_target
check "no producer-state snapshot for a partition that never had a transaction" \
  test ! -e "$GR_DATA_DIR/$topic-0/gregor-producers.snapshot"
restart_target
after="$(gr_timeout 60 python3 "$W" "$BOOTSTRAP" "$topic" view)"
check_eq "producer state, LSO and offsets after a clean restart" "$before" "$after"
kill9_target
restart_target
after="$(gr_timeout 60 python3 "$W" "$BOOTSTRAP" "$topic" view)"
check_eq "producer state, LSO and offsets after kill -9 and restart" "$before" "$after"
stop_target
gr_finish
