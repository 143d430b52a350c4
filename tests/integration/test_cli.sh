#!/usr/bin/env bash
# The gregor command against the real gregord (docs/cli.md):
#  - golden outputs for every subcommand, errors and exit codes included
#    (tests/integration/golden/cli/<case>.out: stdout, stderr and the exit status after
#    normalizing ports, ids and timestamps; GR_UPDATE_GOLDEN=1 rewrites them);
#  - against Kafka's own tools from tests/ref/target/lib, on the same broker:
#    `share-groups --describe` (offsets, --verbose, --state with the coordinator) prints
#    the rows of kafka-share-groups; `topics --describe/--list` with a regex and the
#    partition filters prints the lines of kafka-topics (Kafka's describe order is hash
#    order: lines are compared sorted); `consume` formats records as
#    kafka-console-consumer; `produce` parses lines (headers, keys, null.marker,
#    ignore.error) as kafka-console-producer;
#  - progress on a terminal (script(1)): shown and erased on stderr, never without one;
#  - bytes produced with `gregor produce` read back with kcat and bytes produced with kcat
#    read back with `gregor consume`, byte for byte;
#  - `gregor share-consume --max-messages N` accepts exactly N records.
#   bash tests/integration/test_cli.sh [--ref | --bootstrap H:P] [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
gr_require kcat sha256sum script
G="$GR_BUILD_DIR/gregor"
[[ -x "$G" ]] || die "gregor not built in $GR_BUILD_DIR"
GOLD="$GR_SOURCE_DIR/tests/integration/golden/cli"
REF_CP="$GR_SOURCE_DIR/tests/ref/target/lib/*"
have_java() { command -v java >/dev/null && compgen -G "$GR_SOURCE_DIR/tests/ref/target/lib/kafka-tools-*.jar" >/dev/null; }
start_target
B="$BOOTSTRAP"

normalize() {
  sed -E -e "s/127\.0\.0\.1:[0-9]+/HOST:PORT/g" -e "s#$GR_TMP#<TMP>#g" \
    -e 's/(TopicId: |"topic_id":")[A-Za-z0-9_-]{22}/\1<ID>/g' \
    -e 's/(CreateTime|LogAppendTime):[0-9]+/\1:<TS>/g'
}

# golden NAME [--stdin FILE] cmd...: stdout, stderr and exit status against golden/cli/NAME.out
golden() {
  local name="$1" in=/dev/null rc=0; shift
  if [[ "$1" == --stdin ]]; then in="$2"; shift 2; fi
  "$@" <"$in" >"$GR_TMP/$name.stdout" 2>"$GR_TMP/$name.stderr" || rc=$?
  { cat "$GR_TMP/$name.stdout"; echo "--- stderr"; cat "$GR_TMP/$name.stderr"; echo "--- exit $rc"; } \
    | normalize >"$GR_TMP/$name.out"
  if [[ "${GR_UPDATE_GOLDEN:-0}" == 1 ]]; then cp "$GR_TMP/$name.out" "$GOLD/$name.out"; ok "$name (golden written)"; return; fi
  if diff -u "$GOLD/$name.out" "$GR_TMP/$name.out" >"$GR_TMP/$name.diff" 2>&1; then ok "golden $name"
  else fail "golden $name:"; head -n 30 "$GR_TMP/$name.diff"; fi
}

# ---------------------------------------------------------------- general
golden version "$G" --version
golden share_groups_version "$G" share-groups --version
golden no_command "$G"
golden unknown_command "$G" nope
golden topics_help "$G" topics --help
for c in configs produce consume share-consume share-groups; do golden "${c//-/_}_help" "$G" "$c" --help; done
golden topics_no_bootstrap "$G" topics --list
golden topics_bad_option "$G" topics --bootstrap-server "$B" --lisst
golden topics_two_actions "$G" topics --bootstrap-server "$B" --list --describe
golden topics_bad_output "$G" topics --bootstrap-server "$B" --list --output yaml
golden configs_no_bootstrap "$G" configs --topic x --describe
golden configs_bad_option "$G" configs --bootstrap-server "$B" --topic x --describe --bogus
golden produce_no_bootstrap "$G" produce --topic x
golden produce_bad_option "$G" produce --bootstrap-server "$B" --topic x --bogus
golden consume_no_bootstrap "$G" consume --topic x
golden consume_bad_option "$G" consume --bootstrap-server "$B" --topic x --bogus
golden share_consume_no_bootstrap "$G" share-consume --topic x
golden share_consume_bad_option "$G" share-consume --bootstrap-server "$B" --topic x --bogus
golden share_groups_no_bootstrap "$G" share-groups --list
golden share_groups_bad_option "$G" share-groups --bootstrap-server "$B" --list --bogus
# --describe --capacity: usage errors, and a clear error where no admin endpoint answers (port 1;
# the Kafka listener, as Apache Kafka's)
golden sg_capacity_no_url "$G" share-groups --describe --group g --capacity
golden sg_capacity_bad_url "$G" share-groups --describe --group g --capacity --admin-url ftp://x
golden sg_capacity_with_members "$G" share-groups --bootstrap-server "$B" --describe --group g --capacity --members
golden sg_admin_url_alone "$G" share-groups --bootstrap-server "$B" --describe --group g --admin-url http://127.0.0.1:1
golden sg_capacity_unreachable "$G" share-groups --describe --group g --capacity --admin-url http://127.0.0.1:1
golden sg_capacity_kafka_port "$G" share-groups --describe --group g --capacity --admin-url "http://$B"
golden option_needs_value "$G" topics --bootstrap-server "$B" --list --timeout
golden flag_with_value "$G" topics --bootstrap-server "$B" --list=yes
golden bad_number "$G" topics --bootstrap-server "$B" --create --topic x --partitions two

