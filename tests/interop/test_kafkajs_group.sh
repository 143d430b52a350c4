#!/usr/bin/env bash
# kafkajs 2.2.4 consumer group (classic protocol): consume and commit, resume from the
# committed offsets in a new consumer, admin fetchOffsets/describeGroups/listGroups/deleteGroups
# (tests/interop/node/kafkajs_group.js).
#   bash tests/interop/test_kafkajs_group.sh [--ref | --bootstrap H:P] [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
gr_require node
NDIR="$GR_SOURCE_DIR/tests/interop/node"
[[ -d "$NDIR/node_modules/kafkajs" ]] || die "kafkajs not installed in $NDIR (run scripts/install-deps.sh)"
start_target --override group.initial.rebalance.delay.ms=0
out="$(cd "$NDIR" && KAFKAJS_NO_PARTITIONER_WARNING=1 gr_timeout 120 node kafkajs_group.js "$BOOTSTRAP" \
  2>"$GR_TMP/node.err")" || true
echo "$out"
GR_PASSED=$((GR_PASSED + $(grep -c '^ok ' <<<"$out" || true)))
GR_FAILED=$((GR_FAILED + $(grep -c '^FAIL ' <<<"$out" || true)))
grep -qx 'done' <<<"$out" || fail "kafkajs program did not finish: $(tail -n 5 "$GR_TMP/node.err")"
stop_target
[[ "$GR_TARGET" == gregord ]] && check_no_sanitizer_report
gr_finish
