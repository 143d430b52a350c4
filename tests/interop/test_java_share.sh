#!/usr/bin/env bash
# Java KafkaShareConsumer 4.4.0 (Maven, tests/interop/java JavaShare): every share-consumer example
# of KIP-932's usage patterns with the outcome they describe -- implicit mode with
# poll and with commitSync, explicit ACCEPT/REJECT with commitSync, explicit RELEASE (redelivered,
# deliveryCount 2), RENEW for processing longer than several lock durations (acquisitionLockTimeoutMs,
# no redelivery to a second member), wakeup() shutdown, close() releasing unacknowledged records.
# Groups get share.auto.offset.reset=earliest and share.record.lock.duration.ms=$GR_SHARE_LOCK_MS via
# Admin incrementalAlterConfigs (GROUP); the broker runs with group.share.min.record.lock.duration.ms=1000.
#   bash tests/interop/test_java_share.sh [--ref | --bootstrap H:P] [--keep]
# Env: GR_SHARE_LOCK_MS (default 3000); GR_JAVA_SHARE_SCENARIOS (space-separated subset of
#   implicit_poll implicit_commit explicit_accept_reject explicit_release renew wakeup
#   close_release_explicit close_release_implicit; default all). About 2 minutes.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
gr_require java
JDIR="$GR_SOURCE_DIR/tests/interop/java"
[[ -f "$JDIR/target/java-interop-1.jar" && -d "$JDIR/target/lib" ]] \
  || die "Java interop programs not built in $JDIR/target (run scripts/install-deps.sh)"
unzip -l "$JDIR/target/java-interop-1.jar" 2>/dev/null | grep 'dev/gregor/interop/JavaShare.class' >/dev/null \
  || die "JavaShare missing from $JDIR/target/java-interop-1.jar (rebuild: scripts/install-deps.sh)"
LOCK_MS="${GR_SHARE_LOCK_MS:-3000}"
SHARE_BROKER_CFG=(group.share.min.record.lock.duration.ms=1000)

case "$GR_TARGET" in
  gregord) o=(); for kv in "${SHARE_BROKER_CFG[@]}"; do o+=(--override "$kv"); done; start_gregord "${o[@]}" ;;
  ref) start_ref_kafka "${SHARE_BROKER_CFG[@]}" ;;
  *) start_target ;;
esac

out="$(gr_timeout 480 java -Xmx256m -cp "$JDIR/target/java-interop-1.jar:$JDIR/target/lib/*" \
  dev.gregor.interop.JavaShare "$BOOTSTRAP" "$LOCK_MS" ${GR_JAVA_SHARE_SCENARIOS:-} 2>"$GR_TMP/java.err")" || true
echo "$out"
GR_PASSED=$((GR_PASSED + $(grep -c '^ok ' <<<"$out" || true)))
GR_FAILED=$((GR_FAILED + $(grep -c '^FAIL ' <<<"$out" || true)))
grep -qx 'done' <<<"$out" \
  || fail "JavaShare did not finish: $(grep -v '^\s*at ' "$GR_TMP/java.err" | tail -n 5)"
if [[ "$GR_TARGET" == gregord ]] && ! alive "$GR_GREGORD_PID"; then fail "gregord died (log: $GR_TMP/gregord.log)"; fi
stop_target
gr_finish
