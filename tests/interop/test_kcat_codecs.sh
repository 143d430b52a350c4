#!/usr/bin/env bash
# kcat (librdkafka, Debian) produces 100,000 keyed messages with each codec
# (none, gzip, snappy, lz4, zstd; acks=all) and consumes them back; the sorted
# key/value lines must be identical (sha256) to what was sent.
#   bash tests/interop/test_kcat_codecs.sh [--ref | --bootstrap H:P] [--keep]
# Env: GR_KCAT_MESSAGES (default 100000), GR_KCAT_CODECS (default "none gzip snappy lz4 zstd").
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
gr_require kcat sha256sum
N="${GR_KCAT_MESSAGES:-100000}"
CODECS="${GR_KCAT_CODECS:-none gzip snappy lz4 zstd}"
start_target

# Input: key TAB value; values of varying length (compressible and not) so batches differ.
python3 - "$N" >"$GR_TMP/in.txt" <<'PY'
import sys, random
n = int(sys.argv[1]); r = random.Random(42)
alpha = "abcdefghijklmnopqrstuvwxyz0123456789"
for i in range(n):
    v = "value-%07d-" % i + "".join(r.choice(alpha) for _ in range(r.randint(0, 120)))
    print("key-%07d\t%s" % (i, v))
PY
want="$(sort "$GR_TMP/in.txt" | sha256sum | cut -d' ' -f1)"

for codec in $CODECS; do
  topic="codec-$codec-$RANDOM"
  t0=$(date +%s%N)
  if ! gr_timeout 180 kcat -P -b "$BOOTSTRAP" -t "$topic" -K $'\t' -z "$codec" \
       -X acks=all -X linger.ms=10 -X message.timeout.ms=60000 -q \
       -l "$GR_TMP/in.txt" 2>"$GR_TMP/produce-$codec.err"; then
    fail "$codec: kcat produce failed: $(tail -n 3 "$GR_TMP/produce-$codec.err")"
    continue
  fi
  t1=$(date +%s%N)
  gr_timeout 180 kcat -C -b "$BOOTSTRAP" -t "$topic" -o beginning -e -q \
    -f '%k\t%s\n' >"$GR_TMP/out-$codec.txt" 2>"$GR_TMP/consume-$codec.err" \
    || { fail "$codec: kcat consume failed: $(tail -n 3 "$GR_TMP/consume-$codec.err")"; continue; }
  t2=$(date +%s%N)
  got_n="$(wc -l <"$GR_TMP/out-$codec.txt")"
  got="$(sort "$GR_TMP/out-$codec.txt" | sha256sum | cut -d' ' -f1)"
  log "$codec: produce $(( (t1 - t0) / 1000000 )) ms, consume $(( (t2 - t1) / 1000000 )) ms"
  if [[ "$got" == "$want" ]]; then
    ok "$codec: $N messages produced and consumed back identical"
  else
    fail "$codec: consumed $got_n of $N messages, checksum differs"
  fi
done

stop_target
[[ "$GR_TARGET" != gregord || "$GR_GREGORD_EXIT" == 0 ]] \
  && ok "broker stopped cleanly on SIGTERM" || fail "gregord exit status $GR_GREGORD_EXIT after SIGTERM"
gr_finish
