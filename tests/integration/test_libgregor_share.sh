#!/usr/bin/env bash
# libgregor's share consumer against the real gregord (and with --ref against Apache
# Kafka 4.3.1: the same expectations must hold there):
#  - implicit mode: 2 consumers drain N records of a 3-partition topic, each exactly once;
#  - explicit ACCEPT / RELEASE (redelivered, delivery count 2) / REJECT (never again),
#    commit_sync per-partition results;
#  - explicit-mode poll refusal ("All records must be acknowledged ..."), then ack, poll;
#  - commit_async with the acknowledgement-commit callback;
#  - lock expiry while processing: another member gets the record, the late ACCEPT gets
#    INVALID_RECORD_STATE for the partition;
#  - RENEW keeps a record past several 1 s locks (group share.record.lock.duration.ms=1000,
#    broker group.share.min.record.lock.duration.ms=1000), the record comes back from poll;
#  - wakeup from another thread; close releasing unacknowledged records to another member
#    (explicit and implicit); unknown topic; broker unreachable at start; refused configs;
#  - broker kill -9 + restart during poll (every record still consumed) and during
#    commit_sync (per-partition error, then recovery);
#  - examples/share_consumer_{implicit,explicit,renew} built and run.
#   bash tests/integration/test_libgregor_share.sh [--ref] [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
gr_require python3
TOOL="$GR_BUILD_DIR/client_share_consume"
SCEN="$GR_BUILD_DIR/client_share_scenarios"
[[ -x "$TOOL" && -x "$SCEN" ]] || die "client_share_* test programs not built in $GR_BUILD_DIR"
HERE="$GR_SOURCE_DIR/tests/integration"
case "$GR_TARGET" in
  gregord) start_gregord --override group.share.min.record.lock.duration.ms=1000 ;;
  ref) start_ref_kafka group.share.min.record.lock.duration.ms=1000 ;;
  *) start_target ;;
esac

# group_configs GROUP k=v...: IncrementalAlterConfigs on the GROUP resource (type 32).
# (libgregor's admin enum has GR_RESOURCE_GROUP = 3, which brokers refuse: raw wire here.)
group_configs() {
  PYTHONPATH="$HERE" python3 - "$BOOTSTRAP" "$@" <<'PY'
import sys, kwire, share_fetch_wire as s
c = kwire.Conn(sys.argv[1])
err, msg = s.set_group_configs(c, sys.argv[2], dict(kv.split("=", 1) for kv in sys.argv[3:]))
sys.exit(0 if err == 0 else "group configs: %s %s" % (err, msg))
PY
}

# fresh NAME PARTITIONS RECORDS [LOCK_MS]: sets T (topic) and G (group) with RECORDS records
fresh() {
  T="ls-$1-$RANDOM"; G="gs-$1-$RANDOM"
  "$TOOL" "$BOOTSTRAP" setup "$T" "$2" || fail "$1: create topic $T"
  group_configs "$G" share.auto.offset.reset=earliest ${4:+share.record.lock.duration.ms=$4} || fail "$1: group configs"
  if (($3 > 0)); then "$TOOL" "$BOOTSTRAP" produce "$T" "$3" || fail "$1: produce"; fi
}

# scenario NAME PARTITIONS RECORDS LOCK_MS: run it and compare with the expected lines on stdin
scenario() {
  local name="$1"; fresh "$name" "$2" "$3" "$4"
  local want; want="$(cat)"
  local out; out="$(gr_timeout 90 "$SCEN" "$BOOTSTRAP" "$name" "$T" "$G" 2>"$GR_TMP/$name.err" || true)"
  if [[ "$out" == "$want" ]]; then ok "$name"; else
    fail "$name:"; diff <(echo "$want") <(echo "$out") || true; tail -n 5 "$GR_TMP/$name.err"
  fi
}

# ---------------------------------------------------------------- implicit drain, 2 consumers
N=3000
fresh drain 3 "$N"
for i in 1 2; do
  gr_bg p$i gr_timeout 120 "$TOOL" "$BOOTSTRAP" consume "$G" "$T" --idle-ms 4000 --max-ms 90000 \
    -X max.poll.records=100 >"$GR_TMP/drain$i.out" 2>&1
