#!/usr/bin/env bash
# TLS certificates renewed without a restart, as Kafka 4.4.0 does it: the dynamic per-broker
# config listener.name.<l>.ssl.keystore.location (IncrementalAlterConfigs on BROKER "1", through
# the gregor CLI and a raw wire client for the error codes). Certificates made here with openssl:
#  - cert A served; the file replaced by B (same DN and SANs) and the same path re-issued:
#    new connections get B, a connection opened before keeps working;
#  - refused with INVALID_REQUEST (42) and Kafka's messages, A/B still served: a certificate with
#    another DN, one that drops a SAN, a file that does not load, the key without the listener
#    prefix, the key at the cluster default level, a truststore where there was none;
#  - the same path re-issued while the file is broken: answered as Kafka answers (no error), the
#    old certificate kept and an error logged;
#  - validate-only builds nothing new; DescribeConfigs lists the dynamic key;
#  - a restart uses the persisted path (the server.properties file removed); with ssl.allow.dn.changes=true a new DN is accepted, and a
#    deletion of the key (back to the static file) is validated like a change.
# With --ref the same steps run against Kafka 4.4.0 (tests/ref/kafka-ref.sh, an SSL listener
# beside PLAINTEXT) and must give the same answers (codes and messages; gregord names the reason
# where Kafka says "Failed to load PEM SSL keystore"); the restart steps are gregord's only.
#   bash tests/integration/test_tls_reload.sh [--ref] [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
[[ "$GR_TARGET" != external ]] || die "test_tls_reload starts its own broker; no --bootstrap"
gr_require python3 openssl
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
C="$GR_TMP/certs"
bash "$HERE/tls_certs.sh" "$C" || die "cannot make test certificates"
mk() { # mk NAME SUBJECT SAN: key + certificate from the test CA, in NAME.pem
  openssl req -newkey rsa:2048 -nodes -keyout "$C/$1.key" -out "$C/$1.csr" -subj "$2" >/dev/null 2>&1 &&
    printf 'subjectAltName=%s\nbasicConstraints=CA:FALSE\n' "$3" >"$C/$1.ext" &&
    openssl x509 -req -in "$C/$1.csr" -CA "$C/ca.pem" -CAkey "$C/ca.key" -CAcreateserial -out "$C/$1.crt" \
      -days 30 -extfile "$C/$1.ext" >/dev/null 2>&1 && cat "$C/$1.key" "$C/$1.crt" >"$C/$1.pem" ||
    die "cannot make certificate $1"
}
mk b "/CN=localhost" "IP:127.0.0.1,DNS:localhost"
mk b2 "/CN=localhost" "IP:127.0.0.1,DNS:localhost,DNS:extra.example"
mk d "/CN=other" "IP:127.0.0.1,DNS:localhost,DNS:extra.example"
mk s "/CN=localhost" "DNS:other.example"
echo "not a PEM file" >"$C/broken.pem"
fp_of() { openssl x509 -in "$C/$1.crt" -outform DER | sha256sum | cut -d' ' -f1; }
A="$(fp_of server)"; B="$(fp_of b)"; B2="$(fp_of b2)"; D="$(fp_of d)"
LIVE="$C/live.pem"
cp "$C/server.pem" "$LIVE"

SP="$(free_port)"
SSL_KEYS=("listener.name.ssl.ssl.keystore.type=PEM" "listener.name.ssl.ssl.keystore.location=$LIVE")
if [[ "$GR_TARGET" == ref ]]; then
  GR_REF_DIR="$GR_TMP/ref-kafka"
  GR_REF_PORT="$(free_port)"
  GR_REF_DIRS+=("$GR_REF_DIR")
  gr_timeout 300 bash "$GR_REF_SH" start "$GR_REF_DIR" "$GR_REF_PORT" \
    "listeners=PLAINTEXT://127.0.0.1:$GR_REF_PORT,CONTROLLER://127.0.0.1:@CONTROLLER_PORT@,SSL://127.0.0.1:$SP" \
    "advertised.listeners=PLAINTEXT://127.0.0.1:$GR_REF_PORT,SSL://127.0.0.1:$SP" \
    "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,SSL:SSL" "${SSL_KEYS[@]}" ||
    die "reference Kafka did not start (logs in $GR_REF_DIR)"
  BOOTSTRAP="127.0.0.1:$GR_REF_PORT"
  SERVER_LOG="$GR_REF_DIR/server.log"
