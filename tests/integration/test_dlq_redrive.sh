#!/usr/bin/env bash
# `gregor share-groups --redrive --from-dlq` against gregord (docs/dlq.md "Redrive", docs/cli.md).
# First, tests/integration/dlq_redrive.py writes DLQ topics by hand as
# Apache Kafka 4.4.0 does (the six __dlq.errors.* headers; key/value only with copy.record):
#  - errors: no DLQ topic configured, a DLQ topic or --to-topic that does not exist, a group
#    without dead letters that does not exist, usage errors;
#  - --dry-run lists exactly the records and changes nothing;
#  - a run redrives exactly the expected records (key, value, headers, partition) once: copy on,
#    copy off with the source still there (its headers copied), copy off with the source
#    removed by DeleteRecords (reported, exit 1, not invented), a second copy of the same source
#    record (duplicate), a malformed dead letter, another group's records, a non-DLQ record;
#  - a second run produces nothing; --to-topic redrives to another topic once;
#  - kill -9 of the redrive after 400 of 1200 records acknowledged (GR_REDRIVE_TEST_PAUSE_AFTER),
#    and SIGKILL right after the 700th send with records in flight (GR_REDRIVE_TEST_KILL_AFTER):
#    the rerun gives every record exactly once; --max-records in steps.
# Then (and with --ref against Apache Kafka 4.4.0 alone) a real DLQ (share.version upgraded to 2, two groups
# REJECTing 4 records each with copy.record on and off, one source record removed by
# DeleteRecords): the DLQ topic comes from the group config, the exact records land once.
#   bash tests/integration/test_dlq_redrive.sh [--ref] [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
PY="$(gr_venv_dir)/bin/python"
[[ -x "$PY" ]] || die "no Python venv with confluent-kafka (scripts/install-deps.sh)"
DRV=("$PY" "$GR_SOURCE_DIR/tests/integration/dlq_redrive.py")
CLI="$GR_BUILD_DIR/gregor"
[[ -x "$CLI" ]] || die "no $CLI (make)"
ST="$GR_TMP/state.json"

py() { # py NAME ARGS...: a driver step whose ok/FAIL lines become checks
  local name="$1" rc=0
  shift
  gr_timeout 120 "${DRV[@]}" "$BOOTSTRAP" "$@" >"$GR_TMP/$name.out" 2>"$GR_TMP/$name.err" || rc=$?
  gr_relay_checks "dlq_redrive.py $name" "$GR_TMP/$name.out" "$rc" 120
  ((rc == 0)) || tail -n 5 "$GR_TMP/$name.err"
}
# rd NAME ARGS...: the redrive; stdout/stderr in $GR_TMP/NAME.{out,err}, exit status in RC
rd() {
  local name="$1"
  shift
  RC=0
  gr_timeout 120 "$CLI" share-groups --bootstrap-server "$BOOTSTRAP" "$@" >"$GR_TMP/$name.out" 2>"$GR_TMP/$name.err" ||
    RC=$?
}
summary() { grep -E '^(Would redrive|Redrove) ' "$GR_TMP/$1.out" || true; }
ends() { gr_timeout 60 "${DRV[@]}" "$BOOTSTRAP" ends "$1"; }

