#!/usr/bin/env bash
# ShareFetch / ShareAcknowledge end to end against the real gregord:
#  - raw-wire checks (tests/integration/share_fetch_wire.py): sessions and their errors
#    (122/123/42), every acknowledgement error path (121/42/100/3), RENEW (v2, IsRenewAck,
#    disabled -> 121), redelivery counts after RELEASE, REJECT/GAP archive, lock expiry and
#    delivery-limit archival, the share.partition.max.record.locks cap, record_limit vs
#    batch_optimized, long polls, session close / TCP close releasing records;
#  - SHARE_SESSION_LIMIT_REACHED on a second broker with group.share.max.share.sessions=2;
#  - durability: acks confirmed before kill -9 stay done after restart, held records come
#    back AVAILABLE, SPSO does not move back;
#  - interop: two confluent-kafka ShareConsumers drain N records, each exactly once (when
#    the test venv exists and the coordinator side answers ShareGroupHeartbeat).
#   bash tests/integration/test_share_fetch.sh [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
gr_require python3
HERE="$GR_SOURCE_DIR/tests/integration"
export PYTHONPATH="$HERE${PYTHONPATH:+:$PYTHONPATH}" # kwire.py and friends
WIRE=(python3 "$HERE/share_fetch_wire.py")
# Short locks for the expiry checks: the broker's lower bound must allow them.
OVR=(--override group.share.min.record.lock.duration.ms=1000)
start_gregord "${OVR[@]}"

# wire CHECK [ARGS...]: run one check, pass its ok/FAIL lines through
wire() {
  local out rc=0
  out="$(gr_timeout 120 "${WIRE[@]}" "$BOOTSTRAP" "$@" 2>&1)" || rc=$?
  while IFS= read -r line; do
    case "$line" in
      "ok - "*) ok "wire $1: ${line#ok - }" ;;
      "FAIL - "*) fail "wire $1: ${line#FAIL - }" ;;
      *) [[ -n "$line" ]] && echo "  $line" ;;
    esac
  done <<<"$out"
  ((rc == 0)) || [[ "$out" == *"FAIL - "* ]] || fail "wire $1 exited $rc"
}

for c in basic sessions acks renew redelivery expiry cap modes longpoll release logstart; do wire "$c"; done

# ---------------------------------------------------------------- durability (kill -9)
topic="durable-$RANDOM"
group="g-durable-$RANDOM"
tid="$(python3 - "$BOOTSTRAP" "$topic" "$group" <<'PY'
import sys
sys.path.insert(0, "tests/integration")
import kwire, share_fetch_wire as s
c = kwire.Conn(sys.argv[1])
err, tid = kwire.create_topic(c, sys.argv[2], 1)
assert err == 0
assert s.set_group_configs(c, sys.argv[3], {"share.auto.offset.reset": "earliest"})[0] == 0
print(tid.hex())
PY
)"
fifo="$GR_TMP/durable1.out"
gr_bg d1 "${WIRE[@]}" "$BOOTSTRAP" durable1 "$group" "$tid" "$topic" >"$fifo" 2>&1
for _ in $(seq 100); do grep -q READY "$fifo" && break; sleep 0.1; done
grep -q READY "$fifo" || fail "durable: phase 1 did not get ready: $(cat "$fifo")"
kill9_gregord
kill "$d1" 2>/dev/null || true
wait "$d1" 2>/dev/null || true
while IFS= read -r line; do
  case "$line" in "ok - "*) ok "${line#ok - }" ;; "FAIL - "*) fail "${line#FAIL - }" ;; esac
done <"$fifo"
restart_gregord
wire durable2 "$group" "$tid" "$topic"
stop_gregord

# ---------------------------------------------------------------- session limit
start_gregord --override group.share.max.share.sessions=2 --override group.share.max.size=2
wire limit_sessions
stop_gregord

# ---------------------------------------------------------------- confluent-kafka ShareConsumer
PY="$(gr_venv_dir)/bin/python"
if [[ -x "$PY" ]] && "$PY" -c 'import confluent_kafka; confluent_kafka.ShareConsumer' 2>/dev/null; then
  start_gregord
  if out="$(gr_timeout 180 "$PY" "$HERE/share_consume_client.py" "$BOOTSTRAP" 30000 2 2>&1)"; then
    ok "confluent-kafka: two ShareConsumers drained every record exactly once ($(tail -n 1 <<<"$out"))"
  else
    fail "confluent-kafka share consume: $(tail -n 5 <<<"$out")"
  fi
  stop_gregord
else
  log "confluent-kafka with ShareConsumer not installed (scripts/install-deps.sh): interop check skipped"
fi
gr_finish
