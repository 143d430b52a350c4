#!/usr/bin/env bash
# TLS listeners (issue 10, items 1 and 2): gregord with five listeners at once —
# PLAINTEXT, SSL (encrypted key, per-listener keystore), MTLS (custom name mapped to SSL, inline
# PEM keystore whose key lost its line breaks as in a .properties continuation, ssl.client.auth=required, principal mapping rule), EXPIRED and UNTRUSTED (server
# certificates a client must refuse) — and certificates made here with openssl:
#  - kcat and confluent-kafka produce and consume over SSL (exact records back);
#  - Metadata on each listener answers that listener's advertised host:port;
#  - mTLS: no client certificate refused, a trusted one accepted and mapped to User:CLIENT;
#  - expired / untrusted server certificates refused by the client;
#  - per-listener ssl.enabled.protocols / ssl.cipher.suites (IANA names) negotiated, TLS 1.2
#    renegotiation refused;
#  - clear text to a TLS port is closed, gregord keeps serving;
#  - a client stalled mid-handshake does not block a second one and is closed after
#    socket.request.read.timeout.ms (the handshake bound);
#  - SASL_SSL (PLAIN inside TLS): kcat and the gregor CLI, a wrong password refused;
#  - libgregor through the gregor CLI (--command-config: security.protocol, ssl.truststore.*
#    or librdkafka's ssl.ca.location / ssl.certificate.location / ssl.key.location) over SSL
#    and mTLS, and its refusals (no client certificate, other CA, expired, plaintext port).
# gregord only (--ref is refused: the reference broker is not configured for TLS here).
#   bash tests/integration/test_tls.sh [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
[[ "$GR_TARGET" == gregord ]] || die "test_tls starts gregord with its own listeners; no --ref/--bootstrap"
gr_require kcat python3 openssl
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
C="$GR_TMP/certs"
bash "$HERE/tls_certs.sh" "$C" || die "cannot make test certificates"

GR_PORT="$(free_port)"; SP="$(free_port)"; MP="$(free_port)"; EP="$(free_port)"; UP="$(free_port)"; QP="$(free_port)"
GR_DATA_DIR="$GR_TMP/gregord-data"
mkdir -p "$GR_DATA_DIR"
GR_GREGORD_ARGS=(
  --override "listeners=PLAINTEXT://127.0.0.1:$GR_PORT,SSL://127.0.0.1:$SP,MTLS://127.0.0.1:$MP,EXPIRED://127.0.0.1:$EP,UNTRUSTED://127.0.0.1:$UP,SECURE://127.0.0.1:$QP"
  --override "advertised.listeners=PLAINTEXT://127.0.0.1:$GR_PORT,SSL://localhost:$SP,MTLS://localhost:$MP,SECURE://localhost:$QP"
  --override "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,SSL:SSL,MTLS:SSL,EXPIRED:SSL,UNTRUSTED:SSL,SECURE:SASL_SSL"
  --override "listener.name.secure.sasl.enabled.mechanisms=PLAIN"
  --override "listener.name.secure.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_alice=\"alice-secret\";"
  --override "ssl.keystore.type=PEM"
  --override "ssl.keystore.certificate.chain=$(cat "$C/server.crt" "$C/ca.pem")"
  --override "ssl.keystore.key=$(tr -d '\n' <"$C/server.key")"
  --override "listener.name.ssl.ssl.keystore.location=$C/server-enc.pem"
  --override "listener.name.ssl.ssl.key.password=keypass"
  --override "listener.name.mtls.ssl.client.auth=required"
  --override "listener.name.mtls.ssl.truststore.type=PEM"
  --override "listener.name.mtls.ssl.truststore.location=$C/ca.pem"
  --override "listener.name.mtls.ssl.principal.mapping.rules=RULE:^CN=([^,]*),.*$/\$1/U,DEFAULT"
  --override "listener.name.expired.ssl.keystore.location=$C/expired.pem"
  --override "listener.name.untrusted.ssl.keystore.location=$C/untrusted.pem"
  --override "listener.name.untrusted.ssl.enabled.protocols=TLSv1.2"
  --override "listener.name.untrusted.ssl.cipher.suites=TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384"
  --override "socket.request.read.timeout.ms=3000"
)
GREGOR_LOG=debug _gregord_launch
for p in $SP $MP $EP $UP; do wait_port "$p" 10 "$GR_GREGORD_PID" || die "port $p not listening"; done
grep -q "unknown configuration 'ssl\.\|unknown configuration 'listener.name" "$GR_TMP/gregord.log" &&
  fail "ssl.* / listener.name.<l>.{ssl,sasl}.* keys reported unknown" ||
  ok "ssl.* and listener.name.<l>.ssl.* / .sasl.* / .<mech>.sasl.jaas.config keys accepted (no 'unknown configuration')"
