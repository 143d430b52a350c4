#!/usr/bin/env bash
# libgregor's admin client (include/gregor/admin.h) through tests/integration/client_admin.c,
# against the real gregord and, with --ref, against Apache Kafka 4.4.0: every call of admin.h
# with pass/fail checks, the same expected lines on both brokers.
#  - topics: create (with configs, again, validate-only, 0 partitions), describe, create
#    partitions (grow, shrink refused), delete (twice);
#  - client quotas (tests/integration/client_quotas.c): alterations of several entities in one
#    request with per-entity errors, validate-only, describe filters (exact, default, any, strict);
#  - configs: topic describe / incremental alter (and a bad value) / legacy alter; broker
#    describe, incremental set and delete of message.max.bytes, an unknown broker id refused;
#    group configs (GROUP resource) alter, describe, bad value, unknown name;
#  - groups, on a group that does not exist: list share groups, describe share group and its
#    offsets, delete, describe configs;
#  - a real share group: libgregor's share consumer accepts 14 records and commits; with the
#    member alive: list groups by type (share, all, consumer), describe share groups (Stable,
#    1 member, 2 partitions), alter / delete share-group offsets and delete group refused
#    (NON_EMPTY_GROUP); after it closed: Empty, describe offsets (lag 0), alter offsets
#    (start 3, lag 7), delete offsets of an unknown topic and of the topic, delete the group.
# Accepted difference of Apache Kafka (docs/compatibility.md): Kafka persists a share
# partition's start offset lazily, so once every record is acknowledged DescribeShareGroupOffsets
# may still report an earlier start offset (lag 0). Where that happens client_admin prints
# "start=in-range" (0 <= start <= end offset) instead of the number.
#   bash tests/integration/test_libgregor_admin.sh [--ref | --bootstrap H:P] [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
ADMIN="$GR_BUILD_DIR/client_admin"
[[ -x "$ADMIN" ]] || die "client_admin not built in $GR_BUILD_DIR"
start_target

# run_admin NAME WANT_FILE args...: client_admin's lines must equal WANT_FILE
run_admin() {
  local name="$1" want="$2"; shift 2
  if ! gr_timeout 120 "$ADMIN" "$BOOTSTRAP" "$@" >"$GR_TMP/$name.out" 2>"$GR_TMP/$name.err"; then
    fail "$name: client_admin exited non-zero: $(tail -n 3 "$GR_TMP/$name.out" "$GR_TMP/$name.err")"
    return
  fi
  if diff -u "$want" "$GR_TMP/$name.out" >"$GR_TMP/$name.diff"; then
    ok "$name against $GR_TARGET ($(wc -l <"$want") steps as expected)"
  else
    fail "$name against $GR_TARGET:"; cat "$GR_TMP/$name.diff"; cat "$GR_TMP/$name.err"
  fi
}

cat >"$GR_TMP/topics.want" <<'WANT'
create rows=1 partitions=3
create: NONE
create again: TOPIC_ALREADY_EXISTS
create validate-only: NONE
create 0 partitions: INVALID_PARTITIONS
describe validated topic: UNKNOWN_TOPIC_OR_PARTITION partitions=0 leaders=missing topic_id=none
describe topic: NONE partitions=3 leaders=ok topic_id=set
retention.ms=12345
incremental alter: NONE
retention.ms=54321 retention.bytes=1000000
incremental alter bad value: INVALID_CONFIG
alter (legacy): NONE
max.message.bytes=2000000 retention.ms=604800000
create partitions: NONE
describe topic: NONE partitions=5 leaders=ok topic_id=set
shrink partitions: INVALID_PARTITIONS
broker configs: NONE many=yes
broker incremental alter: NONE
broker message.max.bytes=2000000 source=2
broker config delete: NONE
broker message.max.bytes=1048588 source=5
broker alter unknown id: INVALID_REQUEST
list share groups: NONE
describe share group: GROUP_ID_NOT_FOUND state=-
describe share group offsets: NONE rows=0
delete group: GROUP_ID_NOT_FOUND
group configs: NONE
describe consumer group: GROUP_ID_NOT_FOUND state=-
alter consumer group offsets: NONE rows=2
list consumer group offsets: NONE rows=2 p0=0
list consumer group offsets of the topic: NONE rows=5
list consumer groups (Empty): NONE Empty
describe consumer group: NONE state=Empty type=classic
delete consumer group offsets: NONE
delete offsets of an unknown group: GROUP_ID_NOT_FOUND
list consumer group offsets after delete: NONE rows=1
delete consumer group: NONE
delete: NONE
delete again: UNKNOWN_TOPIC_OR_PARTITION
WANT
run_admin "topics, configs, unknown group" "$GR_TMP/topics.want" "lgadm-$RANDOM"
check "errors name the cause (Kafka's messages)" grep -q "Unexpected broker id, expected [0-9]*, but received 9999" "$GR_TMP/topics, configs, unknown group.err"

