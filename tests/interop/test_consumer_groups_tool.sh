#!/usr/bin/env bash
# Kafka 4.4.0's own consumer tools against the classic group protocol:
#  - the Java KafkaConsumer (ConsoleConsumer, group.protocol=classic) consumes a 2-partition
#    topic in a group and commits; again as a static member (group.instance.id) with the
#    cooperative-sticky assignor;
#  - kafka-consumer-groups (ConsumerGroupCommand): --list, --describe (offsets, lag), --describe
#    --members / --state of a live kcat -G member, --reset-offsets --to-earliest --execute,
#    --delete.
#   bash tests/interop/test_consumer_groups_tool.sh [--ref] [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
gr_require java kcat
PY="$(gr_venv_dir)/bin/python"
[[ -x "$PY" ]] || die "python venv missing at $PY (run scripts/install-deps.sh)"
start_target --override num.partitions=2 --override group.initial.rebalance.delay.ms=0
TOOLDIR="$GR_TMP/tool" && mkdir -p "$TOOLDIR"
tool() { gr_timeout 60 bash "$GR_REF_SH" tool "$TOOLDIR" "$@" 2>>"$GR_TMP/tool.err"; }
cgc() { tool org.apache.kafka.tools.consumer.group.ConsumerGroupCommand --bootstrap-server "$BOOTSTRAP" "$@"; }
"$PY" "$GR_SOURCE_DIR/tests/integration/cgroup_client.py" produce "$BOOTSTRAP" jt 2 20 || die "produce failed"

got=$(tool org.apache.kafka.tools.consumer.ConsoleConsumer --bootstrap-server "$BOOTSTRAP" --topic jt --group jg \
  --from-beginning --max-messages 40 --command-property group.protocol=classic | sort | tr '\n' ' ')
want=$( (seq 0 19 | sed 's/^/p0-/'; seq 0 19 | sed 's/^/p1-/') | sort | tr '\n' ' ')
check_eq "Java KafkaConsumer (classic) in group jg read the 40 records" "$want" "$got"
got=$(tool org.apache.kafka.tools.consumer.ConsoleConsumer --bootstrap-server "$BOOTSTRAP" --topic jt --group jgs \
  --from-beginning --max-messages 40 --command-property group.protocol=classic --command-property group.instance.id=s1 \
  --command-property partition.assignment.strategy=org.apache.kafka.clients.consumer.CooperativeStickyAssignor \
  | sort | tr '\n' ' ')
check_eq "Java KafkaConsumer, static member with cooperative-sticky, read the 40 records" "$want" "$got"
check "--list shows jg" eval 'cgc --list | grep -qx jg'
rows=$(cgc --describe --group jg | awk '$1 == "jg" {print $2, $3, $4, $5, $6, $7}' | tr '\n' ';')
check_eq "--describe: both partitions committed at 20, lag 0, no active member" "jt 0 20 20 0 -;jt 1 20 20 0 -;" "$rows"

gr_bg kc timeout -k 5 60 kcat -b "$BOOTSTRAP" -G jg2 jt -X auto.offset.reset=earliest -X client.id=kcat-one \
  >/dev/null 2>"$GR_TMP/kc.err"
members() { cgc --describe --group jg2 --members | awk '$1 == "jg2" {print $(NF-1), $NF}'; }
members_ok() { [[ "$(members)" == "kcat-one 2" ]]; }
poll() { local i; for i in $(seq 1 30); do "$@" && return 0; sleep 1; done; return 1; }
check "--describe --members: one kcat member holding 2 partitions" poll members_ok
state=$(cgc --describe --group jg2 --state | awk '$1 == "jg2" {print $(NF-1), $NF}')
check_eq "--describe --state: Stable, 1 member" "Stable 1" "$state"
kill -TERM "$kc" 2>/dev/null || true
wait "$kc" 2>/dev/null || true

reset=$(cgc --reset-offsets --group jg --topic jt --to-earliest --execute | awk '$1 == "jg" {print $2, $3, $4}' | sort | tr '\n' ';')
check_eq "--reset-offsets --to-earliest --execute" "jt 0 0;jt 1 0;" "$reset"
rows=$(cgc --describe --group jg | awk '$1 == "jg" {print $2, $3, $4, $6}' | tr '\n' ';')
check_eq "--describe after the reset: offsets 0, lag 20" "jt 0 0 20;jt 1 0 20;" "$rows"
check "--delete --group jg" eval 'cgc --delete --group jg | grep -q "successful"'
check "--list no longer shows jg" eval '! cgc --list | grep -qx jg'
stop_target
[[ "$GR_TARGET" == gregord ]] && check_no_sanitizer_report
gr_finish
