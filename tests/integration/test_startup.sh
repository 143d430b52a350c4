#!/usr/bin/env bash
# gregord start-up and operability (issue 8, defects 1, 2 and 6):
#  - every start-up failure (unknown argument, missing option value, unreadable or malformed
#    configuration file, invalid value, invalid log.level / GREGOR_LOG, unwritable data
#    directory, busy port, busy or malformed admin.listener, data directory locked) prints ONE "gregord: ..." line naming the
#    key, the value and the reason, and exits 2 (command line, configuration) or 1 (run
#    time): never a signal (a busy port used to SIGSEGV in the broker teardown);
#  - a second gregord on the same data directory is refused (naming the directory and the
#    first one's pid), the first keeps serving, and the records it acknowledged with acks=all
#    are intact after its restart (no offset reused);
#  - --version and the version in the first log line; SIGHUP does not stop gregord;
#    log.level and GREGOR_LOG (the environment wins); client-supplied strings escaped in logs;
#  - with no arguments at all (in a private mount and network namespace, so /tmp/kafka-logs
#    and port 9092 are private): the data directory and listener are printed with warnings.
# gregord only (start-up behaviour is not a wire property): --ref is refused.
#   bash tests/integration/test_startup.sh [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
[[ "$GR_TARGET" == gregord ]] || die "test_startup checks gregord's own start-up; no --ref/--bootstrap"
gr_require kcat python3
BIN="$(gregord_bin)"
[[ -x "$BIN" ]] || die "gregord binary not found at $BIN (build it: make)"
CLI="$GR_BUILD_DIR/gregor"

# run_fail NAME EXPECTED_RC PATTERN gregord-args...: gregord must exit with EXPECTED_RC within
# 30 s, its last stderr line must be the only "gregord: " line and match PATTERN (grep -E).
run_fail() {
  local name="$1" want="$2" pat="$3" rc=0 out="$GR_TMP/fail-$1.err"
  shift 3
  gr_timeout 30 "$BIN" "$@" >"$GR_TMP/fail-$name.out" 2>"$out" </dev/null || rc=$?
  check_eq "$name: exit status $want (not a signal)" "$want" "$rc"
  local n last
  n="$(grep -c '^gregord: ' "$out" || true)"
  last="$(tail -n 1 "$out")"
  check_eq "$name: exactly one 'gregord:' error line" 1 "$n"
  if [[ "$last" =~ ^gregord:\  ]] && grep -qE -- "$pat" <<<"$last"; then
    ok "$name: the error says why: $last"
  else
    fail "$name: last stderr line does not match /$pat/: $last"
  fi
  ! grep -qiE 'AddressSanitizer|runtime error|LeakSanitizer' "$out" || fail "$name: sanitizer report in $out"
}

# ------------------------------------------------------------------ command line
out="$("$BIN" --version)" || fail "--version exits 0"
if [[ "$out" =~ ^gregord\ [0-9]+\.[0-9]+\.[0-9]+$ ]]; then ok "--version: $out"; else fail "--version printed '$out'"; fi
VERSION="${out#gregord }"
run_fail unknown-arg 2 "unknown argument '--frobnicate'" --frobnicate
run_fail config-no-value 2 "option --config needs a value" --config
run_fail two-configs 2 "more than one configuration file" "$GR_TMP/a.properties" "$GR_TMP/b.properties"

# ------------------------------------------------------------------ configuration
run_fail missing-file 2 "configuration file $GR_TMP/nope.properties: No such file or directory" \
  --config "$GR_TMP/nope.properties"
printf 'num.partitions=1\nbad.escape=\\uZZZZ\n' >"$GR_TMP/malformed.properties"
run_fail malformed-file 2 "malformed.properties: line 2: malformed" --config "$GR_TMP/malformed.properties"
printf '# comment\nnum.partitions=0\n' >"$GR_TMP/bad-value.properties"
run_fail bad-value 2 "Invalid value 0 for configuration num.partitions: .*bad-value.properties line 2" \
  --config "$GR_TMP/bad-value.properties"
run_fail bad-override 2 "Invalid value abc for configuration log.segment.bytes" --override log.segment.bytes=abc
run_fail two-log-dirs 2 "Invalid value $GR_TMP/d1, $GR_TMP/d2 for configuration log.dirs: .*exactly one" \
  --override "log.dirs=$GR_TMP/d1, $GR_TMP/d2"
run_fail bad-log-level 2 "Invalid value chatty for configuration log.level: .*error, warn, info, debug" \
  --override log.level=chatty
run_fail admin-no-port 2 "Invalid value 127.0.0.1 for configuration admin.listener: expected HOST:PORT" \
  --override admin.listener=127.0.0.1
