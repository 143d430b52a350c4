#!/usr/bin/env bash
# Transactions end to end, the log side's view: a kafkajs transactional producer commits A,
# aborts B, commits C and leaves D open (tests/interop/node/txn_scenario.js). Then:
# kcat (librdkafka) read_committed reads exactly a1 a2 c1 and read_uncommitted every record;
# Fetch's LastStableOffset and AbortedTransactions, ListOffsets LATEST per isolation level and
# DescribeProducers give Apache Kafka 4.4.0's values (tests/integration/txn_log_wire.py; the
# same script passes with --ref); on gregord the same holds after kill -9 and restart; finally
# the coordinator aborts D on its transaction timeout and the LSO reaches the high watermark.
#   bash tests/interop/test_txn_read_committed.sh [--ref] [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
gr_require python3 kcat
source "$GR_SOURCE_DIR/tests/interop/kafkajs_common.sh"
export PYTHONPATH="$GR_SOURCE_DIR/tests/integration${PYTHONPATH:+:$PYTHONPATH}"
W="$GR_SOURCE_DIR/tests/integration/txn_log_wire.py"
start_target
topic="txn-rc-$RANDOM"

# wire_checks STATE: txn_log_wire.py's scenario checks, counted here
wire_checks() {
  local out
  out="$(gr_timeout 60 python3 "$W" "$BOOTSTRAP" "$topic" "scenario-$1" 2>&1)" || true
  echo "$out"
  GR_PASSED=$((GR_PASSED + $(grep -c '^ok ' <<<"$out" || true)))
  GR_FAILED=$((GR_FAILED + $(grep -c '^FAIL ' <<<"$out" || true)))
}
# kcat_read ISOLATION: the values, space-separated
kcat_read() {
  gr_timeout 30 kcat -C -b "$BOOTSTRAP" -t "$topic" -o beginning -e -q -f '%s ' \
    -X isolation.level="$1" 2>>"$GR_TMP/kcat.err" || true
}

kafkajs_run 60 txn_scenario.js "$BOOTSTRAP" "$topic"
check_eq "kcat read_committed with D open" "a1 a2 c1 " "$(kcat_read read_committed)"
check_eq "kcat read_uncommitted" "a1 a2 b1 b2 c1 d1 " "$(kcat_read read_uncommitted)"
wire_checks open

if [[ "$GR_TARGET" == gregord ]]; then
  kill9_target
  restart_target
  wire_checks open # the open transaction and the aborted index survive kill -9
fi

# The coordinator aborts D once its 8 s timeout passed (Kafka looks every 10 s).
for _ in $(seq 1 60); do
  [[ "$(kcat_read read_uncommitted)" == "a1 a2 b1 b2 c1 d1 " ]] || break
  lso="$(gr_timeout 20 python3 -c 'import sys, txn_log_wire as t, produce_fetch_wire as w
print(t.fetch_full(w.Conn(sys.argv[1]), sys.argv[2], 0, 1)["lso"])' "$BOOTSTRAP" "$topic")"
  [[ "$lso" == 10 ]] && break
  sleep 0.5
done
wire_checks aborted
check_eq "kcat read_committed after the timeout abort" "a1 a2 c1 " "$(kcat_read read_committed)"
stop_target
gr_finish