# ---------------------------------------------------------------- a broker's own DLQ
# (Kafka's with --ref; gregord's at the end of the gregord run, with the same expectations)
ref_scenario() {
  local B="$BOOTSTRAP" g n
  mkdir -p "$GR_TMP/tools"
  check "share.version upgraded to 2 (FeatureCommand)" gr_timeout 60 bash "$GR_REF_SH" tool "$GR_TMP/tools" \
    org.apache.kafka.tools.FeatureCommand --bootstrap-server "$B" upgrade --feature share.version=2
  "$CLI" topics --bootstrap-server "$B" --create --topic rsrc --partitions 2 --replication-factor 1 >/dev/null
  "$CLI" topics --bootstrap-server "$B" --create --topic dlq.r --partitions 1 --replication-factor 1 \
    --config errors.deadletterqueue.group.enable=true >/dev/null
  for g in rg-copy rg-nocopy; do
    "$CLI" configs --bootstrap-server "$B" --alter --entity-type groups --entity-name "$g" \
      --add-config share.auto.offset.reset=earliest,errors.deadletterqueue.topic.name=dlq.r >/dev/null
  done
  "$CLI" configs --bootstrap-server "$B" --alter --entity-type groups --entity-name rg-copy \
    --add-config errors.deadletterqueue.copy.record.enable=true >/dev/null
  # k3, k4 hash to partition 0 of 2, k1, k2 to partition 1.
  printf 'h1:x\tk1\tv1\nh1:y\tk2\tv2\nh1:z\tk3\tv3\nh1:w\tk4\tv4\n' | "$CLI" produce --bootstrap-server "$B" \
    --topic rsrc --property parse.key=true --property parse.headers=true
  for g in rg-copy rg-nocopy; do
    gr_timeout 60 "$CLI" share-consume --bootstrap-server "$B" --topic rsrc --group "$g" --reject --max-messages 4 \
      --timeout-ms 30000 >/dev/null 2>&1 || fail "share-consume --reject for $g"
  done
  for _ in $(seq 100); do [[ "$(ends dlq.r)" == "0:8" ]] && break; sleep 0.1; done
  check_eq "$WHO dead-lettered the 8 REJECTed records" "0:8" "$(ends dlq.r)"
  "$PY" -c 'import sys
from confluent_kafka import TopicPartition
from confluent_kafka.admin import AdminClient
a = AdminClient({"bootstrap.servers": sys.argv[1]})
[f.result(30) for f in a.delete_records([TopicPartition("rsrc", 1, 1)]).values()]' "$B" ||
    fail "DeleteRecords rsrc-1 before 1"
  rd r0 --redrive --group rg-nocopy --from-dlq --dry-run
  check_eq "$WHO: --dry-run for the copy-off group: 3 from the source, 1 missing, exit 1" \
    "1|0 4 rsrc 0 0 source|0 5 rsrc 0 1 source|0 7 rsrc 1 1 source" \
    "$RC|$(awk 'NR > 1 && !/^Would/ {printf "%s%s %s %s %s %s %s", sep, $1, $2, $3, $4, $5, $6; sep="|"}' "$GR_TMP/r0.out")"
  check "$WHO: the missing source record is reported" grep -q "Missing payload: DLQ partition 0 offset 6 has no \
key or value and its source record rsrc partition 1 offset 0 is no longer in the log" "$GR_TMP/r0.err"
  rd r1 --redrive --group rg-copy --from-dlq
  check_eq "$WHO: copy-on group: 4 redriven from the DLQ payload" "0|Redrove 4 of 4 dead letters of group 'rg-copy' \
in 'dlq.r'; already redriven 0, duplicates 0, missing payload 0, no target 0, failed 0, left for a later run 0, \
malformed 0, other groups' records 4" "$RC|$(summary r1)"
  rd r2 --redrive --group rg-nocopy --from-dlq --skip-missing
  check_eq "$WHO: copy-off group: 3 redriven, 1 missing" "0|Redrove 3 of 4 dead letters of group 'rg-nocopy' in \
'dlq.r'; already redriven 0, duplicates 0, missing payload 1, no target 0, failed 0, left for a later run 0, \
malformed 0, other groups' records 4" "$RC|$(summary r2)"
  for g in rg-copy rg-nocopy; do
    rd "again-$g" --redrive --group "$g" --from-dlq --skip-missing
    check_eq "$WHO: $g again: nothing produced" "0|Redrove 0" "$RC|$(summary "again-$g" | cut -d' ' -f1-2)"
  done
  gr_timeout 30 "$CLI" consume --bootstrap-server "$B" --topic rsrc --from-beginning --timeout-ms 3000 \
    --property print.headers=true --property print.key=true --property print.partition=true \
    --property print.offset=true 2>/dev/null | sed -E 's/(topic\.id:)[A-Za-z0-9_-]{22}/\1ID/' | sort >"$GR_TMP/rsrc.txt"
  local P="gregor.redrive.dlq.topic:dlq.r,gregor.redrive.dlq.topic.id:ID,gregor.redrive.dlq.partition:0"
  local S="gregor.redrive.source.topic:rsrc,gregor.redrive.source.partition"
  local C="gregor.redrive.delivery.count:1,gregor.redrive.payload"
  printf '%s\n' \
    $'Partition:0\tOffset:0\th1:z\tk3\tv3' $'Partition:0\tOffset:1\th1:w\tk4\tv4' \
    "Partition:0"$'\t'"Offset:2"$'\t'"$P,gregor.redrive.dlq.offset:0,gregor.redrive.group:rg-copy,$S:0,gregor.redrive.source.offset:0,$C:dlq"$'\tk3\tv3' \
    "Partition:0"$'\t'"Offset:3"$'\t'"$P,gregor.redrive.dlq.offset:1,gregor.redrive.group:rg-copy,$S:0,gregor.redrive.source.offset:1,$C:dlq"$'\tk4\tv4' \
    "Partition:0"$'\t'"Offset:4"$'\t'"h1:z,$P,gregor.redrive.dlq.offset:4,gregor.redrive.group:rg-nocopy,$S:0,gregor.redrive.source.offset:0,$C:source"$'\tk3\tv3' \
    "Partition:0"$'\t'"Offset:5"$'\t'"h1:w,$P,gregor.redrive.dlq.offset:5,gregor.redrive.group:rg-nocopy,$S:0,gregor.redrive.source.offset:1,$C:source"$'\tk4\tv4' \
    $'Partition:1\tOffset:1\th1:y\tk2\tv2' \
    "Partition:1"$'\t'"Offset:2"$'\t'"$P,gregor.redrive.dlq.offset:2,gregor.redrive.group:rg-copy,$S:1,gregor.redrive.source.offset:0,$C:dlq"$'\tk1\tv1' \
    "Partition:1"$'\t'"Offset:3"$'\t'"$P,gregor.redrive.dlq.offset:3,gregor.redrive.group:rg-copy,$S:1,gregor.redrive.source.offset:1,$C:dlq"$'\tk2\tv2' \
    "Partition:1"$'\t'"Offset:4"$'\t'"h1:y,$P,gregor.redrive.dlq.offset:7,gregor.redrive.group:rg-nocopy,$S:1,gregor.redrive.source.offset:1,$C:source"$'\tk2\tv2' \
    | sort >"$GR_TMP/rsrc.want"
  if diff "$GR_TMP/rsrc.want" "$GR_TMP/rsrc.txt" >"$GR_TMP/rsrc.diff"; then
    ok "$WHO: rsrc holds exactly the originals and the 7 redriven records (key, value, headers), each once"
  else
    fail "$WHO: rsrc differs from the expected records:"; cat "$GR_TMP/rsrc.diff"
  fi
}
if [[ "$GR_TARGET" == ref ]]; then
  WHO=Kafka
  start_ref_kafka
  ref_scenario
  stop_ref_kafka
  gr_finish
