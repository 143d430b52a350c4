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
source "$GR_SOURCE_DIR/tests/interop/kafkajs_common.sh"
start_target
kafkajs_run 300 kafkajs_check.js "$BOOTSTRAP" "${GR_KAFKAJS_MESSAGES:-5000}"
stop_target
gr_finish