# ---------------------------------------------------------------- topics
golden topics_create "$G" topics --bootstrap-server "$B" --create --topic cli-a --partitions 3 --config retention.ms=86400000
golden topics_create_exists "$G" topics --bootstrap-server "$B" --create --topic cli-a
golden topics_create_if_not_exists "$G" topics --bootstrap-server "$B" --create --topic cli-a --if-not-exists
golden topics_create_bad_config "$G" topics --bootstrap-server "$B" --create --topic cli-b --config nonsense
"$G" topics --bootstrap-server "$B" --create --topic cli-b --partitions 1 >/dev/null
golden topics_list "$G" topics --bootstrap-server "$B" --list
golden topics_list_json "$G" topics --bootstrap-server "$B" --list --output json
golden topics_alter "$G" topics --bootstrap-server "$B" --alter --topic cli-b --partitions 2
golden topics_describe "$G" topics --bootstrap-server "$B" --describe --topic cli-b
golden topics_describe_json "$G" topics --bootstrap-server "$B" --describe --topic cli-a --output json
golden topics_describe_missing "$G" topics --bootstrap-server "$B" --describe --topic nope
golden topics_delete "$G" topics --bootstrap-server "$B" --delete --topic cli-b
golden topics_delete_missing "$G" topics --bootstrap-server "$B" --delete --topic cli-b
golden topics_delete_if_exists "$G" topics --bootstrap-server "$B" --delete --topic cli-b --if-exists
golden topics_unreachable "$G" topics --bootstrap-server 127.0.0.1:1 --list --timeout 1000
golden topics_create_no_topic "$G" topics --bootstrap-server "$B" --create --partitions 1
golden topics_create_zero_partitions "$G" topics --bootstrap-server "$B" --create --topic cli-z --partitions 0
golden topics_create_bad_rf "$G" topics --bootstrap-server "$B" --create --topic cli-z --replication-factor 0
golden topics_create_rf_too_big "$G" topics --bootstrap-server "$B" --create --topic cli-z --replication-factor 3
golden topics_create_bad_name "$G" topics --bootstrap-server "$B" --create --topic 'cli z'
golden topics_alter_no_partitions "$G" topics --bootstrap-server "$B" --alter --topic cli-a
# --topic is a regular expression (not for --create); the partition filters of --describe
golden topics_create_m "$G" topics --bootstrap-server "$B" --create --topic cli-m --partitions 2 --config min.insync.replicas=2
golden topics_list_regex "$G" topics --bootstrap-server "$B" --list --topic 'cli-[am]'
golden topics_list_alternatives "$G" topics --bootstrap-server "$B" --list --topic 'cli-m, cli-a, nope'
golden topics_describe_regex "$G" topics --bootstrap-server "$B" --describe --topic 'cli-.*'
golden topics_describe_regex_none "$G" topics --bootstrap-server "$B" --describe --topic 'zz.*'
golden topics_describe_regex_none_if_exists "$G" topics --bootstrap-server "$B" --describe --topic 'zz.*' --if-exists
golden topics_bad_regex "$G" topics --bootstrap-server "$B" --describe --topic 'cli-(('
cli_a_id="$("$G" topics --bootstrap-server "$B" --describe --topic cli-a | sed -n 's/.*TopicId: \([^	]*\).*/\1/p')"
golden topics_describe_topic_id "$G" topics --bootstrap-server "$B" --describe --topic-id "$cli_a_id"
golden topics_describe_topic_id_missing "$G" topics --bootstrap-server "$B" --describe --topic-id AAAAAAAAAAAAAAAAAAAAAA
golden topics_topic_id_not_describe "$G" topics --bootstrap-server "$B" --list --topic-id "$cli_a_id"
golden topics_with_overrides "$G" topics --bootstrap-server "$B" --describe --topics-with-overrides
golden topics_under_min_isr "$G" topics --bootstrap-server "$B" --describe --under-min-isr-partitions
golden topics_at_min_isr "$G" topics --bootstrap-server "$B" --describe --at-min-isr-partitions --topic cli-a
golden topics_under_replicated "$G" topics --bootstrap-server "$B" --describe --under-replicated-partitions
golden topics_unavailable "$G" topics --bootstrap-server "$B" --describe --unavailable-partitions
golden topics_under_min_isr_json "$G" topics --bootstrap-server "$B" --describe --under-min-isr-partitions --output json
golden topics_filter_not_describe "$G" topics --bootstrap-server "$B" --list --under-replicated-partitions
for t in cli-d1 cli-d2; do "$G" topics --bootstrap-server "$B" --create --topic "$t" --partitions 1 >/dev/null; done
golden topics_delete_regex "$G" topics --bootstrap-server "$B" --delete --topic 'cli-d[0-9]'
golden topics_list_after_delete_regex "$G" topics --bootstrap-server "$B" --list --topic 'cli-d.*'
golden topics_alter_regex_missing "$G" topics --bootstrap-server "$B" --alter --topic 'cli-d.*' --partitions 4
if have_java; then
  # Kafka's describe order is hash order: compare the sorted lines
  for args in "--describe --topic cli-.*" "--describe --under-min-isr-partitions" "--describe --topics-with-overrides" \
    "--list --topic cli-[am]"; do
    # shellcheck disable=SC2086
    want_rows="$(gr_timeout 60 java -cp "$REF_CP" org.apache.kafka.tools.TopicCommand --bootstrap-server "$B" $args 2>&1 | sort)"
    # shellcheck disable=SC2086
    got_rows="$("$G" topics --bootstrap-server "$B" $args 2>&1 | sort)"
    check_eq "topics $args: the lines of Kafka's kafka-topics" "$want_rows" "$got_rows"
  done