run_fail admin-bad-port 2 "Invalid value 127.0.0.1:65536 for configuration admin.listener: expected HOST:PORT" \
  --override admin.listener=127.0.0.1:65536
run_fail admin-bare-ipv6 2 "Invalid value ::1:9644 for configuration admin.listener: .*\\[::1\\]:9644" \
  --override admin.listener=::1:9644
# Kafka 4.4.0's ranges (ShareGroupConfig): min.partition.max.record.locks in [100, 2000], max in
# [2000, 10000]; the reference refuses these with the same words (kafka-storage format fails)
run_fail min-record-locks-range 2 \
  "Invalid value 2500 for configuration group.share.min.partition.max.record.locks: Value must be no more than 2000" \
  --override group.share.min.partition.max.record.locks=2500 --override log.dirs="$GR_TMP/unused"
run_fail max-record-locks-range 2 \
  "Invalid value 1500 for configuration group.share.max.partition.max.record.locks: Value must be at least 2000" \
  --override group.share.max.partition.max.record.locks=1500 --override log.dirs="$GR_TMP/unused"
GREGOR_LOG=loud run_fail bad-GREGOR_LOG 2 "Invalid value loud for environment variable GREGOR_LOG" \
  --override log.dirs="$GR_TMP/unused"

# ------------------------------------------------------------------ listeners and TLS (issue 10)
# Kafka's listener refusals with Kafka's words; TLS material is read at start-up, so a bad
# keystore, truststore or key password is one line and exit 2 before any data is touched.
bash "$(dirname "${BASH_SOURCE[0]}")/tls_certs.sh" "$GR_TMP/certs" || die "cannot make test certificates"
C="$GR_TMP/certs"
PT="$(free_port)" ST="$(free_port)"
TWO=(--override "listeners=PLAINTEXT://127.0.0.1:$PT,SSL://127.0.0.1:$ST" --override log.dirs="$GR_TMP/unused")
run_fail ssl-only-inter-broker 2 "inter.broker.listener.name must be a listener name defined in advertised.listeners. The valid options based on currently configured listeners are SSL$" \
  --override "listeners=SSL://127.0.0.1:$ST" --override log.dirs="$GR_TMP/unused"
run_fail no-protocol 2 "Error creating broker listeners from '\\[CLIENT://127.0.0.1:$ST\\]': No security protocol defined for listener CLIENT$" \
  --override "listeners=CLIENT://127.0.0.1:$ST" --override log.dirs="$GR_TMP/unused"
run_fail same-port 2 "one needs to be IPv4 and the other IPv6, listeners: \\[PLAINTEXT://127.0.0.1:$PT, SSL://127.0.0.1:$PT\\], port: $PT$" \
  --override "listeners=PLAINTEXT://127.0.0.1:$PT,SSL://127.0.0.1:$PT" --override log.dirs="$GR_TMP/unused"
run_fail adv-not-subset 2 "advertised.listeners listener names must be equal to or a subset of the ones defined in listeners. Found PLAINTEXT,SSL. The valid options based on the current configuration are PLAINTEXT$" \
  --override "advertised.listeners=PLAINTEXT://h:1,SSL://h:2" --override log.dirs="$GR_TMP/unused"
run_fail inter-broker-both 2 "Only one of inter.broker.listener.name and security.inter.broker.protocol should be set.$" \
  --override inter.broker.listener.name=PLAINTEXT --override security.inter.broker.protocol=PLAINTEXT \
  --override log.dirs="$GR_TMP/unused"
run_fail sasl-no-mechanism 2 "Invalid value GSSAPI for configuration sasl.enabled.mechanisms \\(listener sasl_plaintext\\)" \
  --override "listeners=PLAINTEXT://127.0.0.1:$PT,SASL_PLAINTEXT://127.0.0.1:$ST" --override log.dirs="$GR_TMP/unused"
run_fail sasl-no-jaas 2 "SASL mechanism PLAIN is enabled on listener sasl_plaintext but listener.name.sasl_plaintext.plain.sasl.jaas.config is not set" \
  --override "listeners=PLAINTEXT://127.0.0.1:$PT,SASL_PLAINTEXT://127.0.0.1:$ST" --override sasl.enabled.mechanisms=PLAIN \
  --override log.dirs="$GR_TMP/unused"
run_fail no-keystore 2 "listener SSL: no keystore: set ssl.keystore.location" "${TWO[@]}"
run_fail keystore-jks 2 "listener SSL: Invalid value JKS for configuration ssl.keystore.type: gregord reads PEM keystores only" \
  "${TWO[@]}" --override "ssl.keystore.location=$C/server.pem"
