#!/usr/bin/env bash
# bench/tls.sh: what TLS and SASL cost, on gregord and on Apache Kafka 4.4.0 in the same run.
# Each broker gets three listeners: PLAINTEXT, SSL and SASL_SSL (PLAIN), the same PEM
# certificates (made with openssl by tests/integration/tls_certs.sh); the clients are the same
# for both brokers:
#   produce: libgregor (bench/gregor_bench_client produce, acks=1) of N 1 KiB records into one
#            partition, each run its own topic;
#   fetch:   kcat -C (librdkafka) of the first produce run's topic from the beginning to its N-th
#            record;
#   fetch_lg: the same with libgregor's consumer (gregor_bench_client consume, no group);
#            both fetch rates are N / the client process's wall time;
#   share:   one libgregor share consumer (gregor_bench_client share-drain, implicit
#            acknowledgement) drains that topic in a new share group.
# Per phase: records/s (the client's wall time; the share drain's from its first record) and
# the broker's CPU-seconds per GiB (utime+stime from /proc, the JVM's for Kafka); the median of
# BENCH_REPEAT runs, after one uncounted produce per protocol (warm-up); every produce topic
# but run 1's (read by fetch and share) is deleted after its run. Then the ratios: each protocol vs PLAINTEXT on the same broker (the cost
# of TLS), and gregord vs Kafka per protocol. kTLS (SSL_sendfile) is used when the kernel has
# it; gregord's start-up log says which path fetches take (printed here).
# Environment: BENCH_TLS_MESSAGES (default 300000), BENCH_REPEAT (default 3),
#   BENCH_TLS_KAFKA=0 (gregord only), BENCH_TLS_PROTOCOLS (default "plaintext ssl sasl_ssl").
#   GR_BUILD_DIR=build bash bench/tls.sh
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../tests/lib.sh"
GR_TEST_TIMEOUT="${BENCH_TIMEOUT:-2400}"
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_no_external "it starts each broker with its own certificates and SSL / SASL_SSL listeners" "$@"
gr_init
gr_require kcat openssl python3
N="${BENCH_TLS_MESSAGES:-300000}"
R="${BENCH_REPEAT:-3}"
PROTOS="${BENCH_TLS_PROTOCOLS:-plaintext ssl sasl_ssl}"
CLIENT="$GR_BUILD_DIR/gregor_bench_client"
CLI="$GR_BUILD_DIR/gregor"
[[ -x "$CLIENT" && -x "$CLI" ]] || die "gregor_bench_client / gregor not built in $GR_BUILD_DIR"
C="$GR_TMP/certs"
bash "$GR_SOURCE_DIR/tests/integration/tls_certs.sh" "$C" || die "cannot make certificates"
JAAS='org.apache.kafka.common.security.plain.PlainLoginModule required user_bench="bench-secret";'
HZ="$(getconf CLK_TCK)"
GIB="$(calc "$N * 1024 / 1073741824")"
declare -A RES PORT
BPID=""

cpu_ticks() { sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | awk '{print $12 + $13}'; }
peak_rss_mb() { awk '/VmHWM/ {printf "%.0f", $2 / 1024}' "/proc/$1/status" 2>/dev/null; }

# The listener settings shared by both brokers (Kafka's names; gregord reads them the same way).
tls_settings() {
  echo "ssl.keystore.type=PEM"
  echo "ssl.keystore.location=$C/server.pem"
  echo "sasl.enabled.mechanisms=PLAIN"
  echo "listener.name.sasl_ssl.plain.sasl.jaas.config=$JAAS"
  echo "log.segment.delete.delay.ms=0" # a deleted produce topic frees its page cache at once
}