fi

# ---------------------------------------------------------------- configs
golden configs_alter "$G" configs --bootstrap-server "$B" --entity-type topics --entity-name cli-a --alter --add-config retention.ms=5000,segment.ms=600000
golden configs_describe "$G" configs --bootstrap-server "$B" --entity-type topics --entity-name cli-a --describe
golden configs_delete "$G" configs --bootstrap-server "$B" --entity-type topics --entity-name cli-a --alter --delete-config segment.ms
golden configs_describe_json "$G" configs --bootstrap-server "$B" --entity-type topics --entity-name cli-a --describe --output json
golden configs_bad_value "$G" configs --bootstrap-server "$B" --entity-type topics --entity-name cli-a --alter --add-config retention.ms=abc
golden configs_bad_type "$G" configs --bootstrap-server "$B" --entity-type widgets --entity-name x --describe
golden configs_group_alter "$G" configs --bootstrap-server "$B" --entity-type groups --entity-name cli-g --alter --add-config share.record.lock.duration.ms=20000
golden configs_group_describe "$G" configs --bootstrap-server "$B" --entity-type groups --entity-name cli-g --describe
golden configs_no_action "$G" configs --bootstrap-server "$B" --entity-type topics --entity-name cli-a
golden configs_topic_shortcut "$G" configs --bootstrap-server "$B" --topic cli-m --describe
golden configs_describe_every_topic "$G" configs --bootstrap-server "$B" --entity-type topics --describe
golden configs_describe_every_topic_json "$G" configs --bootstrap-server "$B" --entity-type topics --describe --output json
golden configs_describe_all_head bash -c "set -o pipefail; '$G' configs --bootstrap-server '$B' --topic cli-a --describe --all | head -n 4"
golden configs_entity_default "$G" configs --bootstrap-server "$B" --entity-type brokers --entity-default --describe
golden configs_broker_defaults "$G" configs --bootstrap-server "$B" --broker-defaults --describe
golden configs_broker "$G" configs --bootstrap-server "$B" --broker 1 --describe
golden configs_group_shortcut "$G" configs --bootstrap-server "$B" --group cli-g --describe
golden configs_alter_list_value "$G" configs --bootstrap-server "$B" --topic cli-a --alter --add-config 'cleanup.policy=[delete],retention.ms=6000'
printf '# a comment\nretention.ms = 7000\n\nsegment.ms=700000\n' >"$GR_TMP/topic.properties"
golden configs_add_config_file "$G" configs --bootstrap-server "$B" --topic cli-a --alter --add-config-file "$GR_TMP/topic.properties"
golden configs_after_file "$G" configs --bootstrap-server "$B" --topic cli-a --describe
for i in $(seq 513); do echo "retention.ms=$i"; done >"$GR_TMP/huge.properties"
golden configs_add_config_file_too_many "$G" configs --bootstrap-server "$B" --topic cli-a --alter --add-config-file "$GR_TMP/huge.properties"
golden configs_add_config_file_missing "$G" configs --bootstrap-server "$B" --topic cli-a --alter --add-config-file "$GR_TMP/none.properties"
golden configs_unknown_topic "$G" configs --bootstrap-server "$B" --topic nope --describe
golden configs_alter_nothing "$G" configs --bootstrap-server "$B" --topic cli-a --alter
golden configs_alter_unknown_key "$G" configs --bootstrap-server "$B" --topic cli-a --alter --add-config nonsense.key=1
golden configs_two_entities "$G" configs --bootstrap-server "$B" --topic cli-a --group cli-g --describe
golden configs_describe_with_add "$G" configs --bootstrap-server "$B" --topic cli-a --describe --add-config retention.ms=1
golden configs_brokers_no_name "$G" configs --bootstrap-server "$B" --entity-type brokers --describe
golden configs_default_not_broker "$G" configs --bootstrap-server "$B" --entity-type topics --entity-default --describe
golden configs_unreachable "$G" configs --bootstrap-server 127.0.0.1:1 --topic cli-a --describe --timeout 1000

