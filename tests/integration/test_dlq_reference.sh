#!/usr/bin/env bash
# The share-group dead-letter queue (KIP-1191) of Apache Kafka 4.4.0 as a reference test
# (issue 14 item 2; docs/dlq.md). Runs the scenarios of tests/integration/dlq_reference.py
# against one broker and compares what a client observes with the capture committed in
# tests/data/dlq-4.4.0/observation.normalized.json (records, headers, configs, errors).
#
#   bash tests/integration/test_dlq_reference.sh            gregord (make test; about 35 s)
#   bash tests/integration/test_dlq_reference.sh --ref      the reference (about 90 s)
#   bash tests/integration/test_dlq_reference.sh --ref --capture  also rewrite tests/data/dlq-4.4.0/
#                                                           (raw observation, transcripts, metrics)
# Against gregord the waits are shorter (DLQ_FAST=1: gregord writes the DLQ records before it
# answers the acknowledgement, so there is no late write to wait for), and the refusal texts
# are checked in gregord's log as in Kafka's.
set -euo pipefail
CAPTURE=0
args=()
for a in "$@"; do
  if [[ "$a" == --capture ]]; then CAPTURE=1; else args+=("$a"); fi
done
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
GR_TEST_TIMEOUT="${GR_TEST_TIMEOUT:-600}"
gr_init "${args[@]}"
PY="$(gr_venv_dir)/bin/python"
[[ -x "$PY" ]] || PY=python3 # standard library only
DLQ_PY="$GR_SOURCE_DIR/tests/integration/test_dlq_reference.py"
DATA="$GR_SOURCE_DIR/tests/data/dlq-4.4.0"
EXPECTED="$DATA/observation.normalized.json"
((CAPTURE == 0)) || [[ "$GR_TARGET" == ref ]] || die "--capture needs --ref"

# Both brokers: Kafka's defaults for the DLQ (prefix dlq., auto-create off), 1 s locks allowed.
PROPS=(group.share.min.record.lock.duration.ms=1000 auto.create.topics.enable=false)
JMX_PORT=""
case "$GR_TARGET" in
  ref)
    # JMX on a free port, only to read the DeadLetterQueue* meters (kafka-ref.sh passes
    # KAFKA_REF_HEAP to the JVM unquoted).
    JMX_PORT="$(free_port)"
    export KAFKA_REF_HEAP="-Xmx512m -Xms128m -Dcom.sun.management.jmxremote -Dcom.sun.management.jmxremote.port=$JMX_PORT -Dcom.sun.management.jmxremote.rmi.port=$JMX_PORT -Dcom.sun.management.jmxremote.authenticate=false -Dcom.sun.management.jmxremote.ssl=false -Djava.rmi.server.hostname=127.0.0.1"
    start_ref_kafka "${PROPS[@]}"
    ;;
  gregord)
    ov=()
    for kv in "${PROPS[@]}" num.partitions=1 share.coordinator.state.topic.replication.factor=1 \
      offsets.topic.replication.factor=1; do ov+=(--override "$kv"); done
    start_gregord "${ov[@]}"
    export DLQ_FAST=1
    ;;
  *) die "test_dlq_reference.sh runs against --ref or gregord (it changes features and broker configs)" ;;
esac

tool() { gr_timeout 90 bash "$GR_REF_SH" tool "$GR_REF_DIR" "$@" 2>&1 | grep -v '^\[' || true; }
if ((CAPTURE)); then
  mkdir -p "$DATA"
  {
    echo "# kafka-features.sh (org.apache.kafka.tools.FeatureCommand) against a fresh tests/ref/kafka-ref.sh broker"
    echo "\$ kafka-features.sh --bootstrap-server B describe"
    tool org.apache.kafka.tools.FeatureCommand --bootstrap-server "$BOOTSTRAP" describe
    echo
    echo "\$ kafka-features.sh --bootstrap-server B version-mapping --release-version 4.4"
    tool org.apache.kafka.tools.FeatureCommand --bootstrap-server "$BOOTSTRAP" version-mapping --release-version 4.4
    echo
    echo "\$ kafka-features.sh --bootstrap-server B upgrade --feature share.version=2 --dry-run"
    tool org.apache.kafka.tools.FeatureCommand --bootstrap-server "$BOOTSTRAP" upgrade --feature share.version=2 --dry-run
  } >"$GR_TMP/features-before.txt"
