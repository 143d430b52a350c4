#!/usr/bin/env bash
# `gregor configs` for client quotas (docs/cli.md "configs"), on one plaintext broker: gregord, or
# with --ref Apache Kafka 4.4.0 (ctest ref/test_cli_quotas; libgregor's quota calls on Kafka):
#  - every entity form kafka-configs takes: --entity-type users|clients|ips with --entity-name
#    or --entity-default, users and clients together, the --user/--client/--ip shortcuts and
#    --user-defaults/--client-defaults/--ip-defaults; --add-config (Java's number syntax:
#    " 5d ", 0x1p4) and --delete-config;
#  - the describe output is byte for byte what kafka-configs (ConfigCommand, kafka-tools 4.4.0)
#    prints for the same broker state: lines in the order of the Admin's HashMaps (not sorted);
#  - errors: the same message and exit status as kafka-configs (unknown key, bad value,
#    NaN refused by the broker, a malformed --add-config list); a missing entity name is a usage error (exit 2, Kafka 1);
#  - --output json: one object per quota with the value as a JSON number.
#   bash tests/integration/test_cli_quotas.sh [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
gr_require java
ls "$GR_SOURCE_DIR"/tests/ref/target/lib/kafka-tools-4.4.0.jar >/dev/null 2>&1 ||
  die "kafka-tools jar missing (run scripts/install-deps.sh)"
TOOL_DIR="$GR_TMP/tool"
mkdir -p "$TOOL_DIR"
start_target

# g / kc ARGS: stdout and stderr, then "exit N"
g() { local rc=0; gr_timeout 30 "$GR_BUILD_DIR/gregor" configs --bootstrap-server "$BOOTSTRAP" "$@" 2>&1 || rc=$?
  echo "exit $rc"; }
kc() { local rc=0; gr_timeout 60 bash "$GR_REF_SH" tool "$TOOL_DIR" org.apache.kafka.tools.ConfigCommand \
  --bootstrap-server "$BOOTSTRAP" "$@" >"$GR_TMP/kc.out" 2>&1 || rc=$?
  grep -v '^WARN\|SLF4J\|^	at \|^Error while executing\|^java.util.concurrent' "$GR_TMP/kc.out" |
    sed 's/^Caused by: [A-Za-z.]*Exception: //' || true
  echo "exit $rc"; }
same() { # same DESCRIPTION ARGS...: gregor and kafka-configs print the same lines, in order (gregor
  # prefixes errors with "Error: "; kafka-configs adds a stack trace to some: left out)
  local d="$1" mine theirs
  shift
  mine="$(g "$@" | sed 's/^Error: //')" theirs="$(kc "$@")"
  check "$d: gregor prints what kafka-configs prints" test "$mine" == "$theirs"
  [[ "$mine" == "$theirs" ]] || printf 'gregor:\n%s\nkafka-configs:\n%s\n' "$mine" "$theirs"
}
done_user() { echo "Completed updating config for user $1."; echo "exit 0"; }

# --- every form of --alter
check_eq "users --entity-name, four keys" "$(done_user alice)" "$(g --alter --entity-type users --entity-name alice \
  --add-config 'producer_byte_rate=1024,consumer_byte_rate=2048,request_percentage=50,controller_mutation_rate=10')"
for u in bob carol dave erin frank; do
  check_eq "--user $u (Java syntax ' 5d ', 0x1p4)" "$(done_user $u)" \
    "$(g --alter --user $u --add-config 'producer_byte_rate= 5d ,request_percentage=0x1p4')"
done
check_eq "users + clients" "$(done_user alice)" "$(g --alter --entity-type users --entity-name alice \
  --entity-type clients --entity-name c1 --add-config producer_byte_rate=5,consumer_byte_rate=6)"
check_eq "clients then users: the first type names the entity" \
  "$(printf 'Completed updating config for client c2.\nexit 0')" \
  "$(g --alter --entity-type clients --entity-name c2 --entity-type users --entity-default --add-config producer_byte_rate=7)"
check_eq "--user-defaults" "$(printf 'Completed updating default config for users in the cluster.\nexit 0')" \
  "$(g --alter --user-defaults --add-config consumer_byte_rate=2e7)"
check_eq "--client c3" "$(printf 'Completed updating config for client c3.\nexit 0')" \
  "$(g --alter --client c3 --add-config request_percentage=12.5)"
