#!/usr/bin/env bash
# Client quotas on gregord (docs/quotas.md):
#  1. Kafka's own kafka-configs (org.apache.kafka.tools.ConfigCommand, kafka-tools 4.4.0) sets
#     user, user+default-client, default-client and IP quotas and describes them; a fractional
#     byte rate is refused with Kafka's message.
#  2. Throttling: a producer limited by producer_byte_rate and a fetcher limited by
#     consumer_byte_rate (tests/integration/quota_wire.py, honouring throttle_time_ms as
#     KIP-219 clients do) achieve their quota within 10 %, measured over whole quota cycles
#     (quota.window.num=2, quota.window.size.seconds=1 keep a cycle near 2 s).
#     ShareFetch (gregord only): throttled answers keep their acquired records.
#     request_percentage: Metadata requests sent without waiting get ThrottleTimeMs (at most a
#     window) and the connection is muted that long.
#  3. connection_creation_rate on an ip entity: connections past it get no answer and are
#     closed after their throttle time (at most a window).
# With --ref, 1-3 run against Apache Kafka 4.4.0 (tests/ref/kafka-ref.sh): the same
# expectations hold there (measured the same: 199192 B/s, 284457 B/s, 14 of 20 connections).
#  4. The quotas survive a restart (gregor.quotas, written with fsync before the answer);
#     max.connection.creation.rate: 40 connections in a row are all served, at about the rate.
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
GR_TEST_TIMEOUT="${GR_TEST_TIMEOUT:-180}"
gr_init "$@"
PY="$(gr_venv_dir)/bin/python"
[[ -x "$PY" ]] || PY=python3
W="$GR_SOURCE_DIR/tests/integration/quota_wire.py"
[[ "$GR_TARGET" == gregord || "$GR_TARGET" == ref ]] || die "test_quotas.sh starts its broker itself"
TOOL_DIR="$GR_TMP/tool"; mkdir -p "$TOOL_DIR"
REF=0; [[ "$GR_TARGET" == ref ]] && REF=1 # --ref: the same expectations on Kafka 4.4.0 (no metrics, no restart)

ADMIN_PORT="$(free_port)"
if ((REF)); then
  start_ref_kafka quota.window.num=2 quota.window.size.seconds=1
else
  start_gregord --override quota.window.num=2 --override quota.window.size.seconds=1 \
    --override "admin.listener=127.0.0.1:$ADMIN_PORT"
fi
# Kafka's broker applies a quota once the controller's record reaches it: wait a moment there.
settle() { if ((REF)); then sleep 1.5; fi; }
qset() { "$PY" "$W" set "$BOOTSTRAP" "$@" && settle; }
metric() { # metric NAME_WITH_LABELS: its value in GET /metrics
  curl -s "http://127.0.0.1:$ADMIN_PORT/metrics" | awk -v n="$1" '$1 == n {print $2}'; }
configs() { gr_timeout 60 bash "$GR_REF_SH" tool "$TOOL_DIR" org.apache.kafka.tools.ConfigCommand \
  --bootstrap-server "$BOOTSTRAP" "$@" 2>&1 | grep -v '^WARN\|SLF4J' || true; }

# --- 1. kafka-configs
out="$(configs --alter --entity-type users --entity-name alice \
  --add-config 'producer_byte_rate=1048576,consumer_byte_rate=2097152,request_percentage=50')"
check "kafka-configs --alter users alice" grep -q "Completed updating config for user alice." <<<"$out"
out="$(configs --alter --entity-type users --entity-name bob --entity-type clients --entity-default \
  --add-config producer_byte_rate=4096)"
check "kafka-configs --alter users bob / clients default" grep -q "Completed updating config for user bob" <<<"$out"
out="$(configs --alter --entity-type ips --entity-default --add-config connection_creation_rate=1000)"
check "kafka-configs --alter ips default" grep -q "Completed updating default config for ips" <<<"$out"
settle
out="$(configs --describe --entity-type users)"
# The order of the values follows Kafka's hash maps (and the change history on Kafka).
line="$(grep -F "Quota configs for user-principal 'alice' are " <<<"$out")"
check "kafka-configs --describe users lists alice's quotas" test -n "$line"
for kv in consumer_byte_rate=2097152.0 producer_byte_rate=1048576.0 request_percentage=50.0; do
  check "  ... with $kv" grep -qF "$kv" <<<"$line"
done
out="$(configs --alter --entity-type clients --entity-name c1 --add-config producer_byte_rate=1.5)"
check "a fractional producer_byte_rate is refused as Kafka does" grep -q \
  "InvalidRequestException: producer_byte_rate cannot be a fractional value." <<<"$out"

# --- 2. throttling (quotas set on the wire: the JVM tool takes seconds per call)
"$PY" - "$BOOTSTRAP" "$GR_SOURCE_DIR/tests/integration" <<'PYEOF' || fail "creating the topics"
import sys; sys.path.insert(0, sys.argv[2])
import kwire
c = kwire.Conn(sys.argv[1])
for t in ("qp", "qf"):
    assert kwire.create_topic(c, t)[0] == 0
