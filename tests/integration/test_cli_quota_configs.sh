#!/usr/bin/env bash
# `gregor configs` for users, clients and ips (docs/cli.md "configs"), on gregord with a
# SASL_PLAINTEXT listener (the admin authenticates with PLAIN):
#  - quotas set with `gregor configs --alter` are described the same by `gregor configs
#    --describe` and by Kafka's own kafka-configs (ConfigCommand, kafka-tools 4.4.0): the same
#    lines in the same order (Kafka's hash-map order, which gregor reproduces); values print
#    as Java doubles (100.0, 2.0E7, 50.5);
#  - kafka-configs' checks and messages for bad command lines (unknown keys per entity type,
#    deleting a key not set, unparsable values, duplicate and mixed entity types, a bad ip);
#  - both tools read one --command-config file with sasl.jaas.config (libgregor takes the login
#    module's username and password); a malformed sasl.jaas.config is refused with Kafka's message;
#  - SCRAM credentials: created with `gregor configs --alter --add-config
#    'SCRAM-SHA-512=[iterations=8192,password=...]'` (salted on the client), a libgregor
#    producer then authenticates as that user; described like kafka-configs; deleted.
#   bash tests/integration/test_cli_quota_configs.sh [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
gr_require java
[[ "$GR_TARGET" == gregord ]] || die "test_cli_quota_configs starts gregord itself"
ls "$GR_SOURCE_DIR"/tests/ref/target/lib/kafka-tools-4.4.0.jar >/dev/null 2>&1 ||
  die "kafka-tools jar missing (run scripts/install-deps.sh)"
TOOL_DIR="$GR_TMP/tool"
mkdir -p "$TOOL_DIR"

JAAS_PLAIN='org.apache.kafka.common.security.plain.PlainLoginModule required user_admin="admin-secret";'
JAAS_SCRAM='org.apache.kafka.common.security.scram.ScramLoginModule required;'
GR_PORT="$(free_port)"
GR_DATA_DIR="$GR_TMP/gregord-data"
mkdir -p "$GR_DATA_DIR"
GR_GREGORD_ARGS=(--override "listeners=SASL_PLAINTEXT://127.0.0.1:$GR_PORT"
  --override "advertised.listeners=SASL_PLAINTEXT://127.0.0.1:$GR_PORT"
  --override "inter.broker.listener.name=SASL_PLAINTEXT"
  --override "sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-512"
  --override "listener.name.sasl_plaintext.plain.sasl.jaas.config=$JAAS_PLAIN"
  --override "listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config=$JAAS_SCRAM")
_gregord_launch

# One property file for both tools, as Kafka's clients write it (sasl.jaas.config): libgregor takes
# the username and password from the login module.
ADMIN_CFG="$GR_TMP/admin.properties"
printf 'security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n' >"$ADMIN_CFG"
printf 'sasl.jaas.config=%s required username="admin" password="admin-secret";\n' \
  org.apache.kafka.common.security.plain.PlainLoginModule >>"$ADMIN_CFG"
JAVA_CFG="$ADMIN_CFG"
g() { gr_timeout 30 "$GR_BUILD_DIR/gregor" configs --bootstrap-server "$BOOTSTRAP" --command-config "$ADMIN_CFG" "$@" 2>&1; }
kc() { gr_timeout 60 bash "$GR_REF_SH" tool "$TOOL_DIR" org.apache.kafka.tools.ConfigCommand \
  --bootstrap-server "$BOOTSTRAP" --command-config "$JAVA_CFG" "$@" 2>&1 | grep -v '^WARN\|SLF4J' || true; }

# --- quotas: alter with gregor
check_eq "alter user alice" "Completed updating config for user alice." \
  "$(g --alter --entity-type users --entity-name alice \
    --add-config 'producer_byte_rate=1048576,consumer_byte_rate=20000000,request_percentage=50.5')"
check_eq "alter user alice / client c1" "Completed updating config for user alice." \
  "$(g --alter --entity-type users --entity-name alice --entity-type clients --entity-name c1 \
    --add-config producer_byte_rate=100)"
