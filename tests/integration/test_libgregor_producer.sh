#!/usr/bin/env bash
# libgregor producer and admin client against the real gregord:
#  - 100,000 keyed records per codec (none gzip snappy lz4 zstd) produced through
#    libgregor (tests/integration/client_produce.c), read back with kcat: the sorted
#    key/value lines must be byte-identical (sha256) to the input;
#  - acks=0, acks=1, acks=all; the explicit idempotent producer (offsets in send order);
#    enable.idempotence=true with acks=1 refused with Kafka's message;
#  - linger.ms=0, acks=all, one request in flight, a poll after every send: records that
#    arrive while a request is in flight join one open batch instead of becoming a batch (and
#    a request) each, so 2,000 records take far fewer than 2,000 Produce requests;
#  - buffer.memory exhausted: send fails with _QUEUE_FULL and a clear message;
#  - broker unreachable at start (connections refused): 20 sends fail with _ALL_BROKERS_DOWN
#    and the connect error within a few seconds, not max.block.ms (60 s) each; with
#    unreachable.connect.attempts=0 a send waits max.block.ms, as Kafka's producer does;
#  - examples/producer.
# The admin client has its own test (test_libgregor_admin.sh). With --ref the same checks run
# against Apache Kafka 4.4.0 (ctest: ref/test_libgregor_producer).
#   bash tests/integration/test_libgregor_producer.sh [--ref | --bootstrap H:P] [--keep]
# Env: GR_LIBGREGOR_MESSAGES (default 100000), GR_LIBGREGOR_CODECS.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
gr_require kcat sha256sum python3
N="${GR_LIBGREGOR_MESSAGES:-100000}"
CODECS="${GR_LIBGREGOR_CODECS:-none gzip snappy lz4 zstd}"
PROD="$GR_BUILD_DIR/client_produce"
[[ -x "$PROD" ]] || die "client_produce not built in $GR_BUILD_DIR"
start_target_counting

python3 - "$N" >"$GR_TMP/in.txt" <<'PY'
import sys, random
n = int(sys.argv[1]); r = random.Random(4)
alpha = "abcdefghijklmnopqrstuvwxyz0123456789"
for i in range(n):
    print("key-%07d\t%s" % (i, "v%07d-" % i + "".join(r.choice(alpha) for _ in range(r.randint(0, 200)))))
PY
want="$(sort "$GR_TMP/in.txt" | sha256sum | cut -d' ' -f1)"
head -n 2000 "$GR_TMP/in.txt" >"$GR_TMP/small.txt"
want_small="$(sort "$GR_TMP/small.txt" | sha256sum | cut -d' ' -f1)"

# readback TOPIC COUNT: the sorted "key<TAB>value" lines of a topic
readback() {
  gr_timeout 120 kcat -C -b "$BOOTSTRAP" -t "$1" -o beginning -c "$2" -e -q -f '%k\t%s\n' 2>"$GR_TMP/kcat-$1.err" | sort
}

# produce NAME TOPIC FILE WANT COUNT args...: produce FILE with libgregor, compare what kcat reads
produce() {
  local name="$1" topic="$2" file="$3" wantsum="$4" count="$5"; shift 5
  local t0 out
  t0=$(date +%s%N)
  if ! out="$(gr_timeout 300 "$PROD" -b "$BOOTSTRAP" -t "$topic" -f "$file" "$@" 2>"$GR_TMP/p-$topic.err")"; then
    fail "$name: producer failed: $out $(tail -n 2 "$GR_TMP/p-$topic.err")"; return
  fi
  local ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  check_eq "$name: $count records back byte-identical (${ms} ms: $(cat "$GR_TMP/p-$topic.err"))" \
    "$wantsum" "$(readback "$topic" "$count" | sha256sum | cut -d' ' -f1)"
}

for z in $CODECS; do
  produce "codec $z" "lg-$z-$RANDOM" "$GR_TMP/in.txt" "$want" "$N" -X compression.type="$z" -X linger.ms=10
done
for acks in 0 1 all; do
  produce "acks=$acks" "lg-acks$acks-$RANDOM" "$GR_TMP/small.txt" "$want_small" 2000 -X acks="$acks"