# ---------------------------------------------------------------- produce / consume
printf 'k1:v1\nk2:v2\nk3:v3\n' >"$GR_TMP/keyed.txt"
"$G" topics --bootstrap-server "$B" --create --topic cli-p --partitions 1 >/dev/null
golden produce_keyed --stdin "$GR_TMP/keyed.txt" "$G" produce --bootstrap-server "$B" --topic cli-p --property parse.key=true --property key.separator=: --sync
golden produce_no_separator --stdin "$GR_TMP/keyed.txt" "$G" produce --bootstrap-server "$B" --topic cli-p --property parse.key=true --property key.separator=@
golden produce_bad_acks --stdin "$GR_TMP/keyed.txt" "$G" produce --bootstrap-server "$B" --topic cli-p --producer-property acks=7
golden consume_printed "$G" consume --bootstrap-server "$B" --topic cli-p --from-beginning --max-messages 3 \
  --property print.key=true --property print.offset=true --property print.partition=true --property print.timestamp=true
golden consume_offset "$G" consume --bootstrap-server "$B" --topic cli-p --partition 0 --offset 1 --timeout-ms 1000
golden consume_offset_no_partition "$G" consume --bootstrap-server "$B" --topic cli-p --offset 1
# An offset before the log start starts at the log start (Kafka answers OFFSET_OUT_OF_RANGE
# with the offsets at -1, so the consumer asks for them; it once waited at the end instead).
"$G" topics --bootstrap-server "$B" --create --topic cli-ds --partitions 1 >/dev/null
printf 'a\nb\nc\nd\n' | "$G" produce --bootstrap-server "$B" --topic cli-ds --sync >/dev/null
"$(gr_venv_dir)/bin/python" -c 'import sys
from confluent_kafka import TopicPartition
from confluent_kafka.admin import AdminClient
a = AdminClient({"bootstrap.servers": sys.argv[1]})
[f.result(30) for f in a.delete_records([TopicPartition("cli-ds", 0, 2)]).values()]' "$B" || fail "DeleteRecords cli-ds-0 before 2"
check_eq "consume --offset 0 below the log start 2 starts at 2" "2:c|3:d" "$("$G" consume --bootstrap-server "$B" \
  --topic cli-ds --partition 0 --offset 0 --max-messages 2 --timeout-ms 5000 --property print.offset=true \
  --property print.value=true | sed -E 's/^Offset:([0-9]+)[[:space:]]+/\1:/' | paste -sd'|')"
golden consume_latest_timeout "$G" consume --bootstrap-server "$B" --topic cli-p --timeout-ms 500
golden consume_unknown_topic "$G" consume --bootstrap-server "$B" --topic nope --timeout-ms 1000
golden produce_no_topic "$G" produce --bootstrap-server "$B"
golden produce_bad_reader_prop "$G" produce --bootstrap-server "$B" --topic cli-h --property foo=bar
golden produce_equal_separators "$G" produce --bootstrap-server "$B" --topic cli-h --property headers.separator=:
golden produce_unreachable --stdin "$GR_TMP/keyed.txt" "$G" produce --bootstrap-server 127.0.0.1:1 --topic cli-h --max-block-ms 1000
# headers, keys and null.marker as Kafka's LineMessageReader reads them
printf 'a:1,b:NULL\tk1\tv1\nNULL\tk2\tNULL\nc:3\tNULL\tv3\nno-delimiter\n' >"$GR_TMP/headers.txt"
RP=(--reader-property parse.headers=true --reader-property parse.key=true --reader-property null.marker=NULL)
"$G" topics --bootstrap-server "$B" --create --topic cli-h --partitions 1 >/dev/null
printf 'no-delimiter\n' >"$GR_TMP/nodelim.txt"
golden produce_no_headers_delimiter --stdin "$GR_TMP/nodelim.txt" "$G" produce --bootstrap-server "$B" --topic cli-h "${RP[@]}"
golden produce_headers --stdin "$GR_TMP/headers.txt" "$G" produce --bootstrap-server "$B" --topic cli-h "${RP[@]}" --reader-property ignore.error=true
printf 'parse.key=true\nkey.separator=|\n' >"$GR_TMP/reader.properties"
printf 'rk|rv\n' >"$GR_TMP/reader.txt"
golden produce_reader_config --stdin "$GR_TMP/reader.txt" "$G" produce --bootstrap-server "$B" --topic cli-h --reader-config "$GR_TMP/reader.properties"
FP=(--formatter-property print.headers=true --formatter-property print.key=true --formatter-property print.offset=true --formatter-property null.literal=NIL)
golden consume_headers "$G" consume --bootstrap-server "$B" --topic cli-h --from-beginning --max-messages 5 "${FP[@]}"
golden consume_value_off "$G" consume --bootstrap-server "$B" --topic cli-h --partition 0 --offset earliest --max-messages 5 \
  --formatter-property print.key=true --formatter-property print.value=false --formatter-property print.delivery=true