cat >"$GR_TMP/share.want" <<'WANT'
create topic: NONE
describe topic: NONE partitions=2 leaders=ok topic_id=set
produce: NONE
group configs alter: NONE
group share.auto.offset.reset=earliest source=8
group share.record.lock.duration.ms=20000 source=8
group configs bad value: INVALID_CONFIG
group configs unknown name: INVALID_CONFIG
share consumer: 14 records accepted, commit NONE
describe share group with a member: NONE state=Stable members=1 partitions=2 client_id=set
list groups share: share/Stable
list groups all: share/Stable
list groups consumer: absent
alter share group offsets with a member: NON_EMPTY_GROUP
delete share group offsets with a member: NON_EMPTY_GROUP
delete group with a member: NON_EMPTY_GROUP
close member: NONE
describe share group after the member left: NONE state=Empty members=0 partitions=0 client_id=-
list groups share: share/Empty
describe share group offsets after the acknowledgements: NONE rows=2 [p0 start=in-range lag=0 NONE] [p1 start=in-range lag=0 NONE]
alter share group offsets: NONE
describe share group offsets after alter: NONE rows=2 [p0 start=3 lag=7 NONE] [p1 start=in-range lag=0 NONE]
delete share group offsets of an unknown topic: UNKNOWN_TOPIC_OR_PARTITION
delete share group offsets: NONE
describe share group offsets after delete: NONE rows=0
delete group: NONE
describe deleted group: GROUP_ID_NOT_FOUND
list groups share: absent
delete group again: GROUP_ID_NOT_FOUND
delete topic: NONE
WANT
run_admin "share group" "$GR_TMP/share.want" "lgsh-$RANDOM" share
check "group errors name the cause" grep -q "Value must be at least 1000" "$GR_TMP/share group.err"

# client quotas (tests/integration/client_quotas.c): per-entity errors, validate-only, filters
QUOTAS="$GR_BUILD_DIR/client_quotas"
cat >"$GR_TMP/quotas.want" <<'WANT'
alter validate-only, one refused: INVALID_REQUEST rows=3 [ip=127.0.0.9 INVALID_REQUEST] [user=P-u1 NONE] [user=P-u1,client_id=P-c1 NONE]
describe after validate-only: NONE
alter three entities: NONE rows=3 [client_id=<default> NONE] [user=P-u1 NONE] [user=P-u1,client_id=P-c1 NONE]
alter an ip: NONE rows=1 [ip=127.0.0.9 NONE]
describe user exact strict: NONE [user=P-u1 consumer_byte_rate=2e+07] [user=P-u1 producer_byte_rate=1024]
describe user exact, any other part: NONE [user=P-u1 consumer_byte_rate=2e+07] [user=P-u1 producer_byte_rate=1024] [user=P-u1,client_id=P-c1 request_percentage=12.5]
describe user exact + any client strict: NONE [user=P-u1,client_id=P-c1 request_percentage=12.5]
describe default client: NONE [client_id=<default> request_percentage=12.5]
describe any ip: NONE [ip=127.0.0.9 connection_creation_rate=5]
remove a key: NONE rows=1 [user=P-u1 NONE]
describe after the removal: NONE [user=P-u1 producer_byte_rate=1024]
alter two entities, one refused: INVALID_REQUEST rows=2 [ip=127.0.0.9 INVALID_REQUEST] [user=P-u2 NONE]
describe the entity that was applied: NONE [user=P-u2 request_percentage=12.5]
describe an unknown entity type: UNSUPPORTED_VERSION
WANT
ADMIN="$QUOTAS" run_admin "client quotas" "$GR_TMP/quotas.want" "lgq-$RANDOM"
check "quota errors name the cause" grep -q "Invalid configuration key producer_byte_rate" "$GR_TMP/client quotas.err"

if [[ "$GR_TARGET" == gregord ]] && ! alive "$GR_GREGORD_PID"; then fail "gregord died (log: $GR_TMP/gregord.log)"; fi
stop_target
gr_finish