run_fail keystore-missing 2 "listener SSL: ssl.keystore.location=$C/nope.pem: cannot read: No such file or directory$" \
  "${TWO[@]}" --override ssl.keystore.type=PEM --override "ssl.keystore.location=$C/nope.pem"
run_fail keystore-not-pem 2 "listener SSL: ssl.keystore.location=$C/san.ext: no PEM certificate found$" \
  "${TWO[@]}" --override ssl.keystore.type=PEM --override "ssl.keystore.location=$C/san.ext"
run_fail key-password-wrong 2 "listener SSL: ssl.keystore.location=$C/server-enc.pem: cannot decrypt the private key: wrong ssl.key.password" \
  "${TWO[@]}" --override ssl.keystore.type=PEM --override "ssl.keystore.location=$C/server-enc.pem" \
  --override ssl.key.password=nope
run_fail key-password-missing 2 "listener SSL: ssl.keystore.location=$C/server-enc.pem: cannot decrypt the private key: missing ssl.key.password" \
  "${TWO[@]}" --override ssl.keystore.type=PEM --override "ssl.keystore.location=$C/server-enc.pem"
run_fail key-mismatch 2 "listener SSL: ssl.keystore.certificate.chain/ssl.keystore.key: the private key does not match the certificate" \
  "${TWO[@]}" --override ssl.keystore.type=PEM --override "ssl.keystore.certificate.chain=$(cat "$C/client.crt")" \
  --override "ssl.keystore.key=$(cat "$C/server.key")"
run_fail truststore-missing 2 "listener SSL: ssl.truststore.location=$C/nope.pem: cannot read: No such file or directory$" \
  "${TWO[@]}" --override ssl.keystore.type=PEM --override "ssl.keystore.location=$C/server.pem" \
  --override ssl.client.auth=required --override ssl.truststore.type=PEM --override "ssl.truststore.location=$C/nope.pem"
run_fail bad-protocols 2 "listener SSL: Invalid value SSLv3 for configuration ssl.enabled.protocols: unsupported protocol SSLv3" \
  "${TWO[@]}" --override ssl.keystore.type=PEM --override "ssl.keystore.location=$C/server.pem" \
  --override ssl.enabled.protocols=SSLv3
run_fail bad-cipher 2 "listener SSL: Invalid value TLS_FOO for configuration ssl.cipher.suites: unknown suite TLS_FOO$" \
  "${TWO[@]}" --override ssl.keystore.type=PEM --override "ssl.keystore.location=$C/server.pem" \
  --override ssl.cipher.suites=TLS_FOO
run_fail bad-client-auth 2 "Invalid value maybe for configuration ssl.client.auth: String must be one of: required, requested, none$" \
  "${TWO[@]}" --override listener.name.ssl.ssl.client.auth=maybe
run_fail bad-mapping-rule 2 "Invalid value RULE:x for configuration ssl.principal.mapping.rules: Invalid rule: .RULE:x., unmatched substring" \
  "${TWO[@]}" --override ssl.principal.mapping.rules=RULE:x

# ------------------------------------------------------------------ data directory
echo not-a-dir >"$GR_TMP/plainfile"
P0="$(free_port)"
run_fail dir-under-file 1 "cannot start: log.dirs=$GR_TMP/plainfile/data: cannot create directory .*Not a directory" \
  --override "listeners=PLAINTEXT://127.0.0.1:$P0" --override "log.dirs=$GR_TMP/plainfile/data"
if [[ "$(id -u)" != 0 ]]; then
  mkdir -p "$GR_TMP/readonly" && chmod 555 "$GR_TMP/readonly"
  run_fail dir-readonly 1 "cannot start: log.dirs=$GR_TMP/readonly: .*Permission denied" \
    --override "listeners=PLAINTEXT://127.0.0.1:$P0" --override "log.dirs=$GR_TMP/readonly"
  chmod 755 "$GR_TMP/readonly"
else
  log "running as root: permissions do not stop root, the read-only directory case is checked via a file path only"
fi
[[ ! -e "$GR_TMP/unused" ]] || fail "a configuration error created the data directory"

# ------------------------------------------------------------------ busy port
portfile="$GR_TMP/busy.port"
gr_bg holder python3 -c '
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
time.sleep(120)' "$portfile"
for _ in $(seq 100); do [[ -s "$portfile" ]] && break; sleep 0.05; done
BUSY="$(cat "$portfile")"
run_fail busy-port 1 "cannot start: listeners=PLAINTEXT://127.0.0.1:$BUSY: .*Address already in use" \
  --override "listeners=PLAINTEXT://127.0.0.1:$BUSY" --override "log.dirs=$GR_TMP/busy-data"
