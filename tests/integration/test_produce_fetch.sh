#!/usr/bin/env bash
# Produce / Fetch / ListOffsets / DeleteRecords end to end:
#  - kcat round trips with checksums: acks 0, 1 and all; every codec; the idempotent producer;
#  - kcat -Q offsets for earliest / latest / a time;
#  - a long-polling kcat consumer is woken by a produce (latency bound);
#  - raw-wire checks (tests/integration/produce_fetch_wire.py): error codes, fetch sessions,
#    idempotent duplicates and sequence errors, exact offsets by timestamp and MAX_TIMESTAMP,
#    DeleteRecords, long poll / MinBytes / KIP-74, MESSAGE_TOO_LARGE, LogAppendTime;
#  - confluent-kafka (Fetch v13+ with topic ids, AdminClient list_offsets / delete_records),
#    when the test venv exists;
#  - a second broker with auto.create.topics.enable=false: producing to an unknown topic fails.
# Every check also passes against Apache Kafka (--ref), which validates the expectations.
#   bash tests/integration/test_produce_fetch.sh [--ref | --bootstrap H:P] [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
gr_require kcat python3 md5sum
HERE="$GR_SOURCE_DIR/tests/integration"
WIRE=(python3 "$HERE/produce_fetch_wire.py")
start_target

# 2000 lines "key<TAB>value", values of varying length.
python3 - >"$GR_TMP/in.txt" <<'PY'
import random
r = random.Random(7)
for i in range(2000):
    print("k%05d\t%s" % (i, "v%05d-" % i + "x" * r.randint(0, 300)))
PY
want="$(sort "$GR_TMP/in.txt" | md5sum | cut -c1-32)"

# roundtrip NAME TOPIC kcat-produce-args...: produce in.txt, consume it back, compare
roundtrip() {
  local name="$1" topic="$2"; shift 2
  if ! gr_timeout 60 kcat -P -b "$BOOTSTRAP" -t "$topic" -K $'\t' -X message.timeout.ms=30000 "$@" \
       -l "$GR_TMP/in.txt" 2>"$GR_TMP/p-$topic.err"; then
    fail "$name: produce failed: $(tail -n 2 "$GR_TMP/p-$topic.err")"; return
  fi
  gr_timeout 60 kcat -C -b "$BOOTSTRAP" -t "$topic" -o beginning -e -q -f '%k\t%s\n' \
    >"$GR_TMP/o-$topic.txt" 2>"$GR_TMP/c-$topic.err" || true
  local got
  got="$(sort "$GR_TMP/o-$topic.txt" | md5sum | cut -c1-32)"
  check_eq "$name: 2000 messages back identical ($(wc -l <"$GR_TMP/o-$topic.txt") read)" "$want" "$got"
}

for acks in 0 1 all; do roundtrip "acks=$acks" "pf-acks-$acks-$RANDOM" -X "acks=$acks"; done
for z in none gzip snappy lz4 zstd; do roundtrip "codec $z (acks=all)" "pf-z-$z-$RANDOM" -z "$z" -X acks=all; done
idem="pf-idem-$RANDOM"
roundtrip "idempotent producer" "$idem" -X enable.idempotence=true -z lz4

# kcat -Q: earliest, latest, a time in the future (-1), a time before everything (0).
q() { gr_timeout 20 kcat -Q -b "$BOOTSTRAP" -t "$idem:0:$1" 2>/dev/null | sed -n 's/.*offset \(-\{0,1\}[0-9]*\).*/\1/p'; }
check_eq "kcat -Q earliest" 0 "$(q -2)"
check_eq "kcat -Q latest" 2000 "$(q -1)"
check_eq "kcat -Q timestamp 0 -> first offset" 0 "$(q 0)"
check_eq "kcat -Q future timestamp -> -1" -1 "$(q $(( $(date +%s) * 1000 + 3600000 )))"

# Long poll: a consumer waiting with fetch.wait.max.ms=10000 sees a new message quickly.
lp="pf-lp-$RANDOM"
echo first | gr_timeout 20 kcat -P -b "$BOOTSTRAP" -t "$lp" -X acks=1
gr_bg lp_pid gr_timeout 30 kcat -C -b "$BOOTSTRAP" -t "$lp" -o end -u -f '%s\n' -X fetch.wait.max.ms=10000 \
  >"$GR_TMP/lp.out" 2>"$GR_TMP/lp.err"
