#!/usr/bin/env bash
# The KIP-848 consumer protocol against Apache Kafka 4.4.0 (tests/ref/kafka-ref.sh): request
# checks and their messages, unknown group/member, FENCED_MEMBER_EPOCH, reconciliation of two
# members (revocation before assignment), the OffsetCommit member-epoch rules, static members,
# the range assignor and regex subscriptions, and the one namespace with share and classic groups
# (tests/integration/cgroup_consumer_differential.py), the consumer.* group configs and the
# heartbeat interval a group's override gives its members, diffed under its allow-list.
#   bash tests/integration/test_cgroup_consumer_differential.sh [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
GR_TEST_TIMEOUT="${GR_TEST_TIMEOUT:-240}"
gr_init "$@"
[[ "$GR_TARGET" == gregord ]] || die "test_cgroup_consumer_differential compares gregord with the reference itself; no --ref"
PY="$(gr_venv_dir)/bin/python"
[[ -x "$PY" ]] || PY=python3 # standard library only
# lets a group set consumer.heartbeat.interval.ms=2000 and consumer.session.timeout.ms=2500
# (scenario group_config); the defaults stay 5000 and 45000
LOW_MINS=(group.consumer.min.heartbeat.interval.ms=1000 group.consumer.min.session.timeout.ms=1000)
gr_ref_like_overrides "${LOW_MINS[@]}"
GR_REF_SETTINGS=("${LOW_MINS[@]}")
gr_diff_run "$GR_SOURCE_DIR/tests/integration/cgroup_consumer_differential.py" 120
stop_ref_kafka
stop_gregord
check_no_sanitizer_report
gr_finish