check_eq "clients --entity-default" "$(printf 'Completed updating default config for clients in the cluster.\nexit 0')" \
  "$(g --alter --entity-type clients --entity-default --add-config producer_byte_rate=1e9)"
check_eq "--ip" "$(printf 'Completed updating config for ip 127.0.0.1.\nexit 0')" \
  "$(g --alter --ip 127.0.0.1 --add-config connection_creation_rate=5)"
check_eq "--ip-defaults" "$(printf 'Completed updating default config for ips in the cluster.\nexit 0')" \
  "$(g --alter --ip-defaults --add-config connection_creation_rate=9)"
check_eq "--client-defaults --delete-config" \
  "$(printf 'Completed updating default config for clients in the cluster.\nexit 0')" \
  "$(g --alter --client-defaults --delete-config producer_byte_rate)"
check_eq "--delete-config k1,k2" "$(done_user frank)" \
  "$(g --alter --user frank --delete-config producer_byte_rate,request_percentage)"

# --- describe: the same lines in the same order as kafka-configs
same "all users" --describe --entity-type users
same "all users and clients" --describe --entity-type users --entity-type clients
same "all clients" --describe --entity-type clients
same "all ips" --describe --entity-type ips
check_eq "one user" "$(printf "%s\nexit 0" "Quota configs for user-principal 'alice' are producer_byte_rate=1024.0, consumer_byte_rate=2048.0, controller_mutation_rate=10.0, request_percentage=50.0")" \
  "$(g --describe --entity-type users --entity-name alice)"
check_eq "--user-defaults" "$(printf "%s\nexit 0" "Quota configs for the default user-principal are consumer_byte_rate=2.0E7")" \
  "$(g --describe --user-defaults)"
check_eq "--user + --client" "$(printf "%s\nexit 0" "Quota configs for user-principal 'alice', client-id 'c1' are consumer_byte_rate=6.0, producer_byte_rate=5.0")" \
  "$(g --describe --user alice --client c1)"
check_eq "--ip-defaults" "$(printf "%s\nexit 0" "Quota configs for the default ip are connection_creation_rate=9.0")" \
  "$(g --describe --ip-defaults)"
check_eq "all deleted: frank is gone" "exit 0" "$(g --describe --user frank)"

# --- errors: kafka-configs' messages and exit status
same "a key ips do not take, and the quota list of five keys on a user" --alter --user zed \
  --add-config 'producer_byte_rate=1024,consumer_byte_rate=2048,request_percentage=50,controller_mutation_rate=10,connection_creation_rate=5'
same "a bad value" --alter --user zed --add-config producer_byte_rate=abc
same "NaN goes to the broker, which refuses it" --alter --user zed --add-config producer_byte_rate=NaN
same "deleting a key that is not set" --alter --user bob --delete-config consumer_byte_rate
out="$(g --alter --entity-type users --add-config producer_byte_rate=1)"
check "a missing entity name: Kafka's message, usage error" grep -qxF \
  "Error: An entity-name or default entity must be specified with --alter of users, clients, brokers or ips" <<<"$out"
check "  ... exit 2" grep -qx "exit 2" <<<"$out"
same "two '=' in one config" --alter --user zed --add-config 'producer_byte_rate=1=2,,'
out="$(g --alter --user zed --add-config 'producer byte rate=1')"
check_eq "a blank inside a key" "$(printf 'Error: Invalid character found for config key: producer byte rate\nexit 1')" "$out"

# --- --output json
out="$(g --describe --user-defaults --client c2 --output json)"
check_eq "json: one object per quota, the value a number" \
  "$(printf '%s\nexit 0' '[{"kind":"quota","user":null,"client_id":"c2","ip":null,"user_default":true,"client_id_default":false,"ip_default":false,"key":"producer_byte_rate","value":7.0}]')" \
  "$out"
out="$(g --describe --entity-type ips --output json)"
check "json: both ip entities" test "$(grep -o '"connection_creation_rate"' <<<"$out" | wc -l)" -eq 2
check_eq "json: nothing matched is []" "$(printf '[]\nexit 0')" "$(g --describe --user nobody --output json)"
[[ "$GR_TARGET" != gregord ]] || check_no_sanitizer_report
gr_finish
