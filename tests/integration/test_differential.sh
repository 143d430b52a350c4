#!/usr/bin/env bash
# Differential test: the same scenarios (tests/integration/differential.py) run against the
# reference Apache Kafka 4.4.0 (tests/ref/kafka-ref.sh) and against gregord; each run writes a
# JSON observation of what a client sees; the two are diffed and every difference must be on
# the documented allow-list (docs/compatibility-differential.md).
# Scenarios: ApiVersions, Metadata v12, CreateTopics/DeleteTopics/CreatePartitions errors,
# Produce (acks 1/all, idempotent sequences and epochs), Fetch/ListOffsets/DeleteRecords,
# DescribeConfigs/IncrementalAlterConfigs/AlterConfigs, FindCoordinator v4.
# Both brokers get the same settings: the reference's server.properties values, node.id=1,
# auto.create.topics.enable=false. gregord is observed while Kafka starts.
#   bash tests/integration/test_differential.sh [--keep]
# One check per scenario plus a final diff summary; observations and the full report stay in
# the temp dir with --keep (or on failure).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
GR_TEST_TIMEOUT="${GR_TEST_TIMEOUT:-300}"
gr_init "$@"
PY="$(gr_venv_dir)/bin/python"
[[ -x "$PY" ]] || die "python venv missing at $PY (run scripts/install-deps.sh)"
DIFF_PY="$GR_SOURCE_DIR/tests/integration/differential.py"

gr_ref_like_overrides

gr_diff_run "$DIFF_PY" 150
stop_ref_kafka
stop_gregord
gr_finish