if grep -q "listener SSL (SSL) on port $SP: TLS, ssl.client.auth=none; fetched file data goes out" "$GR_TMP/gregord.log"; then
  ok "start-up log says how fetched file data goes out over TLS: $(grep -o 'goes out [^(]*' "$GR_TMP/gregord.log" | head -1)"
else fail "start-up log line for the SSL listener missing"; fi

CLI="$GR_BUILD_DIR/gregor"
KS=(-X security.protocol=ssl -X "ssl.ca.location=$C/ca.pem")
# ---------------------------------------------------------------- kcat over SSL
printf 'm1\nm2\nm3\nm4\nm5\n' | gr_timeout 20 kcat -b "127.0.0.1:$SP" "${KS[@]}" -t tls-kcat -P -X acks=all ||
  fail "kcat produce over SSL"
got="$(gr_timeout 20 kcat -b "127.0.0.1:$SP" "${KS[@]}" -t tls-kcat -C -o beginning -e -q 2>/dev/null | tr '\n' ' ')"
check_eq "kcat consumes over SSL what it produced" "m1 m2 m3 m4 m5 " "$got"
got="$(gr_timeout 20 kcat -b "127.0.0.1:$GR_PORT" -t tls-kcat -C -o beginning -e -q 2>/dev/null | tr '\n' ' ')"
check_eq "the same records over PLAINTEXT" "m1 m2 m3 m4 m5 " "$got"

# ---------------------------------------------------------------- SASL_SSL (PLAIN inside TLS)
QS=(-X security.protocol=sasl_ssl -X "ssl.ca.location=$C/ca.pem" -X sasl.mechanisms=PLAIN -X sasl.username=alice)
printf 'q1\nq2\n' | gr_timeout 20 kcat -b "127.0.0.1:$QP" "${QS[@]}" -X sasl.password=alice-secret -t tls-sasl -P \
  -X acks=all || fail "kcat produce over SASL_SSL"
got="$(gr_timeout 20 kcat -b "127.0.0.1:$QP" "${QS[@]}" -X sasl.password=alice-secret -t tls-sasl -C -o beginning -e -q \
  2>/dev/null | tr '\n' ' ')"
check_eq "kcat over SASL_SSL (PLAIN) consumes what it produced" "q1 q2 " "$got"
out="$(gr_timeout 20 kcat -b "127.0.0.1:$QP" "${QS[@]}" -X sasl.password=wrong -L -m 5 2>&1 || true)"
check "kcat over SASL_SSL with a wrong password is refused" grep -q "Authentication failed" <<<"$out"
if [[ -x "$CLI" ]]; then
  printf 'security.protocol=SASL_SSL\nssl.ca.location=%s\nsasl.mechanism=PLAIN\nsasl.username=alice\nsasl.password=alice-secret\n' \
    "$C/ca.pem" >"$GR_TMP/sasl-ssl.properties"
  got="$(gr_timeout 30 "$CLI" consume --bootstrap-server "127.0.0.1:$QP" --command-config "$GR_TMP/sasl-ssl.properties" \
    --topic tls-sasl --from-beginning --max-messages 2 --timeout-ms 10000 2>/dev/null | tr '\n' ' ')"
  check_eq "gregor (libgregor) over SASL_SSL reads the same records" "q1 q2 " "$got"