else
  GR_PORT="$(free_port)"
  GR_DATA_DIR="$GR_TMP/gregord-data"
  mkdir -p "$GR_DATA_DIR"
  GR_GREGORD_ARGS=(
    --override "listeners=PLAINTEXT://127.0.0.1:$GR_PORT,SSL://127.0.0.1:$SP"
    --override "advertised.listeners=PLAINTEXT://127.0.0.1:$GR_PORT,SSL://127.0.0.1:$SP"
    --override "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,SSL:SSL"
  )
  for kv in "${SSL_KEYS[@]}"; do GR_GREGORD_ARGS+=(--override "$kv"); done
  _gregord_launch
  SERVER_LOG="$GR_TMP/gregord.log"
fi
wait_port "$SP" 10 || die "SSL port not listening"
PY=(gr_timeout 20 env PYTHONPATH="$HERE" python3 "$HERE/tls_reload.py")
# The certificate a new connection gets; Kafka applies an accepted change when its metadata is
# published (milliseconds later), so wait up to 5 s for the expected one ($1) before answering.
fp() {
  local got i
  for ((i = 0; i < 50; i++)); do
    got="$("${PY[@]}" fp "127.0.0.1:$SP" "$C/ca.pem" 2>&1 || true)"
    [[ -z "${1:-}" || "$got" == "$1" ]] && break
    sleep 0.1
  done
  echo "$got"
}
cli() { gr_timeout 30 "$GR_BUILD_DIR/gregor" configs --bootstrap-server "$BOOTSTRAP" "$@" 2>&1; }
wire() { "${PY[@]}" alter "$BOOTSTRAP" "$@" 2>&1 || true; }
KEY=listener.name.ssl.ssl.keystore.location

check_eq "a new connection is served certificate A" "$A" "$(fp)"
# A connection opened now, before any change, and held open (python reads a line to go on).
coproc HOLD { "${PY[@]}" hold "127.0.0.1:$SP" "$C/ca.pem"; }
read -r -t 10 held <&"${HOLD[0]}" || held=""
check_eq "the held connection was served A" "$A" "$held"

# ---------------------------------------------------------------- same path, file replaced
cp "$C/b.pem" "$LIVE.tmp" && mv "$LIVE.tmp" "$LIVE"
out="$(cli --broker 1 --alter --add-config "$KEY=$LIVE")"
check "the same path re-issued is accepted ($out)" grep -q "Completed updating config for broker 1" <<<"$out"
check_eq "a new connection now gets B (same DN and SANs)" "$B" "$(fp "$B")"
echo go >&"${HOLD[1]}"
read -r -t 10 alive <&"${HOLD[0]}" || alive=""
check_eq "the connection opened before still works on its old session" "alive $A" "$alive"
wait "$HOLD_PID" 2>/dev/null || true