fi

rc=0
gr_timeout 420 "$PY" -W ignore "$DLQ_PY" observe main "$BOOTSTRAP" "$GR_TMP/obs.json" 2>"$GR_TMP/observe.err" || rc=$?
((rc == 0)) || fail "observing $GR_TARGET exited $rc: $(tail -n 5 "$GR_TMP/observe.err")"
[[ -s "$GR_TMP/obs.json" ]] || die "no observation (stderr: $GR_TMP/observe.err)"
"$PY" "$DLQ_PY" normalize "$GR_TMP/obs.json" "$GR_TMP/obs.normalized.json"

SERVER_LOG="${GR_REF_DIR:-}/server.log"
[[ "$GR_TARGET" == ref ]] || SERVER_LOG="$GR_TMP/gregord.log"
if true; then
  # The refusals at write time are visible only in the broker's log (and as empty DLQ topics).
  for want in \
    "Configured DLQ topic name does not comply with the DLQ topic prefix in share group: dlqr-np-g, topic: noprefix-dlq, prefix: dlq.." \
    "DLQ topic does not exist and auto create is disabled on cluster for share group: dlqr-ms-g, topic: dlq.missing." \
    "DLQ is not enabled on configured DLQ topic for share group: dlqr-nf-g, topic: dlq.noflag."; do
    grep -qF -- "$want" "$SERVER_LOG" && ok "$GR_TARGET logs: $want" || fail "$GR_TARGET's log lacks: $want"
  done
fi

if ((CAPTURE)); then
  cp "$GR_TMP/obs.json" "$DATA/observation.raw.json"
  cp "$GR_TMP/obs.normalized.json" "$EXPECTED"
  {
    cat "$GR_TMP/features-before.txt"
    echo
    echo "# after dlq_reference.py (UpdateFeatures share.version=2 UPGRADE on the wire)"
    echo "\$ kafka-features.sh --bootstrap-server B describe"
    tool org.apache.kafka.tools.FeatureCommand --bootstrap-server "$BOOTSTRAP" describe
  } >"$DATA/features.txt"
  {
    echo "# JmxTool --object-name 'kafka.server:type=ShareGroupMetrics,name=DeadLetterQueue*,*' after the scenarios"
    gr_timeout 60 bash "$GR_REF_SH" tool "$GR_REF_DIR" org.apache.kafka.tools.JmxTool \
      --jmx-url "service:jmx:rmi:///jndi/rmi://127.0.0.1:$JMX_PORT/jmxrmi" \
      --object-name 'kafka.server:type=ShareGroupMetrics,name=DeadLetterQueue*,*' --one-time true \
      --report-format tsv 2>/dev/null | "$PY" -c '
import sys
for l in sorted(sys.stdin):
    k, _, v = l.rstrip("\n").partition("\t")
    if k.endswith((":Count", ":EventType", ":RateUnit")):
        print("%s = %s" % (k, v))'
  } >"$DATA/metrics.txt"
  {
    echo "# server.log lines of the reference about the DLQ (ERROR and the exception after it)"
    grep -A1 -E "Failed to write to DLQ|DLQ" "$GR_REF_DIR/server.log" | grep -v '^--$' | grep -E "DLQ|Exception" |
      sed -E 's/^\[[0-9-]+ [0-9:,]+\] //' | grep -v "^\s*at " | sort -u
  } >"$DATA/server-log-dlq.txt"
  log "capture written to $DATA"