fi

# ---------------------------------------------------------------- advertised endpoint per listener
md_broker() { gr_timeout 20 kcat -b "$1" "${@:2}" -L -m 10 2>/dev/null | grep -o 'broker 1 at [^ ]*' | head -1; }
check_eq "Metadata on PLAINTEXT answers PLAINTEXT's advertised endpoint" "broker 1 at 127.0.0.1:$GR_PORT" \
  "$(md_broker "127.0.0.1:$GR_PORT")"
check_eq "Metadata on SSL answers SSL's advertised endpoint" "broker 1 at localhost:$SP" \
  "$(md_broker "127.0.0.1:$SP" "${KS[@]}")"
check_eq "Metadata on MTLS answers MTLS's advertised endpoint" "broker 1 at localhost:$MP" \
  "$(md_broker "127.0.0.1:$MP" "${KS[@]}" -X "ssl.certificate.location=$C/client.crt" -X "ssl.key.location=$C/client.key")"
check_eq "Metadata on a listener missing from advertised.listeners answers its own endpoint" \
  "broker 1 at 127.0.0.1:$EP" "$(md_broker "127.0.0.1:$EP" -X security.protocol=ssl -X enable.ssl.certificate.verification=false)"

# ---------------------------------------------------------------- confluent-kafka
PY="$(gr_venv_dir)/bin/python"
if [[ -x "$PY" ]] && "$PY" -c 'import confluent_kafka' 2>/dev/null; then
  rc=0; gr_timeout 90 "$PY" "$HERE/tls_clients.py" clients "127.0.0.1:$SP" "$C/ca.pem" "localhost:$SP" \
    >"$GR_TMP/py-clients.out" 2>"$GR_TMP/py-clients.err" || rc=$?
  gr_relay_checks tls_clients "$GR_TMP/py-clients.out" "$rc" 90
  rc=0; gr_timeout 60 "$PY" "$HERE/tls_clients.py" mtls "127.0.0.1:$MP" "$C/ca.pem" "$C/client.crt" "$C/client.key" \
    >"$GR_TMP/py-mtls.out" 2>"$GR_TMP/py-mtls.err" || rc=$?
  gr_relay_checks tls_clients "$GR_TMP/py-mtls.out" "$rc" 60
else
  fail "python venv with confluent-kafka missing ($PY): run scripts/install-deps.sh"
fi

# ---------------------------------------------------------------- mTLS with kcat
if gr_timeout 20 kcat -b "127.0.0.1:$MP" "${KS[@]}" -L -m 2 >"$GR_TMP/nocert.out" 2>&1; then
  fail "mTLS: kcat without a client certificate got metadata"
else ok "mTLS: kcat without a client certificate is refused"; fi
grep -q "closing connection from 127.0.0.1:[0-9]*: TLS handshake failed: .*peer did not return a certificate" \
  "$GR_TMP/gregord.log" && ok "gregord logs why: the peer did not return a certificate" ||
  fail "no 'peer did not return a certificate' line in gregord's log"
grep -q "TLS connection from 127.0.0.1:[0-9]* as User:CLIENT$" "$GR_TMP/gregord.log" &&
  ok "the client certificate CN=client,OU=Apps,O=Gregor maps to User:CLIENT (RULE:^CN=([^,]*),.*\$/\$1/U)" ||
  fail "no connection authenticated as User:CLIENT in gregord's log"