done
wait "$p1" "$p2" || true
got="$(cat "$GR_TMP"/drain1.out "$GR_TMP"/drain2.out | awk '$1=="REC"{print $2, $3}' | sort | uniq -c | awk '{print $1}' | sort | uniq -c | xargs)"
check_eq "implicit: 2 consumers drain $N records, each exactly once" "$N 1" "$got"
check "implicit: both consumers got records" test "$(grep -c '^REC' "$GR_TMP/drain1.out")" -gt 0 -a "$(grep -c '^REC' "$GR_TMP/drain2.out")" -gt 0
check "implicit: acknowledgements reported without errors" bash -c "! grep -h '^ACK' $GR_TMP/drain*.out | grep -qv ' NONE '"

# ---------------------------------------------------------------- scenarios
scenario explicit 1 3 "" <<'EOF'
first: 0:1 1:1 2:1
commit: NONE rows=1 [p0 NONE offsets=3]
redelivered: 1:2
commit again: NONE rows=1 [p0 NONE offsets=1]
afterwards: none
close: NONE
EOF
scenario refusal 1 3 "" <<'EOF'
got: 0:1 1:1 2:1
poll again: _STATE "All records must be acknowledged in explicit acknowledgement mode."
batch still valid: 3
ack first: NONE
poll with one left: _STATE
ack the rest by offset: NONE
ack unknown offset: _STATE
poll after acks: NONE
commit: NONE rows=0
implicit acknowledge: _STATE "Implicit acknowledgement of delivery is being used."
EOF
scenario async 1 3 "" <<'EOF'
commit_async: NONE
callback called: yes, offsets acknowledged = records polled: yes
EOF
scenario expiry 1 3 1000 <<'EOF'
A got: 0:1 1:1 2:1
A lock timeout: 1000
B got: 0:2 1:2 2:2
A late commit: INVALID_RECORD_STATE rows=1 [p0 INVALID_RECORD_STATE offsets=3]
B commit: NONE rows=1 [p0 NONE offsets=3]
EOF
scenario renew 1 1 1000 <<'EOF'
A got: 0:1
renewed past 4 lock durations: yes
other member got it: no
returned again by poll: yes
final accept: NONE rows=1 [p0 NONE offsets=1]
EOF
scenario wakeup 1 0 "" <<'EOF'
poll: _WAKEUP after the wakeup: yes
next poll: NONE
commit_sync after wakeup: _WAKEUP
close: NONE
EOF
scenario close_explicit 1 3 "" <<'EOF'
A got: 0:1 1:1 2:1
A close: NONE
close quick: yes
B got: 1 2
EOF
scenario close_implicit 1 3 "" <<'EOF'
A got: 0:1 1:1 2:1
A close: NONE
close quick: yes
B got: 0 1 2
EOF
out="$(gr_timeout 30 "$SCEN" "$BOOTSTRAP" unknown "no-such-topic-$RANDOM" "gs-unknown-$RANDOM" 2>/dev/null || true)"
check "unknown topic: polls answer NONE with no records ($out)" grep -q "^unknown topic: NONE records=0 subscription=no-such-topic-" <<<"$out"
dead="$(free_port)"
out="$(gr_timeout 30 "$SCEN" "127.0.0.1:$dead" unreachable t g 2>"$GR_TMP/unreach.err" || true)"
check_eq "broker unreachable at start: clear error ($(cat "$GR_TMP/unreach.err"))" \
  "$(printf 'poll: _TRANSPORT within 5 s: yes\nnames the connect error: yes\nclose: NONE')" "$out"
out="$(gr_timeout 30 "$SCEN" "$BOOTSTRAP" config t g 2>/dev/null || true)"
for k in isolation.level auto.offset.reset enable.auto.commit group.instance.id session.timeout.ms \
         heartbeat.interval.ms group.protocol; do
  check "config $k refused" grep -q "^$k: _INVALID_ARG Configuration '$k' is not supported by the share consumer" <<<"$out"