fi

[[ -s "$EXPECTED" ]] || die "no committed capture at $EXPECTED (run with --ref --capture)"
out="$("$PY" "$DLQ_PY" diff "$EXPECTED" "$GR_TMP/obs.normalized.json" "$GR_TMP/diff-report.txt")" || true
echo "$out" | grep -v '^\(ok  \|FAIL\) - ' | sed 's/gregord/this run/g' | head -n 60 || true
while IFS= read -r line; do
  case "$line" in
    "ok   - "*) ok "${line#ok   - }" ;;
    "FAIL - "*) fail "${line#FAIL - }" ;;
  esac
done < <(grep -E '^(ok  |FAIL) - ' <<<"$out" | sed 's/gregord observes as Apache Kafka does/same as the capture/; s/from Apache Kafka/from the capture/')

# The facts docs/dlq.md states, checked on their own (so a re-capture cannot silently change them).
rc=0
"$PY" - "$GR_TMP/obs.normalized.json" "$GR_TARGET" >"$GR_TMP/facts.out" <<'EOF' || rc=$?
import json, sys
o = json.load(open(sys.argv[1]))
bad = 0
def want(desc, fn, exp):
    global bad
    try:
        got = fn()
    except Exception as e:  # noqa: BLE001 - a missing observation fails the check
        got = "no value: %r" % e
    if got == exp:
        print("ok - %s" % desc)
    else:
        bad += 1
        print("FAIL - %s: got %r, expected %r" % (desc, got, exp))
def safe(fn, dflt=None):
    try:
        return fn()
    except Exception:  # noqa: BLE001
        return [] if dflt is None else dflt
def recs(x):
    return x["dlq"]["records"]
def hdr(r):
    return [(h["key"], h["value"]) for h in r["headers"]]
want("share.version supported 0..2 (ApiVersions v4)", lambda: o["features_initial"]["v4"]["supported_share_version"], [0, 2])
want("share.version finalized 2 on a fresh node", lambda: o["fresh_features"]["finalized_share_version_fresh"], [2, 2])
want("UpdateFeatures share.version=1 SAFE_DOWNGRADE", lambda: o["fresh_features"]["safe_downgrade_1"]["error"], 0)
want("share.version finalized 1 after the downgrade", lambda: o["features_initial"]["v4"]["finalized_share_version"], [1, 1])
want("UpdateFeatures share.version=2 UPGRADE", lambda: o["upgrade"]["upgrade_2"]["error"], 0)
want("finalized 2 after UpdateFeatures", lambda: o["upgrade"]["finalized_after_upgrade"], [2, 2])
want("share.version=1: nothing dead-lettered", lambda: o["no_feature"]["dlq"]["records"], [])
want("share.version=1: the REJECTed records are not dead-lettered after the upgrade either",
     lambda: o["upgrade"]["v1_group_dlq_after_upgrade"]["records"], [])
want("group config: a name starting with __ is refused",
     lambda: o["configs"]["validate name='__dlq'"], {"error": 40, "message": "errors.deadletterqueue.topic.name: DLQ topic name must not start with '__'"})
want("group config: a name without the prefix is accepted", lambda: o["configs"]["validate name='no-prefix'"]["error"], 0)
r = safe(lambda: recs(o["reject_nocopy"]))
want("REJECT, copy off: one DLQ record per rejected offset", lambda: len(r), 3)
want("REJECT, copy off: headers of p0 offset 1", lambda: hdr(r[0]), [
    ("__dlq.errors.topic", "dlqr-src"), ("__dlq.errors.partition", "0"), ("__dlq.errors.offset", "1"),
    ("__dlq.errors.group", "dlqr-nc-g"), ("__dlq.errors.delivery.count", "1"),
    ("__dlq.errors.message", "Offset rejected by client.")])