fi
[[ "$GR_TARGET" == gregord ]] || die "test_dlq_redrive runs against gregord or --ref"
start_gregord
py setup setup "$ST"

# ---------------------------------------------------------------- errors
rd e1 --redrive --group grp-a --from-dlq
check_eq "no DLQ topic configured for the group: exit 1" 1 "$RC"
check "... saying errors.deadletterqueue.topic.name is not set" \
  grep -q "Share group 'grp-a' has no dead-letter queue: errors.deadletterqueue.topic.name is not set" "$GR_TMP/e1.err"
rd e2 --redrive --group grp-a --from-dlq --dlq-topic no-such-dlq
check_eq "a DLQ topic that does not exist: exit 1" 1 "$RC"
check "... named in the error" grep -q "DLQ topic 'no-such-dlq': does not exist" "$GR_TMP/e2.err"
rd e3 --redrive --group no-such-group --from-dlq --dlq-topic dlq
check_eq "a group that does not exist and has no dead letters: exit 1" 1 "$RC"
check "... named in the error" grep -q "Share group 'no-such-group' does not exist and has no dead letters in 'dlq'" \
  "$GR_TMP/e3.err"
rd e4 --redrive --group grp-a --from-dlq --dlq-topic dlq --to-topic no-such-target
check_eq "--to-topic that does not exist: exit 1" 1 "$RC"
check "... named in the error" grep -q "target topic 'no-such-target' does not exist" "$GR_TMP/e4.err"
rd e5 --redrive --group grp-a --dlq-topic dlq
check_eq "--redrive without --from-dlq: usage error (2)" 2 "$RC"
rd e6 --redrive --group grp-a --group grp-b --from-dlq --dlq-topic dlq
check_eq "--redrive with two groups: usage error (2)" 2 "$RC"
rd e7 --describe --group grp-a --dlq-topic dlq
check_eq "--dlq-topic without --redrive: usage error (2)" 2 "$RC"
rd e8 --redrive --group grp-a --from-dlq --dlq-topic dlq --max-records -1
check_eq "--max-records -1: usage error (2)" 2 "$RC"
check_eq "nothing written to src by the failed runs" "0:6 1:6" "$(ends src)"