check_eq "alter default user" "Completed updating default config for users in the cluster." \
  "$(g --alter --user-defaults --add-config producer_byte_rate=100)"
check_eq "alter default client (1e9)" "Completed updating default config for clients in the cluster." \
  "$(g --alter --entity-type clients --entity-default --add-config consumer_byte_rate=7,producer_byte_rate=1e9)"
check_eq "alter ip" "Completed updating config for ip 127.0.0.1." \
  "$(g --alter --ip 127.0.0.1 --add-config connection_creation_rate=7)"
check_eq "alter default ip" "Completed updating default config for ips in the cluster." \
  "$(g --alter --entity-type ips --entity-default --add-config connection_creation_rate=9)"

# --- describe: gregor and kafka-configs print the same lines
out="$(g --describe --entity-type users --entity-name alice)"
check_eq "describe alice: Java doubles" \
  "Quota configs for user-principal 'alice' are consumer_byte_rate=2.0E7, producer_byte_rate=1048576.0, request_percentage=50.5" \
  "$out"
for args in "--entity-type users" "--entity-type users --entity-type clients" "--entity-type clients" \
  "--entity-type ips"; do
  # shellcheck disable=SC2086
  mine="$(g --describe $args)" theirs="$(kc --describe $args)"
  check "describe $args: gregor and kafka-configs agree" test -n "$mine" -a "$mine" == "$theirs"
  [[ "$mine" == "$theirs" ]] || printf 'gregor:\n%s\nkafka-configs:\n%s\n' "$mine" "$theirs"
done
check_eq "describe the default client" \
  "Quota configs for the default client-id are consumer_byte_rate=7.0, producer_byte_rate=1.0E9" \
  "$(g --describe --client-defaults)"
check_eq "describe an entity without quotas prints nothing" "" "$(g --describe --entity-type users --entity-name nobody)"

# --- kafka-configs' checks and messages
bad() { # bad DESCRIPTION EXPECTED-MESSAGE ARGS...
  local d="$1" want="$2"
  shift 2
  local o rc=0
  o="$(g "$@")" || rc=$?
  check "$d (exit $rc)" test "$rc" -ne 0
  check "  ... says: $want" grep -qF "$want" <<<"$o"
}
bad "unknown key for users" "Only quota and SCRAM credential configs can be added for 'users' using --bootstrap-server. Unexpected config names: foo" \
  --alter --entity-type users --entity-name alice --add-config foo=1
bad "unknown keys for clients (sorted)" "Only quota configs can be added for 'clients' using --bootstrap-server. Unexpected config names: bar,foo" \
  --alter --entity-type clients --entity-name c --add-config foo=1,bar=2
bad "unknown key deleted" "Only quota and SCRAM credential configs can be deleted for 'users' using --bootstrap-server. Unexpected config names: foo" \
  --alter --entity-type users --entity-name alice --delete-config consumer_byte_rate,foo
bad "deleting a key not set" "Invalid config(s): consumer_byte_rate" \
  --alter --entity-type users --entity-name bob --delete-config consumer_byte_rate
bad "a user quota on an ip" "Only connection quota configs can be added for 'ips' using --bootstrap-server. Unexpected config names: producer_byte_rate" \
  --alter --entity-type ips --entity-name 1.2.3.4 --add-config producer_byte_rate=1
bad "an unparsable value" "Cannot parse quota configuration value for producer_byte_rate: abc" \
  --alter --entity-type users --entity-name alice --add-config producer_byte_rate=abc
bad "a fractional byte rate (the broker)" "producer_byte_rate cannot be a fractional value." \
  --alter --entity-type clients --entity-name c1 --add-config producer_byte_rate=1.5
bad "duplicate entity types" "Duplicate entity type(s) specified: users" --describe --entity-type users --user x
bad "topics with users" "Only 'users' and 'clients' entity types may be specified together" \
  --describe --entity-type topics --entity-type users
bad "more names than types" "More entity names specified than entity types" \
  --describe --entity-type users --entity-name alice --entity-name zz