want("REJECT, copy off: null key and value", lambda: (r[0]["key_hex"], r[0]["value_hex"]), (None, None))
want("DLQ timestamp is the write time, not the source's", lambda: (r[0]["timestamp_is_source_timestamp"],
     r[0]["timestamp_within_60s_of_ack"]), (False, True))
r = safe(lambda: recs(o["reject_copy"]))
want("REJECT, copy on: key and value copied, source headers not", lambda: (r[0]["key"], r[0]["value"], len(r[0]["headers"])),
     ("k-0-1", "v-0-1", 6))
want("REJECT, copy on: DLQ partition = source partition mod DLQ partitions", lambda: [x["dlq_partition"] for x in r], [0, 0, 1])
r = safe(lambda: recs(o["delivery_limit"]))
want("delivery limit 2: 4 records, count 2, message",
     lambda: sorted({(dict(hdr(x))["__dlq.errors.delivery.count"], dict(hdr(x))["__dlq.errors.message"]) for x in r}) + [len(r)],
     [("2", "Offset delivery count exceeded the threshold."), 4])
want("delivery limit, copy on: a null source value stays null", lambda: (r[3]["key"], r[3]["value_hex"]), ("k-0-3", None))
r = safe(lambda: recs(o["lock_timeout"]))
want("lock timeout at the limit: same message as the delivery limit",
     lambda: sorted({dict(hdr(x))["__dlq.errors.message"] for x in r}) + [len(r)], ["Offset delivery count exceeded the threshold.", 4])
for k in ("no_prefix", "missing_topic", "topic_without_flag"):
    x = safe(lambda: o["refusals"][k], {})
    want("refused DLQ (%s): nothing written, record archived (not redelivered)" % k,
         lambda: (x["dlq_high_watermark"] in (0, None), x["redelivered_after"]), (True, {"0": []}))
want("missing DLQ topic with auto-create off: not created", lambda: o["refusals"]["missing_topic"]["dlq_topic_after"], 3)
a = safe(lambda: o["autocreate"]["prefixed"], {})
want("auto-create: the topic is made with 1 partition (num.partitions)", lambda: a["metadata"]["partitions"], [{"index": 0, "replicas": 1}])
want("auto-create: errors.deadletterqueue.group.enable=true, message.timestamp.type=CreateTime set on it",
     lambda: (a["describe_topic"]["configs"]["errors.deadletterqueue.group.enable"]["value"],
      a["describe_topic"]["configs"]["errors.deadletterqueue.group.enable"]["source"],
      a["describe_topic"]["configs"]["message.timestamp.type"]["source"]), ("true", "DYNAMIC_TOPIC_CONFIG", "DYNAMIC_TOPIC_CONFIG"))
want("auto-create with the prefix emptied: any name", lambda: len(recs(o["autocreate"]["unprefixed"])), 3)
if sys.argv[2] == "gregord":  # beyond Kafka: the DLQ write is part of the acknowledgement (docs/dlq.md §6)
    for k in ("reject_nocopy", "reject_copy"):
        want("gregord: all 3 DLQ records are readable when the acknowledgement of %s is answered" % k,
             lambda: o[k]["dlq_records_at_ack_answer"], 3)
sl = o.get("state_log", {})
if sl.get("dlqr-lim-g"):  # Kafka only (its __share_group_state): the write order around the DLQ write
    states = [b[2] for e in sl["dlqr-lim-g"] if e["partition"] == 0 for b in e["batches"]]
    want("share state of the limit group, p0: AVAILABLE, then ARCHIVING, then ARCHIVED (DLQ written between)",
         lambda: states, ["AVAILABLE", "ARCHIVING", "ARCHIVED"])
sys.exit(1 if bad else 0)
EOF
gr_relay_checks "the DLQ facts" "$GR_TMP/facts.out" "$rc" 60

case "$GR_TARGET" in ref) stop_ref_kafka ;; gregord) stop_gregord; check_no_sanitizer_report ;; esac
gr_finish