# ---------------------------------------------------------------- server certificates a client refuses
for l in expired:$EP untrusted:$UP; do
  name="${l%%:*}" port="${l##*:}"
  if gr_timeout 20 kcat -b "127.0.0.1:$port" "${KS[@]}" -L -m 2 >"$GR_TMP/$name.out" 2>&1; then
    fail "kcat accepted the $name server certificate"
  elif grep -q "certificate verify failed" "$GR_TMP/$name.out"; then
    ok "kcat refuses the $name server certificate (certificate verify failed)"
  else fail "kcat failed on the $name certificate without 'certificate verify failed': $(tail -1 "$GR_TMP/$name.out")"; fi
done
v="$(gr_timeout 10 openssl s_client -connect "127.0.0.1:$EP" -CAfile "$C/ca.pem" </dev/null 2>/dev/null |
  grep -o 'Verify return code: .*' | head -1 || true)"
check_eq "openssl: the expired certificate's verify result" "Verify return code: 10 (certificate has expired)" "$v"
v="$(gr_timeout 10 openssl s_client -connect "127.0.0.1:$UP" -CAfile "$C/ca.pem" </dev/null 2>/dev/null |
  grep -o 'Verify return code: .*' | head -1 || true)"
check_eq "openssl: the untrusted certificate's verify result" \
  "Verify return code: 21 (unable to verify the first certificate)" "$v"

# ---------------------------------------------------------------- libgregor and the gregor CLI (--command-config)
if [[ -x "$CLI" ]]; then
  # Kafka tools' names (truststore) for SSL; librdkafka's names (ca/certificate/key) for mTLS
  printf 'security.protocol=SSL\nssl.truststore.type=PEM\nssl.truststore.location=%s\n' "$C/ca.pem" >"$GR_TMP/ssl.properties"
  printf 'security.protocol=ssl\nssl.ca.location=%s\nssl.certificate.location=%s\nssl.key.location=%s\n' \
    "$C/ca.pem" "$C/client.crt" "$C/client.key" >"$GR_TMP/mtls.properties"
  printf 'security.protocol=ssl\nssl.ca.location=%s\n' "$C/other-ca.pem" >"$GR_TMP/other-ca.properties"
  cli() { gr_timeout 30 "$CLI" "$@"; }
  out="$(cli topics --bootstrap-server "127.0.0.1:$SP" --command-config "$GR_TMP/ssl.properties" --create \
    --topic tls-cli --partitions 1 2>&1)" || true
  check_eq "gregor topics --create over SSL" "Created topic tls-cli." "$out"
  printf 'x1\nx2\nx3\n' | cli produce --bootstrap-server "127.0.0.1:$SP" --command-config "$GR_TMP/ssl.properties" \
    --topic tls-cli >/dev/null 2>&1 || fail "gregor produce over SSL"
  got="$(cli consume --bootstrap-server "127.0.0.1:$MP" --command-config "$GR_TMP/mtls.properties" --topic tls-cli \
    --from-beginning --max-messages 3 --timeout-ms 10000 2>/dev/null | tr '\n' ' ')"
  check_eq "gregor consume over mTLS reads what gregor produced over SSL" "x1 x2 x3 " "$got"
  chk_cli_err() { # chk_cli_err DESC PORT PROPS PATTERN
    local rc=0 out
    out="$(cli topics --bootstrap-server "127.0.0.1:$2" --command-config "$3" --list 2>&1)" || rc=$?
    if ((rc == 1)) && grep -qE -- "$4" <<<"$out"; then ok "$1: $out"; else fail "$1 (rc=$rc): $out"; fi
  }
  chk_cli_err "gregor without a client certificate on the mTLS listener fails at once" "$MP" \
    "$GR_TMP/ssl.properties" "no broker reachable .*(certificate required|Connection reset by peer)"
  chk_cli_err "gregor refuses a server certificate from another CA" "$SP" "$GR_TMP/other-ca.properties" \
    "SSL handshake failed: .*certificate verify failed"
  chk_cli_err "gregor refuses the expired server certificate" "$EP" "$GR_TMP/ssl.properties" \
    "SSL handshake failed: .*certificate verify failed: certificate has expired"
  chk_cli_err "gregor over SSL to a PLAINTEXT port fails" "$GR_PORT" "$GR_TMP/ssl.properties" \
    "SSL handshake failed"
  printf 'security.protocol=sasl_ssl\n' >"$GR_TMP/sasl.properties"
  chk_cli_err "libgregor over sasl_ssl checks the server certificate first" "$SP" "$GR_TMP/sasl.properties" \
    "SSL handshake failed: .*certificate verify failed"