# ---------------------------------------------------------------- dry run
rd dry --redrive --group grp-a --from-dlq --dlq-topic dlq --dry-run
check_eq "--dry-run with a missing payload: exit 1" 1 "$RC"
check_eq "--dry-run: the five records, DLQ position -> target, source offset, payload origin" \
  "0 0 src 0 1 dlq|0 2 src 0 3 source|0 4 src 1 1 dlq|1 0 src 1 4 dlq|1 1 src 1 5 source" \
  "$(awk 'NR > 1 && !/^Would/ {printf "%s%s %s %s %s %s %s", sep, $1, $2, $3, $4, $5, $6; sep="|"}' "$GR_TMP/dry.out")"
check_eq "--dry-run summary" "Would redrive 5 of 7 dead letters of group 'grp-a' in 'dlq'; already redriven 0, \
duplicates 1, missing payload 1, no target 0, failed 0, left for a later run 0, malformed 1, other groups' records 1" \
  "$(summary dry)"
check "--dry-run reports the missing payload" grep -q "Missing payload: DLQ partition 0 offset 3 has no key or value \
and its source record src partition 1 offset 0 is no longer in the log" "$GR_TMP/dry.err"
check "--dry-run reports the malformed dead letter" \
  grep -q "Malformed dead letter at dlq partition 1 offset 3" "$GR_TMP/dry.err"
check_eq "--dry-run changed nothing" "0:6 1:6" "$(ends src)"
rd dryj --redrive --group grp-a --from-dlq --dlq-topic dlq --dry-run --output json --skip-missing
check_eq "--dry-run --output json --skip-missing: exit 0" 0 "$RC"
check_eq "--output json: one document with the records, the missing one and the counts" \
  "5 [(0, 3, 'src', 1, 0)] 5 7 1 1 1 True" \
  "$("$PY" -c 'import json,sys; d=json.load(open(sys.argv[1]))
print(len(d["records"]), [(m["dlq_partition"], m["dlq_offset"], m["topic"], m["partition"], m["source_offset"]) for m in d["missing"]],
      d["would_redrive"], d["dead_letters"], d["duplicates"], d["missing_payload"], d["malformed"], d["dry_run"])' "$GR_TMP/dryj.out" 2>&1)"

# ---------------------------------------------------------------- the run, and again
rd run1 --redrive --group grp-a --from-dlq --dlq-topic dlq
check_eq "first run: exit 1 (a payload is missing)" 1 "$RC"
check_eq "first run summary" "Redrove 5 of 7 dead letters of group 'grp-a' in 'dlq'; already redriven 0, \
duplicates 1, missing payload 1, no target 0, failed 0, left for a later run 0, malformed 1, other groups' records 1" \
  "$(summary run1)"
check_eq "first run: new offsets in src" "0 0 6|0 2 7|0 4 6|1 0 7|1 1 8" \
  "$(awk 'NR > 1 && !/^Redrove/ {printf "%s%s %s %s", sep, $1, $2, $7; sep="|"}' "$GR_TMP/run1.out")"
py check1 check "$ST" src run1
rd run2 --redrive --group grp-a --from-dlq --dlq-topic dlq --skip-missing
check_eq "second run with --skip-missing: exit 0" 0 "$RC"
check_eq "second run produces nothing" "Redrove 0 of 7 dead letters of group 'grp-a' in 'dlq'; already redriven 5, \
duplicates 1, missing payload 1, no target 0, failed 0, left for a later run 0, malformed 1, other groups' records 1" \
  "$(summary run2)"