printf 'print.partition=true\nkey.separator = |\n' >"$GR_TMP/fmt.properties"
golden consume_formatter_config "$G" consume --bootstrap-server "$B" --topic cli-h --from-beginning --max-messages 2 --formatter-config "$GR_TMP/fmt.properties"
golden consume_include bash -c "'$G' consume --bootstrap-server '$B' --include 'cli-h,cli-p' --from-beginning --max-messages 8 --property print.offset=true | sort"
golden consume_include_none "$G" consume --bootstrap-server "$B" --include 'zz.*' --timeout-ms 100
golden consume_no_topic "$G" consume --bootstrap-server "$B" --timeout-ms 100
golden consume_topic_and_include "$G" consume --bootstrap-server "$B" --topic cli-h --include cli-h
golden consume_from_beginning_and_offset "$G" consume --bootstrap-server "$B" --topic cli-h --partition 0 --offset 1 --from-beginning
golden consume_bad_offset "$G" consume --bootstrap-server "$B" --topic cli-h --partition 0 --offset soon
golden consume_unknown_formatter_prop "$G" consume --bootstrap-server "$B" --topic cli-h --property print.colour=true
golden consume_deserializer "$G" consume --bootstrap-server "$B" --topic cli-h --property key.deserializer=org.apache.kafka.common.serialization.LongDeserializer
golden consume_group "$G" consume --bootstrap-server "$B" --topic cli-h --group g1 --partition 0
golden consume_unreachable "$G" consume --bootstrap-server 127.0.0.1:1 --topic cli-h --command-property default.api.timeout.ms=1000
if have_java; then
  # the same lines through Kafka's console producer, the same output from Kafka's console consumer
  "$G" topics --bootstrap-server "$B" --create --topic cli-hk --partitions 1 >/dev/null
  gr_timeout 60 java -cp "$REF_CP" org.apache.kafka.tools.ConsoleProducer --bootstrap-server "$B" --topic cli-hk \
    "${RP[@]}" --reader-property ignore.error=true <"$GR_TMP/headers.txt" >/dev/null 2>&1 || fail "Kafka's console producer"
  want_rows="$("$G" consume --bootstrap-server "$B" --topic cli-hk --from-beginning --max-messages 4 "${FP[@]}" 2>/dev/null)"
  got_rows="$("$G" consume --bootstrap-server "$B" --topic cli-h --from-beginning --max-messages 4 "${FP[@]}" 2>/dev/null)"
  check_eq "produce: lines parsed as Kafka's console producer parses them" "$want_rows" "$got_rows"
  for fp in "${FP[*]} --formatter-property print.partition=true --formatter-property print.delivery=true" \
    "--formatter-property print.key=true --formatter-property print.value=false --formatter-property key.separator=|"; do
    # shellcheck disable=SC2086
    want_rows="$(gr_timeout 60 java -cp "$REF_CP" org.apache.kafka.tools.consumer.ConsoleConsumer --bootstrap-server "$B" \
      --topic cli-h --partition 0 --offset earliest --max-messages 5 $fp 2>/dev/null)"
    # shellcheck disable=SC2086
    got_rows="$("$G" consume --bootstrap-server "$B" --topic cli-h --partition 0 --offset earliest --max-messages 5 $fp 2>/dev/null)"
    check_eq "consume $fp: the output of Kafka's console consumer" "$want_rows" "$got_rows"
  done
fi
# progress: on a terminal only, erased at the end (script(1) gives the command a terminal)
script -qec "'$G' consume --bootstrap-server '$B' --topic cli-h --from-beginning --timeout-ms 1000" /dev/null >"$GR_TMP/tty.out" 2>&1 || true
check "progress shown on a terminal" grep -q 'consumed 5 records' "$GR_TMP/tty.out"
check "progress line erased at the end" grep -q $'\r\e\[KProcessed a total of 5 messages' "$GR_TMP/tty.out"
"$G" consume --bootstrap-server "$B" --topic cli-h --from-beginning --timeout-ms 1000 >"$GR_TMP/notty.out" 2>&1 || true
if grep -q -e 'records/s' -e $'\r' "$GR_TMP/notty.out"; then fail "progress shown without a terminal"; else ok "no progress without a terminal"; fi

# byte-for-byte both ways, every codec (values without newlines: the line tools split on them)
python3 -c '
import random, sys
r = random.Random(7)
alphabet = bytes(b for b in range(1, 256) if b != 10)
for i in range(5000):
    sys.stdout.buffer.write(bytes(r.choices(alphabet, k=r.randint(1, 300))) + b"\n")
