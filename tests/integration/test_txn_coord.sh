#!/usr/bin/env bash
# The transaction coordinator on the wire (tests/integration/txn_coord_wire.py):
# FindCoordinator key type 1, InitProducerId with a transactional id (epoch bumps,
# fencing, KIP-360, timeouts), AddPartitionsToTxn / AddOffsetsToTxn / TxnOffsetCommit /
# EndTxn (v3 and v5) errors, DescribeTransactions, ListTransactions, a transaction-version-2
# produce right after EndTxn (it waits on the broker for the completion), the coordinator's
# timeout abort, then kill -9 (gregord: right after an EndTxn answer) and the
# state recovered (a PREPARE_COMMIT transaction completes: its markers are written
# again). Runs against the reference Apache Kafka 4.4.0 too (--ref): the same
# expectations hold there. Then (gregord) transactional.id.expiration.ms removes idle ids.
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
  admin_port=$(free_port)
  start_target "${overrides[@]}" --override "admin.listener=127.0.0.1:$admin_port"
fi
run="$RANDOM$RANDOM"
export GR_TARGET # the wire script leaves out a check Kafka fails
wire="$GR_SOURCE_DIR/tests/integration/txn_coord_wire.py"
# tally OUTPUT: print the script's lines and count its "ok - " / "FAIL - " checks.
# wire T PHASE ARGS...: run a phase (T s at most); its output in $out, a non-zero exit fails.
wire() {
  local t="$1" rc=0; shift
  out=$(gr_timeout "$t" python3 "$wire" "$BOOTSTRAP" "$@" 2>&1) || rc=$?
  ((rc == 0)) || fail "txn_coord_wire.py $1 exited with $rc"
}
tally() {
  printf '%s\n' "$1" | grep -v '^STATE' || true
  GR_PASSED=$((GR_PASSED + $(grep -c '^ok - ' <<<"$1" || true)))
  GR_FAILED=$((GR_FAILED + $(grep -c '^FAIL - ' <<<"$1" || true)))
}

wire 60 main "$run"
tally "$out"
state=$(printf '%s\n' "$out" | sed -n 's/^STATE //p')
check "main scenarios ran to the end" test -n "$state"
if [[ "$GR_TARGET" == gregord ]]; then # the produces that waited for the previous transaction
  waits=$(python3 -c 'import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())' \
    "http://127.0.0.1:$admin_port/metrics" | grep '^gregor_transaction_produce_add_waits_total' || true)
  log "$(tr '\n' ' ' <<<"$waits")"
  check "metrics: no produce add waited past add.partitions.to.txn.retry.backoff.max.ms" \
    grep -qx 'gregor_transaction_produce_add_waits_total{result="timed_out"} 0' <<<"$waits"
fi

# gregord only: Kafka 4.4.0 killed there was seen to lose the markers (its log truncated to
# the last high-watermark checkpoint) while its coordinator says CompleteCommit, leaving the
# partitions' last stable offset stuck (docs/compatibility.md).
if [[ "$GR_TARGET" == gregord ]]; then
  wire 60 crash "$run" "$GR_GREGORD_PID"
  tally "$out"
fi
kill9_target
port=${BOOTSTRAP##*:}
for ((i = 0; i < 100; i++)); do port_open "$port" || break; sleep 0.1; done # the killed JVM lets go of it
restart_target
wire 90 after_restart "$run" $state
tally "$out"
if [[ "$GR_TARGET" == gregord ]]; then # informational: whether the kill landed inside PREPARE_*
  log "$(grep -h 'transactional id(s)' "$GR_TMP/gregord.log" | tail -n 1 || true)"
fi
check "checks ran after kill -9" grep -q '^ok' <<<"$out"
if [[ "$GR_TARGET" == gregord ]]; then # /metrics: the timeout abort after the restart
  metrics=$(python3 -c 'import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())' \
    "http://127.0.0.1:$admin_port/metrics") || true
  check "metrics: one transaction timed out since the restart" grep -qx 'gregor_transactions_timed_out_total 1' <<<"$metrics"
  check "metrics: transactional ids by state" grep -q '^gregor_transactional_ids{state="CompleteAbort"} [1-9]' <<<"$metrics"
fi

# transactional.id.expiration.ms: idle ids are removed, and stay removed across kill -9.
if [[ "$GR_TARGET" == gregord ]]; then
  stop_gregord
  GR_GREGORD_ARGS+=(--override transactional.id.expiration.ms=1500
    --override transaction.remove.expired.transaction.cleanup.interval.ms=200)
  restart_gregord
  read -r _ _ _ pid_f <<<"$state"
  wire 30 expire "$run" "$pid_f" "expiration"
  tally "$out"
  kill9_gregord
  restart_gregord
  wire 30 expire "$run" "$pid_f" "after kill -9"
  tally "$out"
fi
gr_finish
