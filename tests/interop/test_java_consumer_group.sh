#!/usr/bin/env bash
# The Java KafkaConsumer 4.4.0 with group.protocol=consumer (KIP-848,
# tests/interop/java/.../JavaConsumerGroup.java): two members split a 4-partition topic 2/2
# through the server-side uniform assignor, one leaves and the other takes all 4 over, every
# record is consumed, a new member resumes at the committed offsets; a broker-side regex
# subscription (SubscriptionPattern); group.remote.assignor=range seen by describeConsumerGroups;
# and on the classic protocol, static members (group.instance.id) with the cooperative-sticky
# assignor: a 2/2 split, and a member restarted under its instance id gets its partitions back
# while the other keeps its own.
# Then a group with a member still revoking survives kill -9 (tests/integration/cgroup_consumer_restart.py):
# epochs, members and partitions come back and reconciliation carries on.
# gregord runs with a 1 s heartbeat interval (Kafka's floor is 5 s) so reconciliation is quick.
#   bash tests/interop/test_java_consumer_group.sh [--ref | --bootstrap H:P] [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
gr_require java
gr_java_interop JavaConsumerGroup
start_target --override auto.create.topics.enable=false --override group.consumer.heartbeat.interval.ms=1000 \
  --override group.consumer.min.heartbeat.interval.ms=500
out="$(gr_timeout 120 java -Xmx256m -cp "$JDIR/target/java-interop-1.jar:$JDIR/target/lib/*" \
  dev.gregor.interop.JavaConsumerGroup "$BOOTSTRAP" j848 2>"$GR_TMP/java.err")" || true
echo "$out"
GR_PASSED=$((GR_PASSED + $(grep -c '^ok ' <<<"$out" || true)))
GR_FAILED=$((GR_FAILED + $(grep -c '^FAIL ' <<<"$out" || true)))
grep -q '^done' <<<"$out" || fail "Java program did not finish: $(grep -v '^\s*at ' "$GR_TMP/java.err" | tail -n 5)"

RS="$GR_SOURCE_DIR/tests/integration/cgroup_consumer_restart.py"
out="$(gr_timeout 60 python3 "$RS" setup "$BOOTSTRAP" "$GR_TMP/kr.json" 2>&1)" || fail "restart setup: $out"
kill9_target
restart_target
out+=$'\n'"$(gr_timeout 60 python3 "$RS" check "$BOOTSTRAP" "$GR_TMP/kr.json" 2>&1)" || true
echo "$out"
GR_PASSED=$((GR_PASSED + $(grep -c '^ok ' <<<"$out" || true)))
GR_FAILED=$((GR_FAILED + $(grep -c '^FAIL ' <<<"$out" || true)))
stop_target
[[ "$GR_TARGET" != gregord ]] || check_no_sanitizer_report

# Kafka's start-up checks of the group.consumer.* bounds (GroupCoordinatorConfig).
if [[ "$GR_TARGET" == gregord ]]; then
  for kv in "group.consumer.heartbeat.interval.ms=50000|group.consumer.heartbeat.interval.ms must be less than or equal to group.consumer.max.heartbeat.interval.ms" \
    "group.consumer.session.timeout.ms=1000|group.consumer.session.timeout.ms must be greater than or equal to group.consumer.min.session.timeout.ms" \
    "group.consumer.max.heartbeat.interval.ms=60000 --override group.consumer.heartbeat.interval.ms=50000|group.consumer.heartbeat.interval.ms must be less than group.consumer.session.timeout.ms"; do
    # shellcheck disable=SC2086
    msg="$(gr_timeout 20 "$(gregord_bin)" --override "listeners=PLAINTEXT://127.0.0.1:0" \
      --override "log.dirs=$GR_TMP/bad-config" --override ${kv%%|*} 2>&1 | tail -n 1)" && rc=0 || rc=$?
    [[ $rc -ne 0 && "$msg" == *"${kv#*|}" ]] && ok "refused at start-up: ${kv%%|*}" \
      || fail "start-up with ${kv%%|*}: rc $rc, $msg"
  done
fi
gr_finish