done
produce "idempotent, offsets in send order" "lg-idem-$RANDOM" "$GR_TMP/small.txt" "$want_small" 2000 \
  -X enable.idempotence=true -X max.in.flight.requests.per.connection=5 -X batch.size=2000 --check-order

before="$(target_requests Produce 0 0 99)"
produce "linger.ms=0 behind a full window" "lg-linger0-$RANDOM" "$GR_TMP/small.txt" "$want_small" 2000 -p 0 \
  -X linger.ms=0 -X acks=all -X max.in.flight.requests.per.connection=1
reqs=$(($(target_requests Produce 0 0 99) - before))
check "linger.ms=0 behind a full window: 2,000 records in $reqs Produce requests (at most 500)" test "$reqs" -le 500

out="$("$PROD" -b "$BOOTSTRAP" -t lg-x -f "$GR_TMP/small.txt" -X enable.idempotence=true -X acks=1 2>&1 || true)"
check "idempotence=true with acks=1 is refused ($out)" grep -q "Must set acks to all" <<<"$out"

out="$(gr_timeout 60 "$PROD" -b "$BOOTSTRAP" -t "lg-full-$RANDOM" --fill -s 1000 -X buffer.memory=100000 \
  -X linger.ms=60000 -X batch.size=1000000 2>/dev/null || true)"
check "buffer.memory full: _QUEUE_FULL with a clear message ($(head -n 1 <<<"$out"))" \
  grep -q "send error: _QUEUE_FULL: buffer.memory (100000 bytes) is full" <<<"$out"

dead="$(free_port)"
t0=$(date +%s%N)
out="$(gr_timeout 60 "$PROD" -b "127.0.0.1:$dead" -t lg-dead -n 20 --keep-going 2>/dev/null || true)"
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
check "refused connections: _ALL_BROKERS_DOWN naming the connect error ($(head -n 1 <<<"$out"))" \
  grep -q "send error: _ALL_BROKERS_DOWN: Topic lg-dead not present in metadata: no broker reachable (127.0.0.1:$dead: connect failed: Connection refused" <<<"$out"
check "refused connections: every one of 20 sends failed ($(tail -n 1 <<<"$out"))" grep -qx "send errors=20" <<<"$out"
check "refused connections: 20 sends in under 5 s, not max.block.ms each (${ms} ms)" test "$ms" -lt 5000
t0=$(date +%s)
out="$(gr_timeout 60 "$PROD" -b "127.0.0.1:$dead" -t lg-dead -n 1 -X max.block.ms=3000 -X unreachable.connect.attempts=0 \
  2>/dev/null || true)"
el=$(( $(date +%s) - t0 ))
check "unreachable.connect.attempts=0: _TIMED_OUT naming the connect error after max.block.ms (${el}s: $(head -n 1 <<<"$out"))" \
  grep -q "send error: _TIMED_OUT: Topic lg-dead not present in metadata after 3000 ms (127.0.0.1:$dead: connect failed: Connection refused" <<<"$out"
check "unreachable broker: gave up within 10 s" test "$el" -le 10

ex="$GR_BUILD_DIR/examples/producer"
if [[ -x "$ex" ]]; then
  t="lg-example-$RANDOM"
  out="$(printf 'k1\thello\nworld\n' | gr_timeout 60 "$ex" "$BOOTSTRAP" "$t" acks=all compression.type=lz4 2>&1 || true)"
  check_eq "examples/producer: 2 delivered" "2 delivered, 0 failed" "$out"
  check_eq "examples/producer: records readable by kcat" "$(printf 'k1\thello\n\tworld')" \
    "$(gr_timeout 60 kcat -C -b "$BOOTSTRAP" -t "$t" -o beginning -c 2 -e -q -f '%k\t%s\n' 2>/dev/null)"
else
  fail "examples/producer not built in $GR_BUILD_DIR/examples"
fi
if [[ "$GR_TARGET" == gregord ]] && ! alive "$GR_GREGORD_PID"; then fail "gregord died (log: $GR_TMP/gregord.log)"; fi
stop_target
gr_finish
