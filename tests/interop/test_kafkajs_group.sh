#!/usr/bin/env bash
# kafkajs 2.2.4 consumer group (classic protocol): consume and commit, resume from the
# committed offsets in a new consumer, admin fetchOffsets/describeGroups/listGroups/deleteGroups
# (tests/interop/node/kafkajs_group.js).
#   bash tests/interop/test_kafkajs_group.sh [--ref | --bootstrap H:P] [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
source "$GR_SOURCE_DIR/tests/interop/kafkajs_common.sh"
start_target --override group.initial.rebalance.delay.ms=0
kafkajs_run 120 kafkajs_group.js "$BOOTSTRAP"
stop_target
[[ "$GR_TARGET" == gregord ]] && check_no_sanitizer_report
gr_finish
