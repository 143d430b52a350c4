#!/usr/bin/env bash
# Authorization with real principals (docs/security.md "Authorization"): gregord with a
# SASL_PLAINTEXT listener (PLAIN users admin, alice, bob), the StandardAuthorizer and
# super.users=User:admin, driven by confluent-kafka (tests/integration/acl_sasl.py) and kcat:
#  - admin, with no ACL at all, creates the topic, produces, sets group configs, grants ACLs
#    and consumes;
#  - alice with READ on a share group, a classic group and the topic share-consumes and
#    classic-consumes (and commits);
#  - bob: alice's ACLs are not his (GROUP_AUTHORIZATION_FAILED on her groups, JoinGroup
#    refused with DESCRIBE but no READ on the group), her group's offsets without the topic
#    (he may not DESCRIBE it), TOPIC_AUTHORIZATION_FAILED consuming or committing from his own
#    group and producing (confluent-kafka and kcat); alice, who may only read, may not produce;
#  - the principal is the SASL user: the same ACLs still apply after a restart.
# --ref runs the same against Apache Kafka 4.4.0 (SASL_PLAINTEXT listener beside its PLAINTEXT
# ones, whose User:ANONYMOUS is a super user too so that the broker's own traffic passes).
#   bash tests/integration/test_acl_sasl.sh [--ref] [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
gr_require kcat python3
PY="$(gr_venv_dir)/bin/python"
[[ -x "$PY" ]] || die "python venv missing ($PY): run scripts/install-deps.sh"
HERE="$GR_SOURCE_DIR/tests/integration"

SA=org.apache.kafka.metadata.authorizer.StandardAuthorizer
JAAS='org.apache.kafka.common.security.plain.PlainLoginModule required user_admin="admin-secret" user_alice="alice-secret" user_bob="bob-secret";'
case "$GR_TARGET" in
  gregord)
    GR_PORT="$(free_port)"
    GR_DATA_DIR="$GR_TMP/gregord-data"
    mkdir -p "$GR_DATA_DIR"
    GR_GREGORD_ARGS=(--override "listeners=SASL_PLAINTEXT://127.0.0.1:$GR_PORT"
      --override "advertised.listeners=SASL_PLAINTEXT://127.0.0.1:$GR_PORT" --override "inter.broker.listener.name=SASL_PLAINTEXT"
      --override sasl.enabled.mechanisms=PLAIN
      --override "listener.name.sasl_plaintext.plain.sasl.jaas.config=$JAAS"
      --override "authorizer.class.name=$SA" --override super.users=User:admin)
    _gregord_launch ;;
  ref)
    REF_DIR="$GR_TMP/ref-kafka"; GR_REF_DIRS+=("$REF_DIR"); SASL_PORT="$(free_port)"
    KAFKA_REF_SASL_PORT=$SASL_PORT gr_timeout 300 bash "$GR_REF_SH" start "$REF_DIR" "$(free_port)" \
      sasl.enabled.mechanisms=PLAIN "listener.name.sasl_plaintext.plain.sasl.jaas.config=$JAAS" \
      "authorizer.class.name=$SA" "super.users=User:admin;User:ANONYMOUS" >"$GR_TMP/ref-start.log" 2>&1 \
      || die "reference Kafka did not start: $(tail -n 5 "$GR_TMP/ref-start.log")"
    BOOTSTRAP="127.0.0.1:$SASL_PORT" ;;
  *) die "test_acl_sasl runs gregord or, with --ref, the reference Kafka (no --bootstrap)" ;;
esac

rc=0
gr_timeout 120 "$PY" "$HERE/acl_sasl.py" "$BOOTSTRAP" >"$GR_TMP/acl_sasl.out" 2>&1 || rc=$?
gr_relay_checks acl_sasl.py "$GR_TMP/acl_sasl.out" "$rc" 120

# kcat (librdkafka's classic producer and consumer) prints Kafka's error names.
kc() { # kc USER PW kcat-args...
  local u="$1" p="$2"; shift 2
  gr_timeout 20 kcat -b "$BOOTSTRAP" -X security.protocol=SASL_PLAINTEXT -X sasl.mechanisms=PLAIN \
    -X "sasl.username=$u" -X "sasl.password=$p" "$@"
}
out="$(echo x | kc bob bob-secret -P -t sasl-acl-t -X message.timeout.ms=5000 2>&1 || true)"
check "kcat as bob: the produce fails with Topic authorization failed" grep -q "Topic authorization failed" <<<"$out"

if [[ "$GR_TARGET" == ref ]]; then
  bash "$GR_REF_SH" stop "$REF_DIR"
  gr_timeout 300 bash "$GR_REF_SH" restart "$REF_DIR" >>"$GR_TMP/ref-start.log" 2>&1 || die "reference restart failed"
else
  stop_gregord
  restart_gregord
fi
out="$(kc alice alice-secret -C -t sasl-acl-t -p 0 -o beginning -e -f '%o\n' 2>&1 || true)"
check_eq "after a restart, kcat as alice reads the 20 records" "19" "$(grep -E '^[0-9]+$' <<<"$out" | tail -n 1)"
out="$(kc bob bob-secret -C -t sasl-acl-t -p 0 -o beginning -e 2>&1 || true)"
check "after a restart, kcat as bob is refused with Topic authorization failed" \
  grep -q "Topic authorization failed" <<<"$out"
if [[ "$GR_TARGET" == ref ]]; then
  bash "$GR_REF_SH" stop "$REF_DIR"
else
  stop_gregord
  check "gregord stopped cleanly" test "$GR_GREGORD_EXIT" -eq 0
  check_no_sanitizer_report
fi
gr_finish
