#!/usr/bin/env bash
# libgregor's share consumer against the real gregord (and with --ref against Apache
# Kafka 4.4.0: the same expectations must hold there):
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
# Time: independent scenarios (each its own topic and group) run at the same time, in two
# waves (the lock-timing ones, expiry and renew, apart from the rest); both restart checks share
# one kill -9 + restart; both brokers run with a 1 s share-group heartbeat interval (Kafka's
# group.share.heartbeat.interval.ms and its minimum; default 5 s) so that members get their
# assignment sooner. ctest runs it against gregord (integration/test_libgregor_share) and against
# Apache Kafka 4.4.0 (ref/test_libgregor_share).
#   bash tests/integration/test_libgregor_share.sh [--ref] [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
TOOL="$GR_BUILD_DIR/client_share_consume"
SCEN="$GR_BUILD_DIR/client_share_scenarios"
[[ -x "$TOOL" && -x "$SCEN" && -x "$GR_BUILD_DIR/client_admin" ]] || die "client_share_*/client_admin test programs not built in $GR_BUILD_DIR"
FAST=(group.share.min.record.lock.duration.ms=1000 group.share.min.heartbeat.interval.ms=1000
      group.share.heartbeat.interval.ms=1000)
case "$GR_TARGET" in
  gregord) gargs=(); for kv in "${FAST[@]}"; do gargs+=(--override "$kv"); done; start_gregord "${gargs[@]}" ;;
  ref) start_ref_kafka "${FAST[@]}" ;;
  *) start_target ;;
esac

# group_configs GROUP k=v...: IncrementalAlterConfigs on the GROUP resource, through libgregor's
# admin client (client_admin's group-configs mode)
group_configs() { gr_timeout 30 "$GR_BUILD_DIR/client_admin" "$BOOTSTRAP" - group-configs "$@"; }

# fresh NAME PARTITIONS RECORDS [LOCK_MS]: sets T (topic) and G (group) with RECORDS records
fresh() {
  T="ls-$1-$RANDOM"; G="gs-$1-$RANDOM"
  "$TOOL" "$BOOTSTRAP" setup "$T" "$2" || fail "$1: create topic $T"
  group_configs "$G" share.auto.offset.reset=earliest ${4:+share.record.lock.duration.ms=$4} || fail "$1: group configs"
  if (($3 > 0)); then "$TOOL" "$BOOTSTRAP" produce "$T" "$3" || fail "$1: produce"; fi
}

# scenario NAME PARTITIONS RECORDS LOCK_MS: set it up and start it in the background; the
# expected lines come on stdin. scenario_check NAME: wait for it and compare.
declare -A SPID
scenario() {
  local name="$1" spid; fresh "$name" "$2" "$3" "$4"
  cat >"$GR_TMP/$name.want"
  gr_bg spid gr_timeout 90 "$SCEN" "$BOOTSTRAP" "$name" "$T" "$G" >"$GR_TMP/$name.out" 2>"$GR_TMP/$name.err"
  SPID[$name]=$spid
}
scenario_check() {
  local name="$1"
  wait "${SPID[$name]}" || true
  if diff "$GR_TMP/$name.want" "$GR_TMP/$name.out" >"$GR_TMP/$name.diff"; then ok "$name"; else
    fail "$name:"; cat "$GR_TMP/$name.diff"; tail -n 5 "$GR_TMP/$name.err"
  fi
}

# ================================================================ wave 1: everything without lock timing
# ---------------------------------------------------------------- implicit drain, 2 consumers
N=3000
fresh drain 3 0
for i in 1 2; do
  # --sleep-ms: one consumer alone needs >= 1.5 s for the 30 polls, so both take part.
  gr_bg p$i gr_timeout 120 "$TOOL" "$BOOTSTRAP" consume "$G" "$T" --idle-ms 3000 --max-ms 90000 \
    --sleep-ms 50 -X max.poll.records=100 >"$GR_TMP/drain$i.out" 2>&1
done
# The records are produced only once both members hold partitions and the first member has
# given up the partitions the second one took (gregor share-groups --members: #PARTITIONS,
# 5th column, 3 in all). A member learns of its smaller assignment only in its next
# heartbeat (5 s); until then it still fetches all 3 partitions and one fetch of it could
# acquire every record of the partition they share.
assigned=""
for _ in $(seq 1 120); do
  assigned="$("$GR_BUILD_DIR/gregor" share-groups --bootstrap-server "$BOOTSTRAP" --describe --group "$G" \
    --members 2>/dev/null | awk -v g="$G" '$1 == g && $5 > 0 {n++; s += $5} END {print n + 0, s + 0}' || true)"
  [[ "$assigned" == "2 3" ]] && break
  sleep 0.5
done
check_eq "implicit: both members hold partitions, 3 in all, before the records exist" "2 3" "$assigned"
"$TOOL" "$BOOTSTRAP" produce "$T" "$N" || fail "drain: produce"

