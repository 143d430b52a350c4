#!/usr/bin/env bash
# kafkajs 2.2.4 (npm, pinned by tests/interop/node/package-lock.json): admin creates, lists,
# describes (fetchTopicMetadata, describeConfigs), alters (alterConfigs) and deletes topics;
# an idempotent producer (maxInFlightRequests 1, acks -1, gzip) sends N messages;
# fetchTopicOffsets checks the offsets.
#   bash tests/interop/test_kafkajs.sh [--ref | --bootstrap H:P] [--keep]
# Env: GR_KAFKAJS_MESSAGES (default 5000).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
gr_require node
NDIR="$GR_SOURCE_DIR/tests/interop/node"
[[ -d "$NDIR/node_modules/kafkajs" ]] || die "kafkajs not installed in $NDIR (run scripts/install-deps.sh)"
start_target
out="$(cd "$NDIR" && KAFKAJS_NO_PARTITIONER_WARNING=1 gr_timeout 300 node kafkajs_check.js \
  "$BOOTSTRAP" "${GR_KAFKAJS_MESSAGES:-5000}" 2>"$GR_TMP/node.err")" || true
echo "$out"
GR_PASSED=$((GR_PASSED + $(grep -c '^ok ' <<<"$out" || true)))
GR_FAILED=$((GR_FAILED + $(grep -c '^FAIL ' <<<"$out" || true)))
grep -qx 'done' <<<"$out" || fail "kafkajs program did not finish: $(tail -n 5 "$GR_TMP/node.err")"
stop_target
gr_finish
