#!/usr/bin/env bash
# Java KafkaProducer 4.4.0 transactions end to end (tests/interop/java/.../JavaTransactions.java):
# commit, abort, zombie fencing, the coordinator's timeout abort, a read_committed KafkaConsumer
# reading exactly the committed records, and an exactly-once consume-transform-produce loop with
# sendOffsetsToTransaction. Needs both halves of transactions: the coordinator and the log side
# (transactional batches, markers, read_committed).
#   bash tests/interop/test_java_transactions.sh [--ref | --bootstrap H:P] [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
gr_require java
gr_java_interop JavaTransactions
if [[ "$GR_TARGET" == ref ]]; then
  start_ref_kafka transaction.abort.timed.out.transaction.cleanup.interval.ms=500
else
  start_target --override transaction.abort.timed.out.transaction.cleanup.interval.ms=500
fi
out="$(gr_timeout 150 java -Xmx256m -cp "$JDIR/target/java-interop-1.jar:$JDIR/target/lib/*" \
  dev.gregor.interop.JavaTransactions "$BOOTSTRAP" "jt$RANDOM" 2>"$GR_TMP/java.err")" || true
echo "$out"
GR_PASSED=$((GR_PASSED + $(grep -c '^ok ' <<<"$out" || true)))
GR_FAILED=$((GR_FAILED + $(grep -c '^FAIL ' <<<"$out" || true)))
grep -q '^done' <<<"$out" || fail "Java program did not finish: $(grep -v '^\s*at ' "$GR_TMP/java.err" | tail -n 5)"
gr_finish