# ---------------------------------------------------------------- fetch ahead, within the budget
# Member A polls three batches at once (max.poll.records=100, share.acquire.mode=record_limit:
# exactly 100 per fetch), then holds the third for 10 s. A fast application fetches ahead (the
# default): A sent its next ShareFetch before its third poll returned, so it has acquired 400
# records, never more, and B, started once A holds its third batch, drains exactly the other
# 2,600; after its 10 s A gets the fetched-ahead 100. With gregor.share.fetch.ahead=false, A
# acquires 300 and B gets 2,700. (A first poll never fetches ahead: how long the application
# holds a batch is not known yet.)
declare -A AHEAD_G AHEAD_T
for fa in true false; do
  fresh "ahead_$fa" 1 3000
  AHEAD_G[$fa]="$G" AHEAD_T[$fa]="$T"
  gr_bg "aheadA_$fa" gr_timeout 90 "$TOOL" "$BOOTSTRAP" consume "$G" "$T" --sleep-ms 10000 --sleep-from 3 --idle-ms 3000 \
    --max-ms 60000 --ready "$GR_TMP/ahead_$fa.ready" -X max.poll.records=100 -X share.acquire.mode=record_limit \
    -X "gregor.share.fetch.ahead=$fa" >"$GR_TMP/aheadA_$fa.out" 2>&1
done

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

# ---------------------------------------------------------------- examples
EX="$GR_BUILD_DIR/examples"
fresh ex_implicit 1 5
gr_bg exi gr_timeout 60 "$EX/share_consumer_implicit" "$BOOTSTRAP" "$G" "$T" 5 >"$GR_TMP/ex_implicit.out" 2>&1
fresh ex_explicit 1 6
gr_bg exe gr_timeout 60 "$EX/share_consumer_explicit" "$BOOTSTRAP" "$G" "$T" 6 >"$GR_TMP/ex_explicit.out" 2>&1

# ---------------------------------------------------------------- quick ones, meanwhile
out="$(gr_timeout 30 "$SCEN" "$BOOTSTRAP" unknown "no-such-topic-$RANDOM" "gs-unknown-$RANDOM" 2>/dev/null || true)"
check "unknown topic: polls answer NONE with no records ($out)" grep -q "^unknown topic: NONE records=0 subscription=no-such-topic-" <<<"$out"
dead="$(free_port)"
out="$(gr_timeout 30 "$SCEN" "127.0.0.1:$dead" unreachable t g 2>"$GR_TMP/unreach.err" || true)"
check_eq "broker unreachable at start: clear error ($(cat "$GR_TMP/unreach.err"))" \
  "$(printf 'poll: _ALL_BROKERS_DOWN within 5 s: yes\nnames the connect error: yes\nclose: NONE')" "$out"
out="$(gr_timeout 30 "$SCEN" "$BOOTSTRAP" config t g 2>/dev/null || true)"
for k in isolation.level auto.offset.reset enable.auto.commit group.instance.id session.timeout.ms \
         heartbeat.interval.ms group.protocol gregor.consumer.fetch.ahead; do
  check "config $k refused" grep -q "^$k: _INVALID_ARG Configuration '$k' is not supported by the share consumer" <<<"$out"
done
check "config without group.id refused" grep -q "^no group.id: _INVALID_ARG group.id is required" <<<"$out"

for fa in true false; do
  for _ in $(seq 300); do [[ -f "$GR_TMP/ahead_$fa.ready" ]] && break; sleep 0.1; done
  gr_bg "aheadB_$fa" gr_timeout 90 "$TOOL" "$BOOTSTRAP" consume "${AHEAD_G[$fa]}" "${AHEAD_T[$fa]}" --idle-ms 3000 \
    --max-ms 15000 -X max.poll.records=100 >"$GR_TMP/aheadB_$fa.out" 2>&1
done

# ---------------------------------------------------------------- wave 1 results
wait "$p1" "$p2" || true
got="$(cat "$GR_TMP"/drain1.out "$GR_TMP"/drain2.out | awk '$1=="REC"{print $2, $3}' | sort | uniq -c | awk '{print $1}' | sort | uniq -c | xargs)"
check_eq "implicit: 2 consumers drain $N records, each exactly once" "$N 1" "$got"
check "implicit: both consumers got records" test "$(grep -c '^REC' "$GR_TMP/drain1.out")" -gt 0 -a "$(grep -c '^REC' "$GR_TMP/drain2.out")" -gt 0
check "implicit: acknowledgements reported without errors" bash -c "! grep -h '^ACK' $GR_TMP/drain*.out | grep -qv ' NONE '"
for s in explicit refusal async wakeup close_explicit close_implicit; do scenario_check "$s"; done
declare -A want_b=([true]=2600 [false]=2700)
for fa in true false; do
  pa="aheadA_$fa" pb="aheadB_$fa"
  wait "${!pa}" "${!pb}" || true
  a="$(awk '$1=="REC"{print $3}' "$GR_TMP/aheadA_$fa.out" | sort -u | wc -l)"
  b="$(awk '$1=="REC"{print $3}' "$GR_TMP/aheadB_$fa.out" | sort -u | wc -l)"
  all="$(cat "$GR_TMP/aheadA_$fa.out" "$GR_TMP/aheadB_$fa.out" | awk '$1=="REC"{print $3}' | sort -u | wc -l)"
  check_eq "fetch ahead $fa: while A holds its third batch, B gets all but the $((3000 - ${want_b[$fa]})) A acquired" \
    "${want_b[$fa]} 3000" "$b $all"
  check_eq "fetch ahead $fa: A gets the rest" "$((3000 - ${want_b[$fa]}))" "$a"