sleep 2
t0=$(date +%s%N)
echo wake-up | gr_timeout 20 kcat -P -b "$BOOTSTRAP" -t "$lp" -X acks=1 -X linger.ms=0
for _ in $(seq 1 300); do grep -q wake-up "$GR_TMP/lp.out" && break; sleep 0.01; done
dt=$(( ($(date +%s%N) - t0) / 1000000 ))
if grep -q wake-up "$GR_TMP/lp.out" && ((dt < 1500)); then
  ok "long-polling kcat consumer woken by a produce after ${dt} ms (fetch.wait.max.ms=10000)"
else
  fail "long-polling consumer not woken in time (${dt} ms)"
fi
stop_pid "$lp_pid" 5

# Raw-wire checks, one fresh topic each.
for c in errors sessions idempotence timestamps delete longpoll configs; do
  t="pf-wire-$c-$RANDOM"
  if gr_timeout 60 "${WIRE[@]}" "$BOOTSTRAP" "$t" create >/dev/null; then
    out="$(gr_timeout 120 "${WIRE[@]}" "$BOOTSTRAP" "$t" "$c" 2>&1)" || true
  else
    out="FAIL - could not create topic $t"
  fi
  while IFS= read -r line; do
    case "$line" in
      "ok - "*) ok "wire $c: ${line#ok - }" ;;
      "FAIL - "*) fail "wire $c: ${line#FAIL - }" ;;
      *) [[ -n "$line" ]] && fail "wire $c: $line" ;;
    esac
  done <<<"$out"
done

# confluent-kafka (librdkafka 2.x: Fetch with topic ids, flexible ListOffsets, AdminClient).
PY="$(gr_venv_dir)/bin/python"
if [[ -x "$PY" ]]; then
  t="pf-client-$RANDOM"
  "${WIRE[@]}" "$BOOTSTRAP" "$t" create3 >/dev/null || fail "could not create $t"
  out="$(gr_timeout 180 "$PY" "$HERE/produce_fetch_client.py" "$BOOTSTRAP" "$t" 2>/dev/null)" || true
  while IFS= read -r line; do
    case "$line" in
      "ok - "*) ok "confluent-kafka: ${line#ok - }" ;;
      "FAIL - "*) fail "confluent-kafka: ${line#FAIL - }" ;;
    esac
  done <<<"$out"
  [[ "$out" == *"long poll"* ]] || fail "confluent-kafka checks did not finish: $(tail -n 3 <<<"$out")"
else
  log "python venv missing ($PY): confluent-kafka checks skipped (run scripts/install-deps.sh)"
fi

stop_target
if [[ "$GR_TARGET" == gregord ]]; then
  check_eq "gregord stopped cleanly on SIGTERM" 0 "$GR_GREGORD_EXIT"
  # Without auto-creation a produce to an unknown topic fails and creates nothing.
  # (start_gregord reuses the data dir: the topics made above are still there.)
  start_gregord --override auto.create.topics.enable=false
  nope="pf-nope-$RANDOM"
  if echo x | gr_timeout 30 kcat -P -b "$BOOTSTRAP" -t "$nope" -X message.timeout.ms=3000 \
       -X topic.metadata.propagation.max.ms=1000 >"$GR_TMP/nope.out" 2>&1; then
    fail "produce to an unknown topic succeeded with auto.create.topics.enable=false"
  else
    ok "produce to an unknown topic fails with auto.create.topics.enable=false ($(grep -o 'Unknown topic[^"]*' "$GR_TMP/nope.out" | head -n 1))"
  fi
  check_eq "the unknown topic was not created" 0 "$(gr_timeout 20 kcat -L -b "$BOOTSTRAP" | grep -c "topic \"$nope\"" || true)"
  check_eq "the earlier topics survived the restart" 1 "$(gr_timeout 20 kcat -L -b "$BOOTSTRAP" | grep -c "topic \"$idem\"" || true)"
  stop_gregord
fi
gr_finish
