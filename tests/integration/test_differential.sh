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

# gregord gets the settings tests/ref/kafka-ref.sh writes into the reference's
# server.properties (so both report them as STATIC_BROKER_CONFIG), except the
# transaction.state.log.num.partitions gregord does not know (no transactions) and the controller
# listener itself (gregord has no KRaft quorum; the voter's port is never used).
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
overrides=()
for kv in "${COMMON[@]}"; do overrides+=(--override "$kv"); done

observe() { # observe NAME BOOTSTRAP
  gr_timeout 150 "$PY" -W ignore "$DIFF_PY" observe "$2" "$GR_TMP/obs.$1.json" 2>"$GR_TMP/observe.$1.err"
}

t0=$(date +%s)
start_gregord "${overrides[@]}"
GREGORD_BOOT="$BOOTSTRAP"
observe gregord "$GREGORD_BOOT" &
obs_pid=$!
GR_PIDS+=("$obs_pid")

start_ref_kafka auto.create.topics.enable=false
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