' >"$GR_TMP/bytes.txt"
want="$(sha256sum <"$GR_TMP/bytes.txt" | cut -d' ' -f1)"
for z in none gzip snappy lz4 zstd; do
  "$G" topics --bootstrap-server "$B" --create --topic "cli-x-$z" --partitions 1 >/dev/null
  "$G" produce --bootstrap-server "$B" --topic "cli-x-$z" --compression-codec "$z" <"$GR_TMP/bytes.txt" 2>"$GR_TMP/p.err" || fail "produce $z: $(cat "$GR_TMP/p.err")"
  got="$(gr_timeout 60 kcat -C -b "$B" -t "cli-x-$z" -o beginning -e -q -f '%s\n' | sha256sum | cut -d" " -f1 || true)"
  check_eq "gregor produce ($z) -> kcat: byte-identical" "$want" "$got"
  "$G" topics --bootstrap-server "$B" --create --topic "cli-k-$z" --partitions 1 >/dev/null
  gr_timeout 120 kcat -P -b "$B" -t "cli-k-$z" -z "$z" <"$GR_TMP/bytes.txt" || fail "kcat -P $z"
  got="$(gr_timeout 60 "$G" consume --bootstrap-server "$B" --topic "cli-k-$z" --from-beginning --max-messages 5000 2>/dev/null | sha256sum | cut -d" " -f1 || true)"
  check_eq "kcat ($z) -> gregor consume: byte-identical" "$want" "$got"
done

# ---------------------------------------------------------------- share groups
"$G" topics --bootstrap-server "$B" --create --topic cli-s --partitions 3 >/dev/null
seq 1 30 | sed "s/.*/key-&:&/" | "$G" produce --bootstrap-server "$B" --topic cli-s --property parse.key=true --property key.separator=: >/dev/null 2>&1  # keyed: murmur2 places them the same way every run
golden sg_reset_no_mode "$G" share-groups --bootstrap-server "$B" --reset-offsets --group cg1 --topic cli-s --to-earliest
golden sg_reset_dry_run "$G" share-groups --bootstrap-server "$B" --reset-offsets --group cg1 --topic cli-s --to-latest --dry-run
golden sg_reset_execute "$G" share-groups --bootstrap-server "$B" --reset-offsets --group cg1 --topic cli-s --to-earliest --execute
golden sg_reset_partitions "$G" share-groups --bootstrap-server "$B" --reset-offsets --group cg1 --topic cli-s:0,2 --to-datetime 2001-01-01T00:00:00.000 --execute
golden sg_reset_bad_datetime "$G" share-groups --bootstrap-server "$B" --reset-offsets --group cg1 --topic cli-s --to-datetime yesterday --dry-run
golden sg_list "$G" share-groups --bootstrap-server "$B" --list
golden sg_list_state "$G" share-groups --bootstrap-server "$B" --list --state
golden sg_describe "$G" share-groups --bootstrap-server "$B" --describe --group cg1
golden sg_describe_verbose "$G" share-groups --bootstrap-server "$B" --describe --group cg1 --verbose
golden sg_describe_json "$G" share-groups --bootstrap-server "$B" --describe --group cg1 --output json
golden sg_describe_members_empty "$G" share-groups --bootstrap-server "$B" --describe --group cg1 --members
golden sg_describe_state "$G" share-groups --bootstrap-server "$B" --describe --group cg1 --state
golden sg_describe_missing "$G" share-groups --bootstrap-server "$B" --describe --group nope
golden sg_describe_state_json "$G" share-groups --bootstrap-server "$B" --describe --group cg1 --state --verbose --output json
golden sg_describe_state_value "$G" share-groups --bootstrap-server "$B" --describe --group cg1 --state Stable
golden sg_describe_two_kinds "$G" share-groups --bootstrap-server "$B" --describe --group cg1 --members --offsets
golden sg_describe_no_group "$G" share-groups --bootstrap-server "$B" --describe
golden sg_group_and_all "$G" share-groups --bootstrap-server "$B" --describe --group cg1 --all-groups
golden sg_members_on_list "$G" share-groups --bootstrap-server "$B" --list --members
golden sg_topic_on_describe "$G" share-groups --bootstrap-server "$B" --describe --group cg1 --topic cli-s
golden sg_list_bad_state "$G" share-groups --bootstrap-server "$B" --list --state Rebalancing
golden sg_list_state_filter "$G" share-groups --bootstrap-server "$B" --list --state 'empty, stable'
golden sg_list_state_filter_none "$G" share-groups --bootstrap-server "$B" --list --state Dead
golden sg_list_json "$G" share-groups --bootstrap-server "$B" --list --output json
golden sg_reset_both_modes "$G" share-groups --bootstrap-server "$B" --reset-offsets --group cg1 --topic cli-s --to-earliest --dry-run --execute
golden sg_reset_two_specs "$G" share-groups --bootstrap-server "$B" --reset-offsets --group cg1 --topic cli-s --to-earliest --to-latest --dry-run
golden sg_reset_no_scope "$G" share-groups --bootstrap-server "$B" --reset-offsets --group cg1 --to-earliest --dry-run
golden sg_reset_no_group "$G" share-groups --bootstrap-server "$B" --reset-offsets --topic cli-s --to-earliest --dry-run
golden sg_reset_all_topics "$G" share-groups --bootstrap-server "$B" --reset-offsets --group cg1 --all-topics --to-latest --dry-run
golden sg_reset_json "$G" share-groups --bootstrap-server "$B" --reset-offsets --group cg1 --topic cli-s:1 --to-latest --dry-run --output json
golden sg_reset_flag_elsewhere "$G" share-groups --bootstrap-server "$B" --describe --group cg1 --to-earliest
golden sg_delete_topic "$G" share-groups --bootstrap-server "$B" --delete --group cg1 --topic cli-s
golden sg_delete_no_group "$G" share-groups --bootstrap-server "$B" --delete
golden sg_delete_offsets_no_topic "$G" share-groups --bootstrap-server "$B" --delete-offsets --group cg1
golden sg_unreachable "$G" share-groups --bootstrap-server 127.0.0.1:1 --list --timeout 1000

