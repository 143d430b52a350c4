#!/usr/bin/env bash
# Share-group differential test: the same share-group scenarios
# (tests/integration/share_differential.py) run against the reference Apache Kafka 4.4.0
# (tests/ref/kafka-ref.sh) and against gregord; each run writes a JSON observation of what a
# client sees; the two are diffed and every difference must be on the documented allow-list
# (docs/compatibility-share.md). Scenarios: join (heartbeat until assigned, ShareGroupDescribe),
# fetch_acks (AcquiredRecords, delivery counts, AcquisitionLockTimeoutMs, every ack misuse error,
# RELEASE / REJECT / lock-expiry redelivery), delivery_limit (archival at
# share.delivery.count.limit=2), lag (DescribeShareGroupOffsets v1, spec §6.3 example), admin
# (ListGroups filters, DeleteGroups, Alter/Delete/DescribeShareGroupOffsets errors).
# Both brokers get the same settings, including group.share.min.record.lock.duration.ms=1000 so
# that groups may set a 2 s lock. gregord is observed while Kafka starts.
#   bash tests/integration/test_share_differential.sh [--keep]
# One check per scenario plus a final diff summary; observations and the full report stay in
# the temp dir with --keep (or on failure).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
GR_TEST_TIMEOUT="${GR_TEST_TIMEOUT:-180}"
gr_init "$@"
PY="$(gr_venv_dir)/bin/python"
[[ -x "$PY" ]] || PY=python3   # standard library only
DIFF_PY="$GR_SOURCE_DIR/tests/integration/share_differential.py"

SHARE=(group.share.min.record.lock.duration.ms=1000 group.share.min.delivery.count.limit=2)
gr_ref_like_overrides "${SHARE[@]}"
GR_REF_SETTINGS=("${SHARE[@]}")

gr_diff_run "$DIFF_PY" 120
stop_ref_kafka
stop_gregord
gr_finish