py check2 check "$ST" src run2
check_eq "src still ends where the first run left it" "0:8 1:9" "$(ends src)"
rd to1 --redrive --group grp-a --from-dlq --dlq-topic dlq --to-topic other --skip-missing
check_eq "--to-topic other: exit 0" 0 "$RC"
rd to2 --redrive --group grp-a --from-dlq --dlq-topic dlq --to-topic other --skip-missing
check_eq "--to-topic again: nothing new" "Redrove 0 of 7 dead letters of group 'grp-a' in 'dlq'; already redriven 5, \
duplicates 1, missing payload 1, no target 0, failed 0, left for a later run 0, malformed 1, other groups' records 1" \
  "$(summary to2)"
py check3 check "$ST" other to-topic

# ---------------------------------------------------------------- kill -9
N=1200
py bulk1 bulk dlq-big grp-k "$N"
gr_bg RPID env GR_REDRIVE_TEST_PAUSE_AFTER=400 "$CLI" share-groups --bootstrap-server "$BOOTSTRAP" --redrive \
  --group grp-k --from-dlq --dlq-topic dlq-big >"$GR_TMP/k1.out" 2>"$GR_TMP/k1.err"
for _ in $(seq 1200); do grep -q "paused after 400 records" "$GR_TMP/k1.err" && break; sleep 0.05; done
check "the redrive reached its pause after 400 acknowledged records" grep -q "paused after 400 records" "$GR_TMP/k1.err"
kill -9 "$RPID" 2>/dev/null || true
wait "$RPID" 2>/dev/null || true
rd k2 --redrive --group grp-k --from-dlq --dlq-topic dlq-big
check_eq "rerun after kill -9: exit 0" 0 "$RC"
check_eq "rerun after kill -9: the other 800, none twice" "Redrove 800 of $N dead letters of group 'grp-k' in \
'dlq-big'; already redriven 400, duplicates 0, missing payload 0, no target 0, failed 0, left for a later run 0, \
malformed 0, other groups' records 0" "$(summary k2)"
py count1 count bulk-src dlq-big grp-k "$N"

# SIGKILL right after the 700th send, with records queued or in flight, then the rerun.
py bulk2 bulk dlq-big2 grp-t "$N"
RC=0
GR_REDRIVE_TEST_KILL_AFTER=700 gr_timeout 120 "$CLI" share-groups --bootstrap-server "$BOOTSTRAP" --redrive \
  --group grp-t --from-dlq --dlq-topic dlq-big2 >"$GR_TMP/t1.out" 2>"$GR_TMP/t1.err" || RC=$?
check_eq "the redrive died by SIGKILL after its 700th send" 137 "$RC"
rd t2 --redrive --group grp-t --from-dlq --dlq-topic dlq-big2
check_eq "rerun after SIGKILL with records in flight: exit 0" 0 "$RC"
log "$(summary t2)"
check "rerun after SIGKILL: at least 500 redriven by the rerun, the rest found already redriven" \
  grep -qE "^Redrove ([5-9][0-9]{2}|1[0-2][0-9]{2}) of $N .*already redriven ([0-9]+)," "$GR_TMP/t2.out"
py count2 count bulk-src dlq-big2 grp-t "$N"

# --max-records in steps of 500: 500, 500, 200, 0.
py bulk3 bulk dlq-big3 grp-m "$N"
for step in 500:700 500:200 200:0 0:0; do
  rd m --redrive --group grp-m --from-dlq --dlq-topic dlq-big3 --max-records 500
  check_eq "--max-records 500: redrove ${step%%:*}, ${step##*:} left" "${step%%:*} ${step##*:}" \
    "$(summary m | sed -E 's/^Redrove ([0-9]+) .* left for a later run ([0-9]+),.*/\1 \2/')"
done
py count3 count bulk-src dlq-big3 grp-m "$N"

# The round trip on gregord's own dead letters: the scenario run against Kafka 4.4.0 with --ref.
WHO=gregord
ref_scenario

stop_gregord
check_eq "gregord exits 0 on SIGTERM" 0 "$GR_GREGORD_EXIT"
check_no_sanitizer_report
gr_finish