P2="$(free_port)"
run_fail admin-busy-port 1 "^gregord: cannot start: admin.listener=127.0.0.1:$BUSY: .*Address already in use" \
  --override "listeners=PLAINTEXT://127.0.0.1:$P2" --override "admin.listener=127.0.0.1:$BUSY" \
  --override "log.dirs=$GR_TMP/busy-data"
# the failed start released its lock: the same directory starts on a free port
P1="$(free_port)"
gr_bg g1 "$BIN" --override "listeners=PLAINTEXT://127.0.0.1:$P1" --override "log.dirs=$GR_TMP/busy-data" \
  >"$GR_TMP/after-busy.log" 2>&1
if wait_port "$P1" 20 "$g1"; then ok "the data directory of the failed start is usable at once"; else
  fail "gregord did not start on the data directory of the failed start: $(tail -n 3 "$GR_TMP/after-busy.log")"; fi
stop_pid "$g1"
stop_pid "$holder"

# ------------------------------------------------------------------ second instance on the same data directory
start_gregord
head -n 1 "$GR_TMP/gregord.log" >/dev/null
first_line="$(grep -v '^=== start' "$GR_TMP/gregord.log" | head -n 1)"
if [[ "$first_line" == *"gregord $VERSION starting (pid $GR_GREGORD_PID)"* ]]; then ok "first log line names the version";
else fail "first log line: $first_line"; fi
grep -q "data directory $GR_DATA_DIR (log.dirs)" "$GR_TMP/gregord.log" && ok "start-up log names the data directory" ||
  fail "no 'data directory' line in the log"
grep -q "listener PLAINTEXT://127.0.0.1:$GR_PORT" "$GR_TMP/gregord.log" && ok "start-up log names the listener" ||
  fail "no listener line in the log"
[[ "$(cat "$GR_DATA_DIR/.lock")" == "$GR_GREGORD_PID" ]] && ok "the lock file holds the pid of the broker" ||
  fail "lock file content '$(cat "$GR_DATA_DIR/.lock" 2>/dev/null)'"

topic="startup-$RANDOM"
seq 1 50 | sed 's/^/first-/' >"$GR_TMP/batch1"
gr_timeout 60 kcat -b "$BOOTSTRAP" -t "$topic" -P -X acks=all -X topic.request.required.acks=-1 -l "$GR_TMP/batch1" ||
  fail "produce batch 1 (acks=all)"
P2="$(free_port)"
run_fail lock-held 1 "cannot start: log.dirs=$GR_DATA_DIR: directory is in use by another process \(pid $GR_GREGORD_PID holds $GR_DATA_DIR/.lock\)" \
  --override "listeners=PLAINTEXT://127.0.0.1:$P2" --override "log.dirs=$GR_DATA_DIR"
# the same directory through log.dir and a path with a trailing slash and a "./" component
run_fail lock-held-log.dir 1 "cannot start: log.dir=$GR_DATA_DIR/./: directory is in use" \
  --override "listeners=PLAINTEXT://127.0.0.1:$P2" --override "log.dir=$GR_DATA_DIR/./"
! port_open "$P2" || fail "the refused instance is listening"
alive "$GR_GREGORD_PID" && ok "the first gregord is still running" || fail "the first gregord died"
[[ "$(cat "$GR_DATA_DIR/.lock")" == "$GR_GREGORD_PID" ]] || fail "the refused instance rewrote the lock file"

# SIGHUP: ignored (logs go to stderr, nothing to reopen)
kill -HUP "$GR_GREGORD_PID"
sleep 0.5
alive "$GR_GREGORD_PID" && ok "SIGHUP does not stop gregord" || fail "gregord died on SIGHUP"

seq 1 50 | sed 's/^/second-/' >"$GR_TMP/batch2"
gr_timeout 60 kcat -b "$BOOTSTRAP" -t "$topic" -P -X acks=all -X topic.request.required.acks=-1 -l "$GR_TMP/batch2" ||
  fail "produce batch 2 (acks=all) after the refused start and SIGHUP"
cat "$GR_TMP/batch1" "$GR_TMP/batch2" | awk '{print NR - 1, $0}' >"$GR_TMP/expected"