# share-consume: exactly N accepted, the rest released
"$G" share-groups --bootstrap-server "$B" --reset-offsets --group cg2 --topic cli-p --to-earliest --execute >/dev/null
golden share_consume_max "$G" share-consume --bootstrap-server "$B" --topic cli-p --group cg2 --max-messages 2 \
  --property print.offset=true --property print.delivery.count=true --timeout-ms 20000
golden sg_after_share_consume "$G" share-groups --bootstrap-server "$B" --describe --group cg2
golden share_consume_release "$G" share-consume --bootstrap-server "$B" --topic cli-p --group cg2 --max-messages 1 --release \
  --property print.offset=true --property print.delivery.count=true --timeout-ms 20000
golden share_consume_bad_flags "$G" share-consume --bootstrap-server "$B" --topic cli-p --reject --release
golden share_consume_no_topic "$G" share-consume --bootstrap-server "$B" --group cg2
golden share_consume_bad_formatter_prop "$G" share-consume --bootstrap-server "$B" --topic cli-p --property print.epoch=true
golden share_consume_unreachable "$G" share-consume --bootstrap-server 127.0.0.1:1 --topic cli-p --timeout-ms 1000
# --reject: the record is never delivered again, the start offset moves past it
"$G" share-groups --bootstrap-server "$B" --reset-offsets --group cg3 --topic cli-h --to-earliest --execute >/dev/null
golden share_consume_reject "$G" share-consume --bootstrap-server "$B" --topic cli-h --group cg3 --max-messages 1 --reject \
  --formatter-property print.offset=true --formatter-property print.delivery=true --formatter-property print.headers=true \
  --formatter-property print.key=true --formatter-property null.literal=NIL --timeout-ms 20000
golden sg_after_reject "$G" share-groups --bootstrap-server "$B" --describe --group cg3
golden share_consume_headers "$G" share-consume --bootstrap-server "$B" --topic cli-h --group cg3 --max-messages 4 \
  --formatter-property print.offset=true --formatter-property print.headers=true \
  --formatter-property print.key=true --formatter-property null.literal=NIL --timeout-ms 20000
golden sg_describe_all_groups "$G" share-groups --bootstrap-server "$B" --describe --all-groups
golden sg_describe_all_groups_json "$G" share-groups --bootstrap-server "$B" --describe --all-groups --state --output json

# a live member: not empty
"$G" share-consume --bootstrap-server "$B" --topic cli-s --group cg1 --timeout-ms 60000 >/dev/null 2>&1 &
live=$!; GR_PIDS+=("$live")
for _ in $(seq 100); do "$G" share-groups --bootstrap-server "$B" --describe --group cg1 --state 2>/dev/null | grep -q Stable && break; sleep 0.1; done
golden sg_reset_not_empty "$G" share-groups --bootstrap-server "$B" --reset-offsets --group cg1 --topic cli-s --to-earliest --execute
golden sg_delete_not_empty "$G" share-groups --bootstrap-server "$B" --delete --group cg1
"$G" share-groups --bootstrap-server "$B" --describe --group cg1 --members >"$GR_TMP/members.txt" 2>&1 || true
check "members view names the live consumer" grep -q 'gregor-cli' "$GR_TMP/members.txt"
kill -INT "$live" 2>/dev/null; wait "$live" 2>/dev/null || true
# both tools must see the same state: wait until the member has left
for _ in $(seq 100); do "$G" share-groups --bootstrap-server "$B" --describe --group cg1 --state 2>/dev/null | grep -q Empty && break; sleep 0.1; done

# the same rows as Kafka's kafka-share-groups, against the same broker
if have_java; then
  for view in "" "--verbose" "--state"; do
    want_rows="$(java -cp "$REF_CP" org.apache.kafka.tools.consumer.group.ShareGroupCommand --bootstrap-server "$B" \
      --describe --group cg1 $view 2>/dev/null | tr -s ' \t' ' ' | sed '/^ *$/d')"
    got_rows="$("$G" share-groups --bootstrap-server "$B" --describe --group cg1 $view 2>/dev/null | tr -s ' \t' ' ' | sed '/^ *$/d')"
    check_eq "share-groups --describe $view: the rows of Kafka's tool" "$want_rows" "$got_rows"
  done