done
check "config without group.id refused" grep -q "^no group.id: _INVALID_ARG group.id is required" <<<"$out"

# ---------------------------------------------------------------- broker restart during poll
if [[ "$GR_TARGET" != external ]]; then
  N=2000
  fresh restart_poll 2 "$N"
  gr_bg rp gr_timeout 240 "$TOOL" "$BOOTSTRAP" consume "$G" "$T" --idle-ms 200000 --max-ms 200000 --want "$N" \
    --sleep-ms 100 -X max.poll.records=50 -X share.acquire.mode=record_limit --ready "$GR_TMP/rp.ready" >"$GR_TMP/rp.out" 2>&1
  for _ in $(seq 200); do [[ -f "$GR_TMP/rp.ready" ]] && break; sleep 0.1; done
  sleep 1
  kill9_target; sleep 1; restart_target
  wait "$rp" || true
  got="$(awk '$1=="REC"{print $2, $3}' "$GR_TMP/rp.out" | sort -u | wc -l)"
  check_eq "restart during poll: all $N records consumed after kill -9 + restart" "$N" "$got"
  check "restart during poll: consumer closed cleanly ($(tail -n 1 "$GR_TMP/rp.out"))" grep -q '^CLOSE NONE' "$GR_TMP/rp.out"
  log "restart during poll: $(grep -c '^ACK .* NETWORK_EXCEPTION\|^POLLERR' "$GR_TMP/rp.out" || true) failed acknowledgement reports"

  # ------------------------------------------------------------ broker restart during commit_sync
  fresh restart_commit 1 3
  gr_bg rc gr_timeout 240 "$TOOL" "$BOOTSTRAP" consume "$G" "$T" --max-ms 200000 \
    --ack accept --commit sync --sleep-ms 4000 --idle-ms 30000 --ready "$GR_TMP/rc.ready" >"$GR_TMP/rc.out" 2>&1
  for _ in $(seq 200); do [[ -f "$GR_TMP/rc.ready" ]] && break; sleep 0.1; done
  kill9_target; sleep 1; restart_target
  wait "$rc" || true
  check "restart during commit_sync: per-partition error surfaced ($(grep -m1 '^COMMITERR\|^ACK 0 [^N]' "$GR_TMP/rc.out" || echo none))" \
    grep -q '^COMMITERR\|^ACK 0 NETWORK_EXCEPTION' "$GR_TMP/rc.out"
  check "restart during commit_sync: records delivered again and committed after the restart" \
    bash -c "grep -q '^ACK 0 NONE 3' '$GR_TMP/rc.out' || [[ \$(grep -c '^REC' '$GR_TMP/rc.out') -ge 6 ]]"
fi

# ---------------------------------------------------------------- examples
EX="$GR_BUILD_DIR/examples"
fresh ex_implicit 1 5
out="$(gr_timeout 60 "$EX/share_consumer_implicit" "$BOOTSTRAP" "$G" "$T" 5 2>&1 || true)"
check "examples/share_consumer_implicit: 5 records ($(tail -n 1 <<<"$out"))" grep -q '^consumed 5 records' <<<"$out"
fresh ex_explicit 1 6
out="$(gr_timeout 60 "$EX/share_consumer_explicit" "$BOOTSTRAP" "$G" "$T" 6 2>&1 || true)"
check "examples/share_consumer_explicit: accepted 5, rejected 1 ($(tail -n 1 <<<"$out"))" grep -q '^accepted 5, rejected 1' <<<"$out"
fresh ex_renew 1 2 1000
out="$(gr_timeout 60 "$EX/share_consumer_renew" "$BOOTSTRAP" "$G" "$T" 2 3000 2>&1 || true)"
check "examples/share_consumer_renew: 2 records processed for 3 s each under a 1 s lock ($(tail -n 1 <<<"$out"))" \
  grep -q '^processed 2 records, 0 renew failures' <<<"$out"
gr_finish
