#!/usr/bin/env bash
# bench/tls.sh: produce and fetch throughput over SSL vs PLAINTEXT on one gregord (two
# listeners, certificates made with openssl), with kcat (librdkafka) as the client.
#   produce: kcat -P of N 1 KiB lines (acks=1, one partition, each run its own topic);
#   fetch:   kcat -C of the first SSL/PLAINTEXT topic from the beginning to its N-th record.
# Per phase: records/s over the client's wall time, and gregord's CPU-seconds (utime+stime
# from /proc) per GiB, the server-side cost of TLS. kTLS (SSL_sendfile) is used when the kernel
# has it; gregord's start-up log says which path fetches take (printed here).
# Environment: BENCH_TLS_MESSAGES (default 500000), BENCH_REPEAT (default 3, median reported).
#   GR_BUILD_DIR=build bash bench/tls.sh
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../tests/lib.sh"
GR_TEST_TIMEOUT="${BENCH_TIMEOUT:-1200}"
gr_init "$@"
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
gr_require kcat openssl python3
N="${BENCH_TLS_MESSAGES:-500000}"
R="${BENCH_REPEAT:-3}"
C="$GR_TMP/certs"
bash "$GR_SOURCE_DIR/tests/integration/tls_certs.sh" "$C" || die "cannot make certificates"
FILE="$GR_TMP/in.txt"
bench_kcat_input "$FILE" "$N" 1024
GR_PORT="$(free_port)"; SP="$(free_port)"
GR_DATA_DIR="$GR_TMP/data"; mkdir -p "$GR_DATA_DIR"
GR_GREGORD_ARGS=(--override "listeners=PLAINTEXT://127.0.0.1:$GR_PORT,SSL://127.0.0.1:$SP"
  --override "advertised.listeners=PLAINTEXT://127.0.0.1:$GR_PORT,SSL://127.0.0.1:$SP"
  --override ssl.keystore.type=PEM --override "ssl.keystore.location=$C/server.pem")
_gregord_launch
wait_port "$SP" 10 "$GR_GREGORD_PID" || die "SSL port not listening"
grep -o 'fetched file data goes out .*' "$GR_TMP/gregord.log" | head -1 | sed 's/^/gregord: /'
cpu() { awk '{print $14 + $15}' "/proc/$GR_GREGORD_PID/stat"; }
HZ="$(getconf CLK_TCK)"
declare -A RES
run() { # run proto phase r
  local proto="$1" phase="$2" r="$3" sec=() c0 c1 t0 t1
  [[ "$proto" == ssl ]] && sec=(-b "127.0.0.1:$SP" -X security.protocol=ssl -X "ssl.ca.location=$C/ca.pem") ||
    sec=(-b "127.0.0.1:$GR_PORT")
  c0="$(cpu)"; t0="$(date +%s%N)"
  if [[ "$phase" == produce ]]; then
    gr_timeout 600 kcat -P "${sec[@]}" -t "b-$proto-$r" -p 0 -X acks=1 -l "$FILE" || die "kcat -P $proto"
  else
    local lo
    lo="$(gr_timeout 600 kcat -C "${sec[@]}" -t "b-$proto-1" -p 0 -o beginning -c "$N" -e -q -f '%o\n' | tail -n1)"
    [[ "$lo" == "$((N - 1))" ]] || die "kcat -C $proto ended at $lo"
  fi
  t1="$(date +%s%N)"; c1="$(cpu)"
  local s; s="$(calc "($t1 - $t0) / 1e9")"
  RES[$proto.$phase.$r]="$(calc "$N / $s") $(calc "($c1 - $c0) / $HZ / ($N * 1024 / 1073741824)")"
  log "$proto $phase run $r: $N in $s s = $(calc "$N / $s") rec/s, gregord $(calc "($c1 - $c0) / $HZ") CPU-s"
}
for r in $(seq "$R"); do for p in plaintext ssl; do run "$p" produce "$r"; done; done
for r in $(seq "$R"); do for p in plaintext ssl; do run "$p" fetch "$r"; done; done
med() { for r in $(seq "$R"); do echo "${RES[$1.$r]}"; done | sort -n | awk '{a[NR]=$0} END {print a[int((NR+1)/2)]}'; }
printf '\n%-8s %-10s %14s %18s\n' phase protocol "records/s" "gregord CPU-s/GiB"
for ph in produce fetch; do
  for p in plaintext ssl; do read -r rps cpg <<<"$(med "$p.$ph")"; printf '%-8s %-10s %14s %18s\n' "$ph" "$p" "$rps" "$cpg"; done
  read -r a _ <<<"$(med "plaintext.$ph")"; read -r b _ <<<"$(med "ssl.$ph")"
  printf '%-8s ssl/plaintext throughput: %s\n' "$ph" "$(calc "$b / $a")"
done
stop_gregord
bench_stop_watchdog || true
ok "bench/tls.sh done"
gr_finish