# ---------------------------------------------------------------- refusals (Kafka's codes and words)
got="$(wire 1 "$KEY=$C/d.pem")"
check "another DN: INVALID_REQUEST, Kafka's message ($got)" grep -q "^42 Invalid value org.apache.kafka.common.config.ConfigException: Validation of dynamic config update of SSLFactory failed: org.apache.kafka.common.config.ConfigException: Keystore DistinguishedName does not match:  existing={alias=kafka, DN=CN=localhost}, new={alias=kafka, DN=CN=other} for configuration Invalid dynamic configuration$" <<<"$got"
out="$(cli --broker 1 --alter --add-config "$KEY=$C/d.pem" || true)"
check "the CLI shows the refusal ($out)" grep -q "Keystore DistinguishedName does not match" <<<"$out"
got="$(wire 1 "$KEY=$C/s.pem")"
# (the order of the existing SANs is Java's hash-set order on Kafka, the certificate's on gregord)
check "a SAN dropped: INVALID_REQUEST ($got)" grep -Eq "^42 .*Keystore SubjectAltNames do not match:  existing=\{alias=kafka, SAN=\[(\[7, 127.0.0.1\], \[2, localhost\]|\[2, localhost\], \[7, 127.0.0.1\])\]\}, new={alias=kafka, SAN=\[\[2, other.example\]\]} for configuration Invalid dynamic configuration$" <<<"$got"
got="$(wire 1 "$KEY=$C/broken.pem")"
LOADFAIL="^42 Invalid value org.apache.kafka.common.config.ConfigException: Validation of dynamic config update of SSLFactory failed: org.apache.kafka.common.errors.InvalidConfigurationException: "
[[ "$GR_TARGET" == ref ]] && LF_BROKEN="Failed to load PEM SSL keystore .*broken.pem" LF_MISSING="Failed to load PEM SSL keystore .*missing.pem" ||
  LF_BROKEN="listener SSL: ssl.keystore.location=.*broken.pem: no PEM certificate found" LF_MISSING="missing.pem: cannot read: No such file"
check "a file that does not load: INVALID_REQUEST ($got)" grep -q "$LOADFAIL$LF_BROKEN for configuration Invalid dynamic configuration$" <<<"$got"
got="$(wire 1 "$KEY=$C/missing.pem")"
check "a missing file: INVALID_REQUEST ($got)" grep -q "$LOADFAIL.*$LF_MISSING.* for configuration Invalid dynamic configuration$" <<<"$got"
got="$(wire 1 "ssl.keystore.location=$C/b.pem")"
check_eq "no listener prefix: Kafka's refusal" \
  "42 These security configs can be dynamically updated only per-listener using the listener prefix: [ssl.keystore.location]" "$got"
got="$(wire "" "$KEY=$C/b.pem")"
check_eq "at the cluster default: Kafka's refusal" \
  "42 Cannot update these configs at default cluster level, broker id must be specified: [$KEY]" "$got"
got="$(wire 1 "listener.name.ssl.ssl.truststore.type=PEM" "listener.name.ssl.ssl.truststore.location=$C/ca.pem")"
check "a truststore added where none was: INVALID_REQUEST ($got)" grep -q "^42 .*ConfigException: Cannot add SSL truststore to an existing listener for which no truststore was configured. for configuration Invalid dynamic configuration$" <<<"$got"
got="$(wire 1 "listener.name.ssl.ssl.client.auth=required" --validate)"
if [[ "$GR_TARGET" == ref ]]; then
  check_eq "a listener key that needs a restart: Kafka stores it for the next start" "0 " "$got"
else
  check_eq "a listener key that needs a restart is refused" "42 Unknown broker config name: listener.name.ssl.ssl.client.auth" "$got"
fi
check_eq "after the refusals, B is still served" "$B" "$(fp)"

# ---------------------------------------------------------------- same path, broken file
cp "$C/broken.pem" "$LIVE"
got="$(wire 1 "$KEY=$LIVE")"
check_eq "the same path re-issued with a broken file: no error, as Kafka answers" "0 " "$got"
check_eq "the old certificate B keeps serving" "$B" "$(fp)"
[[ "$GR_TARGET" == ref ]] && LOGLINE="SSLFactory failed: .*Failed to load PEM SSL keystore .*live.pem" ||
  LOGLINE="listener SSL: the keystore or truststore file changed, but is not reloaded: .*no PEM certificate found"
sleep 0.5
grep -q "$LOGLINE" "$SERVER_LOG" && ok "the failed reload is logged" || fail "no log line for the failed reload"

