#!/usr/bin/env bash
# Java clients 4.4.0 transactions (tests/interop/java/.../JavaTxn.java; transaction protocol 2
# where the broker finalizes transaction.version 2): committed and aborted transactions read by
# read_committed / read_uncommitted KafkaConsumers, an open transaction holding back a later
# commit on its partition until it is aborted, a zombie fenced by a new instance. Passes
# against Apache Kafka 4.4.0 (--ref).
#   bash tests/interop/test_java_txn.sh [--ref | --bootstrap H:P] [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
gr_require java
gr_java_interop JavaTxn
start_target
out="$(gr_timeout 180 java -Xmx256m -cp "$JDIR/target/java-interop-1.jar:$JDIR/target/lib/*" \
  dev.gregor.interop.JavaTxn "$BOOTSTRAP" "jtxn-$RANDOM" 2>"$GR_TMP/java.err")" || true
echo "$out"
GR_PASSED=$((GR_PASSED + $(grep -c '^ok ' <<<"$out" || true)))
GR_FAILED=$((GR_FAILED + $(grep -c '^FAIL ' <<<"$out" || true)))
grep -qx 'done' <<<"$out" || fail "Java program did not finish: $(grep -v '^\s*at ' "$GR_TMP/java.err" | tail -n 5)"
stop_target
gr_finish