else
  fail "gregor CLI not built ($CLI)"
fi

# ---------------------------------------------------------------- protocols, cipher suites, renegotiation
sc() { (sleep 0.5; printf "${2:-}"; sleep 0.5) | gr_timeout 10 openssl s_client -connect "127.0.0.1:$1" -CAfile "$C/ca.pem" 2>&1 || true; }
out="$(sc "$UP")"
check_eq "per-listener ssl.enabled.protocols=TLSv1.2 and IANA cipher suite name" \
  "Protocol  : TLSv1.2 / Cipher    : ECDHE-RSA-AES256-GCM-SHA384" \
  "$(grep -o 'Protocol  : .*' <<<"$out" | head -1) / $(grep -o 'Cipher    : .*' <<<"$out" | head -1)"
check_eq "the default listener negotiates TLSv1.3" "Protocol  : TLSv1.3" "$(sc "$SP" | grep -o 'Protocol  : .*' | head -1)"
out="$(sc "$UP" 'R\n')"
grep -q "RENEGOTIATING" <<<"$out" && grep -q "no renegotiation" <<<"$out" &&
  ok "client-initiated renegotiation (TLS 1.2) is refused with a no_renegotiation alert" ||
  fail "renegotiation not refused: $(tail -n 3 <<<"$out")"
check_eq "Metadata over SSL still answered after the renegotiation attempt" "broker 1 at localhost:$SP" \
  "$(md_broker "127.0.0.1:$SP" "${KS[@]}")"

# ---------------------------------------------------------------- clear text to TLS, stalled handshakes
rc=0; gr_timeout 30 python3 "$HERE/tls_clients.py" plaintext-to-tls "$SP" >"$GR_TMP/pt.out" 2>&1 || rc=$?
gr_relay_checks plaintext-to-tls "$GR_TMP/pt.out" "$rc" 30
check "gregord still running after clear text on its TLS port" alive "$GR_GREGORD_PID"
gr_bg STALL bash -c "exec timeout 30 python3 '$HERE/tls_clients.py' stall $SP 3 >'$GR_TMP/stall.out' 2>&1"
sleep 0.3
got="$(gr_timeout 20 kcat -b "127.0.0.1:$SP" "${KS[@]}" -t tls-kcat -C -o beginning -e -q 2>/dev/null | tr '\n' ' ')"
check_eq "a second TLS client is served while the first stalls mid-handshake" "m1 m2 m3 m4 m5 " "$got"
check "the stalled client was still connected while the second was served" alive "$STALL"
rc=0; wait "$STALL" || rc=$?
gr_relay_checks stall "$GR_TMP/stall.out" "$rc" 30
grep -q "TLS handshake not complete 3000 ms after the connection (socket.request.read.timeout.ms)" \
  "$GR_TMP/gregord.log" && ok "gregord logs the handshake timeout" || fail "no handshake timeout line in the log"
got="$(gr_timeout 20 kcat -b "127.0.0.1:$GR_PORT" -t tls-kcat -C -o beginning -e -q 2>/dev/null | tr '\n' ' ')"
check_eq "PLAINTEXT still served afterwards" "m1 m2 m3 m4 m5 " "$got"

stop_gregord
check_eq "gregord stops cleanly (exit 0)" 0 "$GR_GREGORD_EXIT"
check_no_sanitizer_report
gr_finish
