#!/usr/bin/env bash
# Authorization (docs/security.md "Authorization"): Kafka's StandardAuthorizer in gregord,
# as a differential against Apache Kafka 4.4.0 configured with the same authorizer and ACLs.
#
#  1. No authorizer: the ACL APIs answer SECURITY_DISABLED; an unknown authorizer class
#     stops start-up with one line.
#  2. gregord with the authorizer: the admin ACLs (host 127.0.0.2, see acl_matrix.py) are
#     created while allow.everyone.if.no.acl.found=true, then gregord restarts with it false:
#     the ACLs must have survived the restart (the matrix cannot run otherwise).
#  3. The ACL matrix against gregord and against Kafka 4.4.0; Kafka's controller listener and
#     an inter-broker listener INTERNAL are SASL_PLAINTEXT/PLAIN with the super user admin (the
#     broker-controller traffic and the share-state persister's requests must stay
#     authorized), the client listener PLAINTEXT, so every client is User:ANONYMOUS. Kafka's
#     admin ACLs are created through the controller with SASL. Both observations must be equal
#     and match the expected codes.
#  4. Kafka's kafka-acls tool (AclCommand, pinned jars) against gregord: --add and --list.
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
PY="$(gr_venv_dir)/bin/python"
[[ -x "$PY" ]] || PY=python3
M="$GR_SOURCE_DIR/tests/integration/acl_matrix.py"
SA=org.apache.kafka.metadata.authorizer.StandardAuthorizer
[[ "$GR_TARGET" == gregord ]] || die "test_acl.sh runs gregord and the reference itself (no --ref/--bootstrap)"

# Kafka starts in the background meanwhile (steps 1-2 open few connections: an ephemeral
# source port rarely takes the port the reference is about to bind).
REF_DIR="$GR_TMP/ref-kafka"; REF_PORT="$(free_port)"; GR_REF_DIRS+=("$REF_DIR")
JAAS='org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="admin-secret" user_admin="admin-secret";'
INT_PORT="$(free_port)"
gr_timeout 300 bash "$GR_REF_SH" start "$REF_DIR" "$REF_PORT" \
  "authorizer.class.name=$SA" super.users=User:admin \
  "listeners=PLAINTEXT://127.0.0.1:$REF_PORT,CONTROLLER://127.0.0.1:@CONTROLLER_PORT@,INTERNAL://127.0.0.1:$INT_PORT" \
  "advertised.listeners=PLAINTEXT://127.0.0.1:$REF_PORT,INTERNAL://127.0.0.1:$INT_PORT" \
  listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:SASL_PLAINTEXT,INTERNAL:SASL_PLAINTEXT \
  inter.broker.listener.name=INTERNAL sasl.mechanism.inter.broker.protocol=PLAIN \
  sasl.mechanism.controller.protocol=PLAIN listener.name.controller.sasl.enabled.mechanisms=PLAIN \
  listener.name.internal.sasl.enabled.mechanisms=PLAIN \
  "listener.name.controller.plain.sasl.jaas.config=$JAAS" "listener.name.internal.plain.sasl.jaas.config=$JAAS" \
  >"$GR_TMP/ref-start.log" 2>&1 &
ref_start=$!
GR_PIDS+=("$ref_start")

# --- 1. no authorizer; a wrong class
start_gregord
out="$(gr_timeout 30 "$PY" "$M" disabled "$BOOTSTRAP")"; rc=$?
gr_relay_checks disabled <(echo "$out") "$rc" 30
stop_gregord
msg="$(gr_timeout 10 "$(gregord_bin)" --override "log.dirs=$GR_TMP/wrong" --override listeners=PLAINTEXT://127.0.0.1:0 \
      --override authorizer.class.name=kafka.security.authorizer.AclAuthorizer 2>&1)"; rc=$?
check "an unknown authorizer.class.name stops start-up" test "$rc" -ne 0
check "and says why in one line" grep -q "authorizer.class.name: gregord implements $SA only" <<<"$msg"

# --- 2. gregord with ACLs that survive a restart
start_gregord --override "authorizer.class.name=$SA" --override allow.everyone.if.no.acl.found=true
check "admin ACLs created (allow.everyone.if.no.acl.found=true)" gr_timeout 30 "$PY" "$M" bootstrap "$BOOTSTRAP"
stop_gregord
GR_GREGORD_ARGS=(--override "authorizer.class.name=$SA" --override node.id=1)
restart_gregord
GREG_BOOT="$BOOTSTRAP"
check "gregord.acls holds the 4 admin ACLs" grep -q '^end 4$' "$GR_DATA_DIR/gregor.acls"

