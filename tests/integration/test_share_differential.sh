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

observe() { # observe NAME BOOTSTRAP
  gr_timeout 120 "$PY" -W ignore "$DIFF_PY" observe "$2" "$GR_TMP/obs.$1.json" 2>"$GR_TMP/observe.$1.err"
}

t0=$(date +%s)
start_gregord "${GR_OVERRIDES[@]}"
GREGORD_BOOT="$BOOTSTRAP"
observe gregord "$GREGORD_BOOT" &
obs_pid=$!
GR_PIDS+=("$obs_pid")

start_ref_kafka auto.create.topics.enable=false "${SHARE[@]}"
REF_BOOT="$BOOTSTRAP"
ref_rc=0
observe kafka "$REF_BOOT" || ref_rc=$?
greg_rc=0
wait "$obs_pid" || greg_rc=$?
log "observations done after $(( $(date +%s) - t0 )) s"
gr_diff_verdict "$DIFF_PY" "$ref_rc" "$greg_rc"
stop_ref_kafka
stop_gregord
gr_finish