start_broker() { # start_broker gregord|kafka: sets BPID, PORT[plaintext|ssl|sasl_ssl]
  local b="$1" kv args=()
  PORT[plaintext]="$(free_port)" PORT[ssl]="$(free_port)" PORT[sasl_ssl]="$(free_port)"
  local ls="SSL://127.0.0.1:${PORT[ssl]},SASL_SSL://127.0.0.1:${PORT[sasl_ssl]}"
  if [[ "$b" == gregord ]]; then
    GR_PORT="${PORT[plaintext]}"
    GR_DATA_DIR="$GR_TMP/gregord-data"
    mkdir -p "$GR_DATA_DIR"
    GR_GREGORD_ARGS=(--override "listeners=PLAINTEXT://127.0.0.1:$GR_PORT,$ls"
      --override "advertised.listeners=PLAINTEXT://127.0.0.1:$GR_PORT,$ls"
      --override inter.broker.listener.name=PLAINTEXT)
    while IFS= read -r kv; do GR_GREGORD_ARGS+=(--override "$kv"); done < <(tls_settings)
    _gregord_launch
    wait_port "${PORT[sasl_ssl]}" 10 "$GR_GREGORD_PID" || die "gregord's SASL_SSL port is not listening"
    BPID="$GR_GREGORD_PID"
    grep -o 'fetched file data goes out .*' "$GR_TMP/gregord.log" | head -1 | sed 's/^/gregord: /' >&2
  else
    GR_REF_DIR="$GR_TMP/ref-kafka" GR_REF_PORT="${PORT[plaintext]}"
    GR_REF_DIRS+=("$GR_REF_DIR")
    while IFS= read -r kv; do args+=("$kv"); done < <(tls_settings)
    gr_timeout 300 bash "$GR_REF_SH" start "$GR_REF_DIR" "$GR_REF_PORT" \
      "listeners=PLAINTEXT://127.0.0.1:$GR_REF_PORT,CONTROLLER://127.0.0.1:@CONTROLLER_PORT@,$ls" \
      "advertised.listeners=PLAINTEXT://127.0.0.1:$GR_REF_PORT,$ls" \
      "listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_SSL:SASL_SSL" "${args[@]}" >"$GR_TMP/ref-start.log" 2>&1 ||
      { cat "$GR_TMP/ref-start.log"; die "reference Kafka did not start"; }
    wait_port "${PORT[sasl_ssl]}" 60 || die "Kafka's SASL_SSL port is not listening"
    BPID="$(cat "$GR_REF_DIR/kafka.pid")"
  fi
}

stop_broker() { # stop_broker gregord|kafka
  if [[ "$1" == gregord ]]; then stop_gregord; else stop_ref_kafka; fi
}

# security PROTO: librdkafka / libgregor properties (-X pairs) for a listener
security() {
  case "$1" in
  plaintext) ;;
  ssl) echo "-X security.protocol=ssl -X ssl.ca.location=$C/ca.pem" ;;
  sasl_ssl) echo "-X security.protocol=sasl_ssl -X ssl.ca.location=$C/ca.pem -X sasl.mechanism=PLAIN" \
    "-X sasl.username=bench -X sasl.password=bench-secret" ;;
  esac
}

run() { # run BROKER PROTO PHASE R: records/s and broker CPU-s/GiB into RES
  local b="$1" proto="$2" phase="$3" r="$4" boot="127.0.0.1:${PORT[$2]}" c0 c1 t0 t1 secs out sec
  read -r -a sec <<<"$(security "$proto")"
  local topic="tls-$proto-$r" src="tls-$proto-1"
  c0="$(cpu_ticks "$BPID")"; t0="$(date +%s%N)"
  case "$phase" in
  produce)
    out="$(gr_timeout 600 "$CLIENT" produce "$boot" "$topic" "$N" 1024 -X acks=1 "${sec[@]}" 2>>"$GR_TMP/client.err")" ||
      die "$b $proto produce: $out"
    ;;
  fetch)
    out="$(gr_timeout 600 kcat -C -b "$boot" "${sec[@]}" -t "$src" -p 0 -o beginning -c "$N" -e -q -f '%o\n' | tail -n1)"
    [[ "$out" == "$((N - 1))" ]] || die "$b $proto fetch ended at offset '$out'"
    ;;
  fetch_lg)
    out="$(gr_timeout 600 "$CLIENT" consume "$boot" "$src" "$N" "${sec[@]}" 2>>"$GR_TMP/client.err" | tail -n1)"
    [[ "$out" == *"\"done\":$N,"* ]] || die "$b $proto libgregor fetch: $out"
    ;;
  share)
    local g="tls-share-$b-$proto-$r-$$"
    gr_timeout 60 "$CLI" configs --bootstrap-server "127.0.0.1:${PORT[plaintext]}" --alter --entity-type groups \
      --entity-name "$g" --add-config share.auto.offset.reset=earliest >/dev/null || die "group config of $g"
    c0="$(cpu_ticks "$BPID")"; t0="$(date +%s%N)"
    out="$(gr_timeout 600 "$CLIENT" share-drain "$boot" "$g" "$src" "$N" "${sec[@]}" 2>>"$GR_TMP/client.err")" ||
      die "$b $proto share: $out"
    ;;
  esac
  t1="$(date +%s%N)"; c1="$(cpu_ticks "$BPID")"
  # Only run 1's topic is read later: deleting the others keeps the page cache from filling,
  # else the later runs pay for memory reclaim (seen: 1 GiB runs slowed 3x from the ~10th on).
  [[ "$phase" == produce && "$topic" != "$src" ]] &&
    { gr_timeout 60 "$CLI" topics --bootstrap-server "127.0.0.1:${PORT[plaintext]}" --delete --topic "$topic" >/dev/null ||
      die "cannot delete $topic"; }
  if [[ "$phase" == fetch* ]]; then
    secs="$(calc "($t1 - $t0) / 1e9")"
  else # the client's own timing: from the first send, or from the first record (a share group's
    # join takes seconds on Kafka, milliseconds on gregord: left out, as bench/share_drain.sh does)
    secs="$(python3 -c '