done
wait "$exi" "$exe" || true
check "examples/share_consumer_implicit: 5 records ($(tail -n 1 "$GR_TMP/ex_implicit.out"))" grep -q '^consumed 5 records' "$GR_TMP/ex_implicit.out"
check "examples/share_consumer_explicit: accepted 5, rejected 1 ($(tail -n 1 "$GR_TMP/ex_explicit.out"))" \
  grep -q '^accepted 5, rejected 1' "$GR_TMP/ex_explicit.out"

# ================================================================ wave 2: 1 s acquisition locks
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
fresh ex_renew 1 2 1000
gr_bg exr gr_timeout 60 "$EX/share_consumer_renew" "$BOOTSTRAP" "$G" "$T" 2 3000 >"$GR_TMP/ex_renew.out" 2>&1
scenario_check expiry
scenario_check renew
wait "$exr" || true
check "examples/share_consumer_renew: 2 records processed for 3 s each under a 1 s lock ($(tail -n 1 "$GR_TMP/ex_renew.out"))" \
  grep -q '^processed 2 records, 0 renew failures' "$GR_TMP/ex_renew.out"

# ================================================================ broker kill -9 + restart
# One restart for both: a consumer in the middle of its polls, and one sleeping (8 s) between its
# first records and their commit_sync.
if [[ "$GR_TARGET" != external ]]; then
  N=2000
  fresh restart_poll 2 "$N"; TP="$T" GP="$G"
  fresh restart_commit 1 3; TC="$T" GC="$G"
  gr_bg rp gr_timeout 240 "$TOOL" "$BOOTSTRAP" consume "$GP" "$TP" --idle-ms 200000 --max-ms 200000 --want "$N" \
    --sleep-ms 100 -X max.poll.records=50 -X share.acquire.mode=record_limit --ready "$GR_TMP/rp.ready" >"$GR_TMP/rp.out" 2>&1
  gr_bg rc gr_timeout 240 "$TOOL" "$BOOTSTRAP" consume "$GC" "$TC" --max-ms 200000 --until-commit-ok 1 \
    --ack accept --commit sync --sleep-ms 8000 --idle-ms 30000 --ready "$GR_TMP/rc.ready" >"$GR_TMP/rc.out" 2>&1
  for _ in $(seq 300); do [[ -f "$GR_TMP/rp.ready" && -f "$GR_TMP/rc.ready" ]] && break; sleep 0.1; done
  sleep 1
  check "restart: both consumers had records before the kill" test -f "$GR_TMP/rp.ready" -a -f "$GR_TMP/rc.ready"
  kill9_target; sleep 1; restart_target
  wait "$rp" || true
  got="$(awk '$1=="REC"{print $2, $3}' "$GR_TMP/rp.out" | sort -u | wc -l)"
  check_eq "restart during poll: all $N records consumed after kill -9 + restart" "$N" "$got"
  check "restart during poll: consumer closed cleanly ($(tail -n 1 "$GR_TMP/rp.out"))" grep -q '^CLOSE NONE' "$GR_TMP/rp.out"
  log "restart during poll: $(grep -c '^ACK .* NETWORK_EXCEPTION\|^POLLERR' "$GR_TMP/rp.out" || true) failed acknowledgement reports"
  wait "$rc" || true
  check "restart during commit_sync: per-partition error surfaced ($(grep -m1 '^COMMITERR\|^ACK 0 [^N]' "$GR_TMP/rc.out" || echo none))" \
    grep -q '^COMMITERR\|^ACK 0 NETWORK_EXCEPTION' "$GR_TMP/rc.out"
  check "restart during commit_sync: records delivered again and committed after the restart" \
    bash -c "grep -q '^ACK 0 NONE 3' '$GR_TMP/rc.out' || [[ \$(grep -c '^REC' '$GR_TMP/rc.out') -ge 6 ]]"
fi
if [[ "$GR_TARGET" == gregord ]] && ! alive "$GR_GREGORD_PID"; then fail "gregord died (log: $GR_TMP/gregord.log)"; fi
stop_target
gr_finish
