#!/usr/bin/env bash
# Client quotas, differential (docs/quotas.md): the same DescribeClientQuotas and
# AlterClientQuotas requests, good and bad (tests/integration/quota_differential.py: entity
# types user/client-id/ip, default entities, strict and non-strict filters, validate_only,
# removals, every validation error Kafka's controller and metadata image answer, v0 and v1)
# against Apache Kafka 4.4.0 and gregord; error codes, messages, entities and values must be
# equal (entries compared sorted: both sides answer them in hash-map order).
#   bash tests/integration/test_quota_differential.sh [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
GR_TEST_TIMEOUT="${GR_TEST_TIMEOUT:-240}"
gr_init "$@"
PY="$(gr_venv_dir)/bin/python"
[[ -x "$PY" ]] || PY=python3
[[ "$GR_TARGET" == gregord ]] || die "test_quota_differential.sh runs gregord and the reference itself"
gr_ref_like_overrides
gr_diff_run "$GR_SOURCE_DIR/tests/integration/quota_differential.py" 60
stop_ref_kafka
stop_gregord
gr_finish