import json, sys
d = json.loads(sys.argv[1].strip().splitlines()[-1])
print(max(d["seconds"] - (d["first_s"] if sys.argv[2] == "share" else 0), 1e-3))' "$out" "$phase")"
  fi
  RES[$b.$proto.$phase.$r]="$(calc "$N / $secs") $(calc "($c1 - $c0) / $HZ / $GIB")"
  log "$b $proto $phase run $r: $(calc "$N / $secs") records/s, broker $(calc "($c1 - $c0) / $HZ") CPU-s"
}

BROKERS="gregord"
[[ "${BENCH_TLS_KAFKA:-1}" == 1 ]] && BROKERS="gregord kafka"
declare -A RSS
for b in $BROKERS; do
  start_broker "$b"
  for p in $PROTOS; do run "$b" "$p" produce 0; done # warm-up (a fresh JVM's JIT), not counted
  for ph in produce fetch fetch_lg share; do
    for r in $(seq "$R"); do
      for p in $PROTOS; do
        run "$b" "$p" "$ph" "$r"
      done
    done
  done
  RSS[$b]="$(peak_rss_mb "$BPID")"
  stop_broker "$b"
done

med() { for r in $(seq "$R"); do echo "${RES[$1.$r]}"; done | sort -n | awk '{a[NR]=$0} END {print a[int((NR+1)/2)]}'; }
printf '\n%-8s %-8s %-10s %12s %16s %10s\n' broker phase protocol "records/s" "broker CPU-s/GiB" "vs plain"
for b in $BROKERS; do
  for ph in produce fetch fetch_lg share; do
    read -r base _ <<<"$(med "$b.plaintext.$ph")"
    for p in $PROTOS; do
      read -r rps cpg <<<"$(med "$b.$p.$ph")"
      printf '%-8s %-8s %-10s %12s %16s %10s\n' "$b" "$ph" "$p" "$rps" "$cpg" "$(calc "$rps / $base")"
    done
  done
  echo "$b peak RSS: ${RSS[$b]} MB"
done
if [[ "$BROKERS" == *kafka* ]]; then
  printf '\ngregord / Kafka 4.4.0 throughput:\n'
  for ph in produce fetch fetch_lg share; do
    for p in $PROTOS; do
      read -r g _ <<<"$(med "gregord.$p.$ph")"; read -r k _ <<<"$(med "kafka.$p.$ph")"
      printf '  %-8s %-10s %8s\n' "$ph" "$p" "$(calc "$g / $k")"
    done
  done
fi
echo "(median of $R runs of $N x 1 KiB; load at the end: $(cut -d' ' -f1-3 /proc/loadavg))"
bench_stop_watchdog || true
ok "bench/tls.sh done"
gr_finish
