#!/usr/bin/env bash
# @kafkats/client ShareConsumer (npm, pinned by tests/interop/node/package-lock.json; node script
# tests/interop/node/kafkats_share.mjs): 4 share consumers on a 1-partition topic all receive records
# and together receive each record exactly once when all ACCEPT; explicit RELEASE redelivers with
# delivery count 2; REJECT archives (never redelivered); a consumer that stops processing loses its
# records to the others once the acquisition lock expires; share.delivery.count.limit=2 archives a
# record that is always released. Topics and group configs (share.auto.offset.reset=earliest,
# share.record.lock.duration.ms=$GR_SHARE_LOCK_MS) are made with the Java ShareTool (Admin API); the
# broker runs with group.share.min.record.lock.duration.ms=1000.
#   bash tests/interop/test_kafkats_share.sh [--ref | --bootstrap H:P] [--keep]
# Env: GR_SHARE_LOCK_MS (default 3000); GR_KAFKATS_SCENARIOS (subset of: four release reject stall limit).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
gr_require node java
NDIR="$GR_SOURCE_DIR/tests/interop/node"
JDIR="$GR_SOURCE_DIR/tests/interop/java"
[[ -f "$NDIR/node_modules/@kafkats/client/package.json" ]] \
  || die "@kafkats/client not installed in $NDIR (run scripts/install-deps.sh)"
[[ -f "$JDIR/target/java-interop-1.jar" && -d "$JDIR/target/lib" ]] \
  || die "Java interop programs not built in $JDIR/target (run scripts/install-deps.sh)"
LOCK_MS="${GR_SHARE_LOCK_MS:-3000}"
SHARE_BROKER_CFG=(group.share.min.record.lock.duration.ms=1000)
case "$GR_TARGET" in
  gregord) o=(); for kv in "${SHARE_BROKER_CFG[@]}"; do o+=(--override "$kv"); done; start_gregord "${o[@]}" ;;
  ref) start_ref_kafka "${SHARE_BROKER_CFG[@]}" ;;
  *) start_target ;;
esac
log "@kafkats/client $(node -p "require('$NDIR/node_modules/@kafkats/client/package.json').version")"

sharetool() { gr_timeout 120 java -Xmx256m -cp "$JDIR/target/java-interop-1.jar:$JDIR/target/lib/*" dev.gregor.interop.ShareTool "$@"; }
PREFIX="kts-$$"
SCEN=(${GR_KAFKATS_SCENARIOS:-four release reject stall limit})
for s in "${SCEN[@]}"; do
  extra=()
  [[ "$s" == limit ]] && extra=(share.delivery.count.limit=2)
  sharetool topic "$BOOTSTRAP" "$PREFIX-$s" 1 >>"$GR_TMP/sharetool.log" 2>&1 \
    && sharetool group-config "$BOOTSTRAP" "$PREFIX-$s-g" share.auto.offset.reset=earliest \
         "share.record.lock.duration.ms=$LOCK_MS" "${extra[@]}" >>"$GR_TMP/sharetool.log" 2>&1 \
    || die "set-up of $s failed: $(tail -n 3 "$GR_TMP/sharetool.log")"
done

out="$(cd "$NDIR" && gr_timeout 420 node kafkats_share.mjs "$BOOTSTRAP" "$LOCK_MS" "$PREFIX" "${SCEN[@]}" \
  2>"$GR_TMP/node.err")" || true
echo "$out"
GR_PASSED=$((GR_PASSED + $(grep -c '^ok ' <<<"$out" || true)))
GR_FAILED=$((GR_FAILED + $(grep -c '^FAIL ' <<<"$out" || true)))
grep -qx 'done' <<<"$out" || fail "kafkats_share.mjs did not finish: $(tail -n 5 "$GR_TMP/node.err")"
if [[ "$GR_TARGET" == gregord ]] && ! alive "$GR_GREGORD_PID"; then fail "gregord died (log: $GR_TMP/gregord.log)"; fi
stop_target
gr_finish