else
  log "java or tests/ref jars missing: Kafka tool comparison skipped"
fi

golden sg_delete_offsets "$G" share-groups --bootstrap-server "$B" --delete-offsets --group cg1 --topic cli-s
golden sg_delete_offsets_missing "$G" share-groups --bootstrap-server "$B" --delete-offsets --group nope --topic cli-s
golden sg_delete "$G" share-groups --bootstrap-server "$B" --delete --group cg1 --group nope
# share-consume takes its group from group.id of the properties when --group is not given
golden share_consume_group_conflict "$G" share-consume --bootstrap-server "$B" --topic cli-p --group a --command-property group.id=b
"$G" share-consume --bootstrap-server "$B" --topic cli-p --command-property group.id=cg-props --timeout-ms 1000 >/dev/null 2>&1 \
  || fail "share-consume with group.id in --command-property"
golden sg_list_after_props "$G" share-groups --bootstrap-server "$B" --list

# ---------------------------------------------------------------- --output json: types and escaping
# A group id with invalid UTF-8 (a lone continuation byte, a truncated sequence, an overlong
# '/', a surrogate), control characters, quotes and valid multi-byte text: the JSON stays
# valid (each invalid byte is \ufffd) and numbers and booleans are JSON types.
bad_group=$'cg-\x80-\xe2\x82-\xc0\xaf-\xed\xa0\x80-\x01\x7f-"q"\\-\xc3\xa9\xe2\x82\xac'
"$G" share-groups --bootstrap-server "$B" --reset-offsets --group "$bad_group" --topic cli-s:1 --to-earliest --execute \
  >/dev/null 2>&1 || fail "share group with an invalid UTF-8 id"
golden sg_list_json_invalid_utf8 "$G" share-groups --bootstrap-server "$B" --list --state --output json
golden sg_describe_json_invalid_utf8 "$G" share-groups --bootstrap-server "$B" --describe --group "$bad_group" --output json
for j in sg_list_json_invalid_utf8 sg_describe_json_invalid_utf8 topics_describe_json configs_describe_json; do
  check "$j: stdout parses as JSON (strict UTF-8)" python3 -c '
import json, sys
data = json.loads(open(sys.argv[1], "rb").read().decode("utf-8", "strict"))
assert isinstance(data, list) and data' "$GR_TMP/$j.stdout"
done
check "configs json: sensitive and read_only are booleans" python3 -c '
import json, sys
rows = json.load(open(sys.argv[1]))
assert all(isinstance(r["sensitive"], bool) and isinstance(r["read_only"], bool) for r in rows), rows' \
  "$GR_TMP/configs_describe_json.stdout"
check "topics json: partition and leader are numbers, replicas and isr arrays of numbers" python3 -c '
import json, sys
rows = [r for r in json.load(open(sys.argv[1])) if r["partition"] is not None]
assert rows and all(isinstance(r["partition"], int) and isinstance(r["leader"], int) for r in rows), rows
assert all(r["replicas"] == [1] and r["isr"] == [1] for r in rows), rows' "$GR_TMP/topics_describe_json.stdout"
"$G" share-groups --bootstrap-server "$B" --delete --group "$bad_group" >/dev/null 2>&1 || true

# ---------------------------------------------------------------- no broker: fail fast, usage errors
dead="$(free_port)"
golden topics_bootstrap_no_port "$G" topics --bootstrap-server 127.0.0.1 --list
golden produce_bootstrap_bad_port --stdin "$GR_TMP/keyed.txt" "$G" produce --bootstrap-server 127.0.0.1:0 --topic cli-h
golden consume_bootstrap_empty "$G" consume --bootstrap-server , --topic cli-h
t0=$(date +%s%N)
golden topics_list_refused "$G" topics --bootstrap-server "127.0.0.1:$dead" --list
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
check "topics --list, connection refused: failed within 5 s with the default 30 s timeout (${ms} ms)" test "$ms" -lt 5000
for c in "configs --topic cli-a --describe" "share-groups --list" "share-groups --describe --group cg2"; do
  t0=$(date +%s%N)
  rc=0; out="$("$G" $c --bootstrap-server "127.0.0.1:$dead" 2>&1)" || rc=$?
  ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  check "$c, connection refused: exit 1 within 5 s naming the refusal (${ms} ms, rc $rc: $out)" \
    bash -c '[[ $1 == 1 && $2 -lt 5000 && $3 == *"no broker reachable"*"Connection refused"* ]]' _ "$rc" "$ms" "$out"
done
t0=$(date +%s%N)
golden produce_refused --stdin "$GR_TMP/keyed.txt" "$G" produce --bootstrap-server "127.0.0.1:$dead" --topic cli-h
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
check "produce of 3 lines, connection refused: failed within 5 s with the default max.block.ms (${ms} ms)" test "$ms" -lt 5000
t0=$(date +%s%N)
golden consume_refused "$G" consume --bootstrap-server "127.0.0.1:$dead" --topic cli-h
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
check "consume, connection refused: failed within 5 s (${ms} ms)" test "$ms" -lt 5000

gr_finish
