#!/usr/bin/env bash
# Java clients and tools of Apache Kafka 4.4.0 against gregord over TLS (issue 10), with
# certificates made in the test (tests/integration/tls_certs.sh) and PEM trust/key stores in
# --command-config files:
#  - ProducerPerformance (KafkaProducer, acks=all) writes 1000 records over SSL;
#  - ConsoleConsumer (KafkaConsumer, assigned partition) reads them over mTLS
#    (ssl.client.auth=required) with a client keystore; without one it is refused
#    (certificate_required);
#  - kafka-configs sets share.auto.offset.reset on a share group over SSL, the console share
#    consumer (KafkaShareConsumer) drains the 1000 records, kafka-share-groups describes the
#    group over SSL;
#  - over SASL_SSL (authorizer on, admin a super user over PLAIN): kafka-configs creates SCRAM
#    credentials, kafka-acls adds producer and consumer ACLs for carol and lists them,
#    ProducerPerformance writes as carol with SCRAM-SHA-512, the console share consumer reads as
#    carol with SCRAM-SHA-256, and dave (SCRAM, no ACL) is refused with TopicAuthorizationException.
# gregord only.   bash tests/interop/test_java_tls.sh [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
[[ "$GR_TARGET" == gregord ]] || die "test_java_tls starts gregord with its own TLS listeners"
gr_require java openssl
C="$GR_TMP/certs"
bash "$GR_SOURCE_DIR/tests/integration/tls_certs.sh" "$C" || die "cannot make test certificates"
cat "$C/client.key" "$C/client.crt" >"$C/client.pem"
GR_PORT="$(free_port)"; SP="$(free_port)"; MP="$(free_port)"; QP="$(free_port)"
GR_DATA_DIR="$GR_TMP/gregord-data"; mkdir -p "$GR_DATA_DIR"
GR_GREGORD_ARGS=(
  --override "listeners=PLAINTEXT://127.0.0.1:$GR_PORT,SSL://127.0.0.1:$SP,MTLS://127.0.0.1:$MP,SECURE://127.0.0.1:$QP"
  --override "advertised.listeners=PLAINTEXT://127.0.0.1:$GR_PORT,SSL://127.0.0.1:$SP,MTLS://127.0.0.1:$MP,SECURE://127.0.0.1:$QP"
  --override "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,SSL:SSL,MTLS:SSL,SECURE:SASL_SSL"
  --override "listener.name.secure.sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512"
  --override "listener.name.secure.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_admin=\"admin-secret\";"
  --override "listener.name.secure.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;"
  --override "listener.name.secure.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;"
  --override authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
  --override super.users=User:admin --override allow.everyone.if.no.acl.found=true
  --override ssl.keystore.type=PEM --override "ssl.keystore.location=$C/server.pem"
  --override listener.name.mtls.ssl.client.auth=required --override listener.name.mtls.ssl.truststore.type=PEM
  --override "listener.name.mtls.ssl.truststore.location=$C/ca.pem"
)
_gregord_launch
for p in $SP $MP $QP; do wait_port "$p" 10 "$GR_GREGORD_PID" || die "port $p not listening"; done
printf 'security.protocol=SSL\nssl.truststore.type=PEM\nssl.truststore.location=%s\n' "$C/ca.pem" >"$GR_TMP/ssl.properties"
cp "$GR_TMP/ssl.properties" "$GR_TMP/mtls.properties"
printf 'ssl.keystore.type=PEM\nssl.keystore.location=%s\n' "$C/client.pem" >>"$GR_TMP/mtls.properties"
TOOLS="$GR_TMP/tools"; mkdir -p "$TOOLS"
jtool() { gr_timeout 120 bash "$GR_SOURCE_DIR/tests/ref/kafka-ref.sh" tool "$TOOLS" "$@"; }

out="$(jtool org.apache.kafka.tools.ProducerPerformance --topic jtls --num-records 1000 --record-size 100 \
  --throughput -1 --producer-props "bootstrap.servers=127.0.0.1:$SP" acks=all \
  --producer.config "$GR_TMP/ssl.properties" 2>"$GR_TMP/pp.err" | tail -n 1)" || true