# ---------------------------------------------------------------- validate only, new path, describe
got="$(wire 1 --validate "$KEY=$C/b2.pem")"
check_eq "validate-only accepts B2" "0 " "$got"
check_eq "validate-only changes nothing" "$B" "$(fp)"
out="$(cli --broker 1 --alter --add-config "$KEY=$C/b2.pem")"
check "a new path with the same DN and more SANs is accepted ($out)" grep -q "Completed updating" <<<"$out"
check_eq "a new connection gets B2" "$B2" "$(fp "$B2")"
out="$(cli --broker 1 --describe)"
check "the CLI lists the dynamic key ($out)" grep -q "$KEY=$C/b2.pem sensitive=false synonyms={DYNAMIC_BROKER_CONFIG:$KEY=$C/b2.pem}" <<<"$out"
check_eq "DescribeConfigs: dynamic value, the static one as synonym (as Kafka)" \
  "$KEY=$C/b2.pem source=2 sensitive=False synonyms=2:$KEY=$C/b2.pem,4:$KEY=$LIVE" \
  "$("${PY[@]}" describe "$BOOTSTRAP" 1 "$KEY" 2>&1)"

if [[ "$GR_TARGET" == ref ]]; then
  stop_ref_kafka
  gr_finish
fi
# ---------------------------------------------------------------- restart: the stored path is used
rm "$LIVE" # the static file is gone: B2 after the restart comes from the stored config
stop_gregord
check_eq "gregord stops cleanly" 0 "$GR_GREGORD_EXIT"
GR_GREGORD_ARGS+=(--override "listener.name.ssl.ssl.allow.dn.changes=true")
_gregord_launch
wait_port "$SP" 10 "$GR_GREGORD_PID" || die "SSL port not listening after the restart"
check_eq "after a restart, the dynamically set B2 is served (the static file is gone)" "$B2" "$(fp)"
grep -q "ssl.keystore.location=$LIVE: cannot read: .*(stored dynamic listener.name.\*.ssl.\* settings may replace it" \
  "$GR_TMP/gregord.log" && ok "start-up warns about the missing static file and goes on" ||
  fail "no start-up warning for the missing static keystore"
cp "$C/server.pem" "$LIVE" # the static path holds A again
got="$(wire 1 "$KEY=$C/d.pem")"
check_eq "with ssl.allow.dn.changes=true (static) a new DN is accepted" "0 " "$got"
check_eq "a new connection gets D" "$D" "$(fp)"
got="$(wire 1 "listener.name.ssl.ssl.keystore.certificate.chain=$(cat "$C/b2.crt")" \
  "listener.name.ssl.ssl.keystore.key=$(cat "$C/b2.key")")"
check "an inline keystore beside a dynamic file is refused (both given) ($got)" \
  grep -q "^42 .*set either ssl.keystore.location or ssl.keystore.certificate.chain and ssl.keystore.key, not both" <<<"$got"
got="$(wire 1 "listener.name.ssl.ssl.keystore.certificate.chain=$(cat "$C/b2.crt")" \
  "listener.name.ssl.ssl.keystore.key=$(cat "$C/b2.key")" "$KEY")"
check_eq "an inline PEM keystore (chain + key, the file key deleted) replaces the file" "0 " "$got"
check_eq "a new connection gets B2 from the inline keystore" "$B2" "$(fp "$B2")"
check_eq "DescribeConfigs hides the inline key (sensitive, null)" \
  "listener.name.ssl.ssl.keystore.key=None source=2 sensitive=True synonyms=2:listener.name.ssl.ssl.keystore.key=None" \
  "$("${PY[@]}" describe "$BOOTSTRAP" 1 listener.name.ssl.ssl.keystore.key 2>&1)"
got="$(wire 1 listener.name.ssl.ssl.keystore.certificate.chain listener.name.ssl.ssl.keystore.key)"
check "deleting the keys is validated too: the static file (A) lacks a SAN of B2 ($got)" \
  grep -q "^42 .*Keystore SubjectAltNames do not match" <<<"$got"
check_eq "B2 still served" "$B2" "$(fp)"

stop_gregord
check_eq "gregord stops cleanly (exit 0)" 0 "$GR_GREGORD_EXIT"
check_no_sanitizer_report
gr_finish
