#!/usr/bin/env bash
# Java KafkaShareConsumer 4.4.0 with a share group whose share.isolation.level is read_committed, fed
# by Java transactional KafkaProducers (tests/interop/java/.../JavaShareRc.java), on one partition:
# committed records only, nothing at or beyond an open transaction's first offset until it commits,
# then the records behind it in offset order, aborted records never (archived: lag 0);
# read_uncommitted gets all. On gregord and, with --ref, Apache Kafka 4.4.0 (ctest
# ref/test_java_share_rc).
#   bash tests/interop/test_java_share_rc.sh [--ref | --bootstrap H:P] [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
gr_require java
gr_java_interop JavaShareRc
start_target
out="$(gr_timeout 120 java -Xmx256m -cp "$JDIR/target/java-interop-1.jar:$JDIR/target/lib/*" \
  dev.gregor.interop.JavaShareRc "$BOOTSTRAP" 2>"$GR_TMP/java.err")" || true
echo "$out"
GR_PASSED=$((GR_PASSED + $(grep -c '^ok ' <<<"$out" || true)))
GR_FAILED=$((GR_FAILED + $(grep -c '^FAIL ' <<<"$out" || true)))
grep -qx 'done' <<<"$out" || fail "JavaShareRc did not finish: $(grep -v '^\s*at ' "$GR_TMP/java.err" | tail -n 5)"
if [[ "$GR_TARGET" == gregord ]]; then
  alive "$GR_GREGORD_PID" || fail "gregord died (log: $GR_TMP/gregord.log)"
  check_no_sanitizer_report
fi
stop_target
gr_finish