[[ "$out" == "1000 records sent,"* ]] && ok "KafkaProducer over SSL: $out" ||
  fail "ProducerPerformance over SSL: $out $(tail -n 3 "$GR_TMP/pp.err")"
n="$(jtool org.apache.kafka.tools.consumer.ConsoleConsumer --bootstrap-server "127.0.0.1:$MP" --topic jtls \
  --partition 0 --offset earliest --max-messages 1000 --timeout-ms 20000 --command-config "$GR_TMP/mtls.properties" \
  2>"$GR_TMP/cc.err" | wc -l)" || true
check_eq "KafkaConsumer over mTLS reads the 1000 records" 1000 "$n"
jtool org.apache.kafka.tools.consumer.ConsoleConsumer --bootstrap-server "127.0.0.1:$MP" --topic jtls --partition 0 \
  --offset earliest --max-messages 1 --timeout-ms 8000 --command-config "$GR_TMP/ssl.properties" \
  >"$GR_TMP/nocert.out" 2>&1 || true
grep -q "SslAuthenticationException\|certificate_required" "$GR_TMP/nocert.out" &&
  ok "KafkaConsumer without a client certificate refused on the mTLS listener (certificate_required)" ||
  fail "no SSL authentication failure without a client certificate: $(grep -v '^\s*at ' "$GR_TMP/nocert.out" | tail -n 3)"
out="$(jtool org.apache.kafka.tools.ConfigCommand --bootstrap-server "127.0.0.1:$SP" --command-config "$GR_TMP/ssl.properties" \
  --entity-type groups --entity-name jtls-sg --alter --add-config share.auto.offset.reset=earliest 2>&1 | tail -n 1)" || true
check_eq "kafka-configs over SSL sets the share group's config" "Completed updating config for group jtls-sg." "$out"
n="$(jtool org.apache.kafka.tools.consumer.ConsoleShareConsumer --bootstrap-server "127.0.0.1:$SP" \
  --command-config "$GR_TMP/ssl.properties" --topic jtls --group jtls-sg --max-messages 1000 --timeout-ms 20000 \
  2>"$GR_TMP/sc.err" | wc -l)" || true
check_eq "KafkaShareConsumer over SSL drains the 1000 records" 1000 "$n"
out="$(jtool org.apache.kafka.tools.consumer.group.ShareGroupCommand --bootstrap-server "127.0.0.1:$SP" \
  --command-config "$GR_TMP/ssl.properties" --describe --group jtls-sg 2>&1 | awk '$1 == "jtls-sg" {print $2, $3, $4, $5}')" || true
check_eq "kafka-share-groups --describe over SSL (topic partition start-offset lag)" "jtls 0 1000 0" "$out"

# ---------------------------------------------------------------- SASL_SSL: SCRAM, ACLs
sasl_props() { # sasl_props FILE MECH USER PASSWORD
  local module=scram.ScramLoginModule
  [[ "$2" == PLAIN ]] && module=plain.PlainLoginModule
  { cat "$GR_TMP/ssl.properties"
    printf 'security.protocol=SASL_SSL\nsasl.mechanism=%s\n' "$2"
    printf 'sasl.jaas.config=org.apache.kafka.common.security.%s required username="%s" password="%s";\n' "$module" "$3" "$4"
  } >"$1"
}
sasl_props "$GR_TMP/admin.properties" PLAIN admin admin-secret
sasl_props "$GR_TMP/carol512.properties" SCRAM-SHA-512 carol carol-512
sasl_props "$GR_TMP/carol256.properties" SCRAM-SHA-256 carol carol-256
sasl_props "$GR_TMP/dave.properties" SCRAM-SHA-256 dave dave-256
QB="127.0.0.1:$QP"
# (two mechanisms of one user in one request are DUPLICATE_RESOURCE, on Kafka too: one each)
for cred in carol:SCRAM-SHA-512:carol-512 carol:SCRAM-SHA-256:carol-256 dave:SCRAM-SHA-256:dave-256; do
  IFS=: read -r user mech pw <<<"$cred"
  out="$(jtool org.apache.kafka.tools.ConfigCommand --bootstrap-server "$QB" --command-config "$GR_TMP/admin.properties" \
    --alter --entity-type users --entity-name "$user" --add-config "$mech=[password=$pw]" 2>&1 | tail -n 1)" || true
  check_eq "kafka-configs over SASL_SSL (PLAIN admin) creates $user's $mech credential" \
    "Completed updating config for user $user." "$out"
