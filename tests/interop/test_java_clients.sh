#!/usr/bin/env bash
# Java clients 4.4.0 (Maven): Admin createTopics (validateOnly, duplicate, bad replication
# factor), describeTopics, describeConfigs, incrementalAlterConfigs (SET/DELETE), an
# idempotent acks=all KafkaProducer, listOffsets, KafkaConsumer read-back, deleteTopics.
#   bash tests/interop/test_java_clients.sh [--ref | --bootstrap H:P] [--keep]
# Env: GR_JAVA_MESSAGES (default 10000).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
gr_require java
gr_java_interop
start_target
out="$(gr_timeout 300 java -Xmx256m -cp "$JDIR/target/java-interop-1.jar:$JDIR/target/lib/*" \
  dev.gregor.interop.JavaClients "$BOOTSTRAP" "${GR_JAVA_MESSAGES:-10000}" 2>"$GR_TMP/java.err")" || true
echo "$out"
GR_PASSED=$((GR_PASSED + $(grep -c '^ok ' <<<"$out" || true)))
GR_FAILED=$((GR_FAILED + $(grep -c '^FAIL ' <<<"$out" || true)))
grep -q 'describeTopics of a deleted topic' <<<"$out" \
  || fail "Java program did not finish: $(grep -v '^\s*at ' "$GR_TMP/java.err" | tail -n 5)"
stop_target
gr_finish