bad "a name missing on alter" "An entity name must be specified for every entity type" \
  --alter --entity-type users --entity-type clients --entity-name a --add-config producer_byte_rate=1
bad "a bad ip" "The entity name for ips must be a valid IP or resolvable host, but it is: not_an_ip" \
  --alter --entity-type ips --entity-name not_an_ip --add-config connection_creation_rate=1

# --- SCRAM credentials
check_eq "SCRAM-SHA-512 for carol" "Completed updating config for user carol." \
  "$(g --alter --entity-type users --entity-name carol --add-config 'SCRAM-SHA-512=[iterations=8192,password=carol-pw]')"
bad "two mechanisms at once (Kafka refuses per user)" "A user credential cannot be altered twice in the same request" \
  --alter --user dave --add-config 'SCRAM-SHA-256=[password=a],SCRAM-SHA-512=[password=b]'
bad "too few iterations" "Iterations 100 is less than the minimum 4096 required for SCRAM-SHA-512" \
  --alter --user dave --add-config 'SCRAM-SHA-512=[iterations=100,password=a]'
bad "quotas and SCRAM together" "Cannot alter both quota and SCRAM credential configs simultaneously for 'users' using --bootstrap-server." \
  --alter --user dave --add-config 'SCRAM-SHA-512=[password=a],producer_byte_rate=5'
bad "SCRAM for the default user" "The use of --entity-default or --user-defaults is not allowed with User SCRAM Credentials" \
  --alter --user-defaults --add-config 'SCRAM-SHA-512=[password=a]'
want="SCRAM credential configs for user-principal 'carol' are SCRAM-SHA-512=iterations=8192"
check_eq "describe carol" "$want" "$(g --describe --entity-type users --entity-name carol)"
check_eq "kafka-configs describes carol the same" "$want" "$(kc --describe --entity-type users --entity-name carol)"
lg_produce() { # lg_produce USER PW: 5 records over SCRAM-SHA-512 with libgregor's producer
  gr_timeout 30 "$GR_BUILD_DIR/client_produce" -b "$BOOTSTRAP" -t scram-t -n 5 -X security.protocol=SASL_PLAINTEXT \
    -X sasl.mechanism=SCRAM-SHA-512 -X "sasl.username=$1" -X "sasl.password=$2" -X max.block.ms=3000 \
    -X delivery.timeout.ms=3000 2>&1 | grep -E '^(delivered|send error)' || true
}
check_eq "carol authenticates with the password gregor salted" "delivered=5 failed=0" "$(lg_produce carol carol-pw)"
check "a wrong password is refused" grep -q "Authentication failed" <<<"$(lg_produce carol nope)"
check_eq "delete carol's credential" "Completed updating config for user carol." \
  "$(g --alter --user carol --delete-config SCRAM-SHA-512)"
check "carol can no longer authenticate" grep -q "Authentication failed" <<<"$(lg_produce carol carol-pw)"

bad_cfg="$GR_TMP/bad.properties"
printf 'security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.jaas.config=%s required username;\n' \
  org.apache.kafka.common.security.plain.PlainLoginModule >"$bad_cfg"
o="$(gr_timeout 30 "$GR_BUILD_DIR/gregor" configs --bootstrap-server "$BOOTSTRAP" --command-config "$bad_cfg" \
  --describe --user alice 2>&1)" || true
check "a malformed sasl.jaas.config is refused" grep -q "Invalid sasl.jaas.config: Value not specified for key 'username' in JAAS config" <<<"$o"
[[ "$o" == *"Invalid sasl.jaas.config"* ]] || echo "$o"

# --- deleting quotas
check_eq "delete alice's request_percentage" "Completed updating config for user alice." \
  "$(g --alter --user alice --delete-config request_percentage)"
check_eq "alice without it" \
  "Quota configs for user-principal 'alice' are consumer_byte_rate=2.0E7, producer_byte_rate=1048576.0" \
  "$(g --describe --user alice)"
check_no_sanitizer_report
gr_finish