# a client-supplied string with control bytes is escaped in the log (one line, no forgery)
if [[ -x "$CLI" ]]; then
  gr_timeout 60 "$CLI" configs --bootstrap-server "$BOOTSTRAP" --entity-type groups \
    --entity-name $'evil\nFORGED ERROR \e[31m' --alter --add-config share.auto.offset.reset=earliest \
    >"$GR_TMP/cli.out" 2>&1 || log "gregor configs: $(tail -n 2 "$GR_TMP/cli.out")"
  sleep 0.3
  if grep -qF 'group evil\x0aFORGED ERROR \x1b[31m configs altered' "$GR_TMP/gregord.log"; then
    ok "a group id with a newline and an escape sequence is logged escaped"
  else
    fail "escaped group id not found in the log: $(grep -a 'configs altered' "$GR_TMP/gregord.log" | tail -n 2)"
  fi
  ! grep -qa '^FORGED' "$GR_TMP/gregord.log" || fail "a client string forged a log line"
  ! grep -qaP '\x1b' "$GR_TMP/gregord.log" || fail "a raw ESC byte reached the log"
else
  fail "no $CLI (build it: make)"
fi

stop_gregord
check_eq "first gregord exits 0 on SIGTERM" 0 "$GR_GREGORD_EXIT"
restart_gregord
gr_timeout 60 kcat -C -b "$BOOTSTRAP" -t "$topic" -p 0 -o beginning -e -q -f '%o %s\n' >"$GR_TMP/got" ||
  fail "read back after restart"
if diff -q "$GR_TMP/expected" "$GR_TMP/got" >/dev/null; then
  ok "all 100 acks=all records intact at their offsets after the restart"
else
  fail "records after restart differ: $(diff "$GR_TMP/expected" "$GR_TMP/got" | head -n 5)"
fi
stop_gregord

# ------------------------------------------------------------------ log.level and GREGOR_LOG
GR_GREGORD_ARGS=(--override log.level=error)
restart_gregord
stop_gregord
section="$(awk '/^=== start/ {buf = ""} {buf = buf $0 "\n"} END {printf "%s", buf}' "$GR_TMP/gregord.log")"
if grep -q 'INFO  \[broker\]' <<<"$section"; then fail "log.level=error still logs INFO"; else ok "log.level=error: no INFO lines"; fi
GREGOR_LOG=info restart_gregord
stop_gregord
section="$(awk '/^=== start/ {buf = ""} {buf = buf $0 "\n"} END {printf "%s", buf}' "$GR_TMP/gregord.log")"
grep -q 'INFO  \[broker\] opened' <<<"$section" && ok "GREGOR_LOG=info wins over log.level=error" ||
  fail "GREGOR_LOG=info did not win over log.level=error"
GR_GREGORD_ARGS=()

# ------------------------------------------------------------------ no arguments at all
# Kafka's defaults (/tmp/kafka-logs, all interfaces, port 9092) in a private namespace.
# As root a mount and network namespace; otherwise inside a user namespace (-r) if the kernel allows.
NS=()
if unshare -mn --fork true 2>/dev/null; then NS=(unshare -mn --fork)
elif unshare -rmn --fork true 2>/dev/null; then NS=(unshare -rmn --fork); fi
if ((${#NS[@]})); then
  ns_rc=0
  gr_timeout 60 "${NS[@]}" bash -c '
    exec 3<"$1" # the binary may live under /tmp (a clone there), hidden by the mount below
    mount -t tmpfs tmpfs /tmp || exit 99
    /proc/self/fd/3 >/tmp/noargs.log 2>&1 &
    pid=$!
    for i in $(seq 200); do grep -q "listening on \*:9092" /tmp/noargs.log && break; sleep 0.05; done
    kill -TERM $pid; wait $pid; rc=$?
    cat /tmp/noargs.log; exit $rc' _ "$BIN" >"$GR_TMP/noargs.log" 2>&1 || ns_rc=$?
  if ((ns_rc == 99)); then
    log "SKIP no-argument start: cannot mount a tmpfs in a private namespace"
  else
    check_eq "no arguments: starts and stops cleanly" 0 "$ns_rc"
    grep -q 'data directory /tmp/kafka-logs (log.dir, default)' "$GR_TMP/noargs.log" &&
      ok "no arguments: the default data directory is printed" || fail "no arguments: data directory not printed"
    grep -q 'WARN .*default data directory /tmp/kafka-logs' "$GR_TMP/noargs.log" &&
      ok "no arguments: warning about the /tmp default" || fail "no arguments: no /tmp warning"
    grep -q 'WARN .*listening on all network interfaces (the default listeners=PLAINTEXT://:9092)' "$GR_TMP/noargs.log" &&
      ok "no arguments: warning about the wildcard listener" || fail "no arguments: no wildcard listener warning"
  fi
else
  log "SKIP no-argument start: no private mount and network namespace here (unshare -mn / -rmn refused)"
fi

gr_finish