done
jtool org.apache.kafka.tools.AclCommand --bootstrap-server "$QB" --command-config "$GR_TMP/admin.properties" --add \
  --allow-principal User:carol --producer --consumer --topic jscram --group jscram-sg >"$GR_TMP/acl-add.out" 2>&1 || true
out="$(jtool org.apache.kafka.tools.AclCommand --bootstrap-server "$QB" --command-config "$GR_TMP/admin.properties" \
  --list --topic jscram 2>&1 | grep -o 'principal=User:carol, host=\*, operation=[A-Z]*, permissionType=ALLOW' | sort | tr '\n' ';')" || true
check_eq "kafka-acls over SASL_SSL: --producer --consumer ACLs of carol on topic jscram" \
  "principal=User:carol, host=*, operation=CREATE, permissionType=ALLOW;principal=User:carol, host=*, operation=DESCRIBE, permissionType=ALLOW;principal=User:carol, host=*, operation=READ, permissionType=ALLOW;principal=User:carol, host=*, operation=WRITE, permissionType=ALLOW;" \
  "$out"
out="$(jtool org.apache.kafka.tools.ProducerPerformance --topic jscram --num-records 500 --record-size 100 \
  --throughput -1 --producer-props "bootstrap.servers=$QB" acks=all \
  --producer.config "$GR_TMP/carol512.properties" 2>"$GR_TMP/pp-scram.err" | tail -n 1)" || true
[[ "$out" == "500 records sent,"* ]] && ok "KafkaProducer over SASL_SSL SCRAM-SHA-512 as carol: $out" ||
  fail "ProducerPerformance over SASL_SSL SCRAM-SHA-512: $out $(tail -n 3 "$GR_TMP/pp-scram.err")"
jtool org.apache.kafka.tools.ConfigCommand --bootstrap-server "$QB" --command-config "$GR_TMP/admin.properties" \
  --entity-type groups --entity-name jscram-sg --alter --add-config share.auto.offset.reset=earliest >/dev/null 2>&1 || true
n="$(jtool org.apache.kafka.tools.consumer.ConsoleShareConsumer --bootstrap-server "$QB" \
  --command-config "$GR_TMP/carol256.properties" --topic jscram --group jscram-sg --max-messages 500 --timeout-ms 20000 \
  2>"$GR_TMP/sc-scram.err" | wc -l)" || true
check_eq "KafkaShareConsumer over SASL_SSL SCRAM-SHA-256 as carol drains the 500 records" 500 "$n"
out="$(jtool org.apache.kafka.tools.ProducerPerformance --topic jscram --num-records 1 --record-size 10 \
  --throughput -1 --producer-props "bootstrap.servers=$QB" acks=all max.block.ms=10000 delivery.timeout.ms=10000 \
  request.timeout.ms=5000 --producer.config "$GR_TMP/dave.properties" 2>&1 || true)"
grep -q "TopicAuthorizationException" <<<"$out" &&
  ok "dave (SCRAM-SHA-256, no ACL) is refused: TopicAuthorizationException" ||
  fail "dave was not refused with TopicAuthorizationException: $(grep -v '^\s*at ' <<<"$out" | tail -n 3)"

stop_gregord
check_eq "gregord stops cleanly (exit 0)" 0 "$GR_GREGORD_EXIT"
check_no_sanitizer_report
gr_finish