PYEOF
qset client-id qprod producer_byte_rate 200000 || fail "setting producer_byte_rate"
qset client-id qcons consumer_byte_rate 300000 || fail "setting consumer_byte_rate"
out="$(gr_timeout 40 "$PY" "$W" produce "$BOOTSTRAP" qp qprod 200000 4 1000)"; rc=$?
gr_relay_checks "produce throttling" <(echo "$out") "$rc" 40
# 12 s of quota cycles: Kafka's windowed rate lets one cycle carry up to twice the quota, so a
# 6 s measurement that happened to end after such a cycle read +10.8 % (a CI dry run).
gr_timeout 40 "$PY" "$W" fill "$BOOTSTRAP" qf 12 || fail "filling the fetch topic"
out="$(gr_timeout 60 "$PY" "$W" fetch "$BOOTSTRAP" qf qcons 300000 12 1000)"; rc=$?
gr_relay_checks "fetch throttling" <(echo "$out") "$rc" 60

qset client-id qreq request_percentage 0.05 || fail "setting request_percentage"
out="$(gr_timeout 30 "$PY" "$W" request "$BOOTSTRAP" qreq 0.05 1000)"; rc=$?
gr_relay_checks "request_percentage" <(echo "$out") "$rc" 30
if ((!REF)); then
# ShareFetch: throttled like Fetch, but keeps its acquired records (Kafka answers it empty).
qset client-id kwire-test consumer_byte_rate 100000 || fail "setting the share client's consumer_byte_rate"
out="$(gr_timeout 40 "$PY" "$W" share "$BOOTSTRAP" 100000)"; rc=$?
gr_relay_checks "share fetch throttling" <(echo "$out") "$rc" 40
check "metrics: produce throttles counted" test "$(metric 'gregor_quota_throttled_responses_total{quota="produce"}')" -gt 0
check "metrics: fetch throttle time summed" test "$(metric 'gregor_quota_throttle_time_ms_total{quota="fetch"}')" -gt 0
check "metrics: sensors kept" test "$(metric gregor_quota_sensors)" -gt 0
fi

# --- 3. connection creation: the IP's connection_creation_rate holds and closes connections
# past it; max.connection.creation.rate (after the restart) makes accepts wait
qset ip 127.0.0.1 connection_creation_rate 5 || fail "setting connection_creation_rate"
out="$(gr_timeout 30 "$PY" "$W" conn-rate "$BOOTSTRAP" 5 20)"; rc=$?
gr_relay_checks "connection_creation_rate" <(echo "$out") "$rc" 30
# This client is throttled too until the windows have passed.
for i in 1 2 3 4 5; do
  sleep 1; "$PY" "$W" set "$BOOTSTRAP" ip 127.0.0.1 connection_creation_rate 100000 2>/dev/null && break
done
check "connection_creation_rate raised again once the throttle passed" test "$i" -lt 5
if ((REF)); then stop_ref_kafka; gr_finish; fi
check "metrics: throttled connections counted" test "$(metric gregor_quota_connections_throttled_total)" -gt 0
check "metrics: refused{reason=connection_creation_rate}" \
  test "$(metric 'gregor_connections_refused_total{reason="connection_creation_rate"}')" -gt 0

# --- 4. restart (with a broker-wide connection creation rate)
stop_gregord
GR_GREGORD_ARGS+=(--override max.connection.creation.rate=10)
restart_gregord
out="$("$PY" - "$BOOTSTRAP" "$GR_SOURCE_DIR/tests/integration" <<'PYEOF'
import sys; sys.path.insert(0, sys.argv[2])
import kwire, quota_wire as q
err, msg, entries, _ = q.describe(kwire.Conn(sys.argv[1]), [])
for ent, vals in sorted(entries, key=repr):
    print(sorted(ent, key=repr), sorted(vals.items()))
PYEOF
)"
check "after a restart: alice's quotas" grep -qF "[('user', 'alice')] [('consumer_byte_rate', 2097152.0), ('producer_byte_rate', 1048576.0), ('request_percentage', 50.0)]" <<<"$out"
check "after a restart: bob with the default client" grep -qF "[('client-id', None), ('user', 'bob')] [('producer_byte_rate', 4096.0)]" <<<"$out"
check "after a restart: the default IP" grep -qF "[('ip', None)] [('connection_creation_rate', 1000.0)]" <<<"$out"
check "after a restart: qprod's producer_byte_rate" grep -qF "[('client-id', 'qprod')] [('producer_byte_rate', 200000.0)]" <<<"$out"
out="$(gr_timeout 30 "$PY" "$W" conn-burst "$BOOTSTRAP" 10 40)"; rc=$?
gr_relay_checks "max.connection.creation.rate" <(echo "$out") "$rc" 30
stop_gregord
gr_finish
