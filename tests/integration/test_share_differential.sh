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

# As tests/integration/test_differential.sh: the reference's server.properties values for
# gregord (minus transaction.state.log.num.partitions and the CONTROLLER listener), plus the
# share-group broker settings given to both brokers.
COMMON=(
  node.id=1 process.roles=broker,controller controller.listener.names=CONTROLLER
  controller.quorum.voters=1@127.0.0.1:9 inter.broker.listener.name=PLAINTEXT
  listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
  num.partitions=1 default.replication.factor=1
  offsets.topic.replication.factor=1 offsets.topic.num.partitions=1
  share.coordinator.state.topic.replication.factor=1 share.coordinator.state.topic.min.isr=1
  share.coordinator.state.topic.num.partitions=1
  transaction.state.log.replication.factor=1 transaction.state.log.min.isr=1
  group.initial.rebalance.delay.ms=0 auto.create.topics.enable=false
)
SHARE=(group.share.min.record.lock.duration.ms=1000 group.share.min.delivery.count.limit=2)
overrides=()
for kv in "${COMMON[@]}" "${SHARE[@]}"; do overrides+=(--override "$kv"); done

observe() { # observe NAME BOOTSTRAP
  gr_timeout 120 "$PY" -W ignore "$DIFF_PY" observe "$2" "$GR_TMP/obs.$1.json" 2>"$GR_TMP/observe.$1.err"
}

t0=$(date +%s)
start_gregord "${overrides[@]}"
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
((ref_rc == 0)) || fail "observing Apache Kafka exited $ref_rc: $(tail -n 5 "$GR_TMP/observe.kafka.err")"
((greg_rc == 0)) || fail "observing gregord exited $greg_rc: $(tail -n 5 "$GR_TMP/observe.gregord.err")"
alive "$GR_GREGORD_PID" || fail "gregord died during the scenarios (log: $GR_TMP/gregord.log)"
[[ -s "$GR_TMP/obs.kafka.json" && -s "$GR_TMP/obs.gregord.json" ]] || die "an observation is missing"

out="$("$PY" "$DIFF_PY" diff "$GR_TMP/obs.kafka.json" "$GR_TMP/obs.gregord.json" "$GR_TMP/diff-report.txt")" || true
echo "$out" | grep -v '^\(ok  \|FAIL\) - ' || true
while IFS= read -r line; do
  case "$line" in
    "ok   - "*) ok "${line#ok   - }" ;;
    "FAIL - "*) fail "${line#FAIL - }" ;;
  esac
done < <(grep -E '^(ok  |FAIL) - ' <<<"$out")
summary="$(grep '^diff summary:' <<<"$out" || true)"
if [[ "$summary" == *" 0 unexplained"* ]]; then
  ok "$summary"
else
  fail "${summary:-diff did not finish} (full report: $GR_TMP/diff-report.txt)"
fi
stop_ref_kafka
stop_gregord
gr_finish