# --- 3. the matrix on both
wait "$ref_start" || die "reference Kafka did not start: $(tail -n 5 "$GR_TMP/ref-start.log")"
out="$(gr_timeout 90 "$PY" "$M" observe "$GREG_BOOT" "$GR_TMP/obs.gregord.json")"; rc=$?
gr_relay_checks "matrix on gregord" <(echo "$out") "$rc" 90
REF_BOOT="127.0.0.1:$REF_PORT"
check "Kafka admin ACLs created through its SASL controller listener" \
  gr_timeout 60 "$PY" "$M" bootstrap-sasl "$REF_BOOT" "127.0.0.1:$(cat "$REF_DIR/controller.port")"
out="$(gr_timeout 120 "$PY" "$M" observe "$REF_BOOT" "$GR_TMP/obs.kafka.json")"; rc=$?
# The expected codes are checked on Kafka too: a FAIL here means the expectation is wrong.
gr_relay_checks "matrix on Kafka 4.4.0" <(sed 's/^ok - /ok - Kafka: /; s/^FAIL - /FAIL - Kafka: /' <<<"$out") "$rc" 120
out="$("$PY" "$M" diff "$GR_TMP/obs.kafka.json" "$GR_TMP/obs.gregord.json")"; rc=$?
gr_relay_checks "differential" <(echo "$out") "$rc" 10
bash "$GR_REF_SH" stop "$REF_DIR"

# --- 4. kafka-acls (AclCommand) against gregord: the client needs ALTER and DESCRIBE on the cluster
acl_tool() { gr_timeout 60 bash "$GR_REF_SH" tool "$REF_DIR" org.apache.kafka.tools.AclCommand \
  --bootstrap-server "$GREG_BOOT" "$@" 2>&1; }
"$PY" - "$M" "$GREG_BOOT" <<'EOF' || fail "granting ALTER on the cluster to the client"
import sys, importlib.util
spec = importlib.util.spec_from_file_location("m", sys.argv[1]); m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
x = m.Ctx(sys.argv[2])
x.grant([(m.CLUSTER, "kafka-cluster", m.ALTER)])
EOF
out="$(acl_tool --add --allow-principal User:alice --operation Read --operation Describe --group share- \
  --resource-pattern-type prefixed)"
check "kafka-acls --add against gregord" grep -q "ResourcePattern(resourceType=GROUP, name=share-, patternType=PREFIXED)" <<<"$out"
out="$(acl_tool --list --group share- --resource-pattern-type prefixed)"
check "kafka-acls --list shows both ACLs" \
  test "$(grep -c 'principal=User:alice, host=\*, operation=\(READ\|DESCRIBE\), permissionType=ALLOW' <<<"$out")" -eq 2
# gregor acls (the CLI, on libgregor) on the same ACLs
GA=("$GR_BUILD_DIR/gregor" acls --bootstrap-server "$GREG_BOOT")
out="$("${GA[@]}" --list --group share- --resource-pattern-type prefixed)"
check "gregor acls --list shows kafka-acls' ACLs as kafka-acls does" test "$(sort <<<"$out")" == "$(printf '%s\n\t%s\n\t%s\n' \
  'Current ACLs for resource `ResourcePattern(resourceType=GROUP, name=share-, patternType=PREFIXED)`:' \
  '(principal=User:alice, host=*, operation=READ, permissionType=ALLOW)' \
  '(principal=User:alice, host=*, operation=DESCRIBE, permissionType=ALLOW)' | sort)"
out="$("${GA[@]}" --add --deny-principal User:eve --deny-host 10.0.0.9 --operation Write --topic orders)"
check "gregor acls --add prints Kafka's lines" test "$out" == "$(printf '%s\n \t%s' \
  'Adding ACLs for resource `ResourcePattern(resourceType=TOPIC, name=orders, patternType=LITERAL)`: ' \
  '(principal=User:eve, host=10.0.0.9, operation=WRITE, permissionType=DENY)')"
out="$("${GA[@]}" --add --allow-principal User:x --operation IdempotentWrite --topic orders 2>&1)"
check "gregor acls refuses an operation the resource type does not support" \
  grep -q "ResourceType TOPIC only supports operations" <<<"$out"
"${GA[@]}" --remove --force --group share- --resource-pattern-type prefixed
out="$("${GA[@]}" --list --principal User:alice)"
check "gregor acls --remove --force removed them" test -z "$out"
out="$("${GA[@]}" --list --topic orders)"
check "gregor acls --list --topic" grep -q "principal=User:eve, host=10.0.0.9, operation=WRITE, permissionType=DENY" <<<"$out"
stop_gregord
check "gregord stopped cleanly" test "$GR_GREGORD_EXIT" -eq 0
check_no_sanitizer_report
gr_finish
