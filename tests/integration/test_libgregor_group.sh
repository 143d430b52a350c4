#!/usr/bin/env bash
# libgregor's group consumer against the real gregord (and with --ref against Apache Kafka
# 4.4.0 unchanged: the same expectations must hold there), for group.protocol=classic (eager
# range), classic with cooperative-sticky (incremental, KIP-429) and group.protocol=consumer
# (KIP-848), all at once (each its own topic and groups):
#  - split: two members (client_group_consume) share a 4-partition topic 2/2 (the rebalance
#    callback's ASSIGNED/REVOKED events), then consume the 400 records produced, exactly once;
#  - leave: when b closes (LeaveGroup / leaving heartbeat), a gets all 4 partitions and
#    consumes the 40 records produced afterwards, from b's committed offsets (no record twice);
#  - resume: after a closes too, a new member of the group reads only the 20 records produced
#    since (commits survived the restart of the consumer);
#  - api: seek, position, pause/resume, commit sync/async, committed, misuse (_STATE), close;
#  - gregor consume --group: --from-beginning + --max-messages commits and leaves, the next run
#    resumes; SIGINT leaves the group at once; --include as a regex subscription; usage errors as kafka-console-consumer's;
#  - mixed: a libgregor member and a kcat -G (librdkafka) member split one classic group, with
#    range and with cooperative-sticky;
#  - examples/group_consumer (commit after each record) resumes where it stopped;
#  - Java: Kafka's console consumer (KafkaConsumer 4.4.0) and a libgregor member in one group,
#    classic and KIP-848 (when java and the reference jars are there);
#  - static membership (group.instance.id): close does not leave, the restart gets the same
#    partitions and resumes;
#  - coordinator failover: the broker is killed (-9) and restarted
#    under two running members, which find the coordinator again, go on, and commit on close.
# Brokers: group.consumer.heartbeat.interval.ms=1000 (and its minimum) so KIP-848 members
# reconcile within a second; clients use heartbeat.interval.ms=500 (classic).
#   bash tests/integration/test_libgregor_group.sh [--ref] [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
SETUP="$GR_BUILD_DIR/client_share_consume"
TOOL="$GR_BUILD_DIR/client_group_consume"
[[ -x "$TOOL" && -x "$SETUP" ]] || die "client_group_consume / client_share_consume not built in $GR_BUILD_DIR"
FAST=(group.consumer.min.heartbeat.interval.ms=1000 group.consumer.heartbeat.interval.ms=1000
      group.initial.rebalance.delay.ms=0)
case "$GR_TARGET" in
  gregord) gargs=(); for kv in "${FAST[@]}"; do gargs+=(--override "$kv"); done; start_gregord "${gargs[@]}" ;;
  ref) start_ref_kafka "${FAST[@]}" ;;
  *) start_target ;;
esac

wait_for() { # wait_for SECONDS CMD...: until CMD succeeds
  local deadline=$(( $(date +%s) + $1 )); shift
  until "$@"; do (( $(date +%s) >= deadline )) && return 1; sleep 0.2; done
}
# owned FILE: the partitions the member holds after replaying its callback events
owned() {
  awk '$1 == "ASSIGNED" { n = split($2, a, ","); for (i = 1; i <= n; i++) if (a[i] != "") s[a[i]] = 1 }
       $1 == "REVOKED" || $1 == "LOST" { n = split($2, a, ","); for (i = 1; i <= n; i++) delete s[a[i]] }
       END { k = 0; for (p in s) k++; print k }' "$1" 2>/dev/null || echo 0
}
recs() { cat "$@" 2>/dev/null | awk '$1 == "REC" { print $2, $3 }' | sort -u | wc -l; }
all_recs() { cat "$@" 2>/dev/null | grep -c '^REC ' || true; }
member() { # member NAME PROTO GROUP TOPIC [options]: start a member in the background
  local name="$1" proto="$2" g="$3" t="$4" xs=()
  shift 4
  [[ "$proto" != consumer ]] && xs=(-X heartbeat.interval.ms=500 -X session.timeout.ms=10000)
  [[ "$proto" == coop ]] && proto=classic xs+=(-X partition.assignment.strategy=cooperative-sticky)
  gr_bg MEMBER_PID gr_timeout 90 "$TOOL" "$BOOTSTRAP" consume "$g" "$t" --idle-ms 0 --max-ms 80000 \
    --stop-file "$GR_TMP/$name.stop" -X group.protocol="$proto" "${xs[@]}" "$@" >"$GR_TMP/$name.out" 2>"$GR_TMP/$name.err"
  printf -v "PID_$name" '%s' "$MEMBER_PID"
}

# scenario PROTO: the split / leave / resume story for one protocol (runs in the background)
scenario() {
  local p="$1" T="lg-$1-$RANDOM" G="gg-$1-$RANDOM" a="a_$1" b="b_$1" c="c_$1" pa pb
  "$SETUP" "$BOOTSTRAP" setup "$T" 4 >/dev/null || { echo "FAIL setup"; return; }
  member "$a" "$p" "$G" "$T"
  pa=$(eval echo "\$PID_$a")
  wait_for 30 eval "(( \$(owned $GR_TMP/$a.out) == 4 ))" && echo "ok a alone holds 4" || echo "FAIL a alone holds 4"
  member "$b" "$p" "$G" "$T"
  pb=$(eval echo "\$PID_$b")
  if wait_for 30 eval "(( \$(owned $GR_TMP/$a.out) == 2 && \$(owned $GR_TMP/$b.out) == 2 ))"; then
    echo "ok a and b hold 2 each"; else echo "FAIL a and b hold 2 each: $(owned "$GR_TMP/$a.out") $(owned "$GR_TMP/$b.out")"; fi
  local first_revoke; first_revoke=$(grep -m1 '^REVOKED' "$GR_TMP/$a.out" | tr ',' ' ' | wc -w)
  if [[ "$p" == classic ]]; then check_line "eager: a gave up all 4 when b joined" "$first_revoke" 5
  else check_line "incremental: a gave up only 2 when b joined" "$first_revoke" 3; fi
  "$SETUP" "$BOOTSTRAP" produce "$T" 400 >/dev/null || { echo "FAIL produce"; return; }
  wait_for 30 eval "(( \$(recs $GR_TMP/$a.out $GR_TMP/$b.out) == 400 ))" && echo "ok 400 records consumed" \
    || echo "FAIL 400 records consumed: $(recs "$GR_TMP/$a.out" "$GR_TMP/$b.out")"
  (( $(grep -c '^REC' "$GR_TMP/$a.out") > 0 && $(grep -c '^REC' "$GR_TMP/$b.out") > 0 )) \
    && echo "ok a and b both consumed records" || echo "FAIL a and b both consumed records"
  touch "$GR_TMP/$b.stop"
  wait "$pb" 2>/dev/null || true
  grep -q '^CLOSE NONE' "$GR_TMP/$b.out" && echo "ok b closed" || echo "FAIL b closed: $(tail -n 2 "$GR_TMP/$b.out")"
  local t0=$(date +%s%N)
  wait_for 30 eval "(( \$(owned $GR_TMP/$a.out) == 4 ))" && echo "ok a holds 4 after b left" \
    || echo "FAIL a holds 4 after b left"
  echo "info rebalance after leave: $(( ($(date +%s%N) - t0) / 1000000 )) ms" >&2
  "$SETUP" "$BOOTSTRAP" produce "$T" 40 400 >/dev/null
  wait_for 30 eval "(( \$(recs $GR_TMP/$a.out $GR_TMP/$b.out) == 440 ))" && echo "ok 440 records consumed" \
    || echo "FAIL 440 records consumed: $(recs "$GR_TMP/$a.out" "$GR_TMP/$b.out")"
  touch "$GR_TMP/$a.stop"
  wait "$pa" 2>/dev/null || true
  echo "records delivered to a and b: $(all_recs "$GR_TMP/$a.out" "$GR_TMP/$b.out")"
  "$SETUP" "$BOOTSTRAP" produce "$T" 20 440 >/dev/null
  local cx=(-X group.protocol="$p")
  [[ "$p" == coop ]] && cx=(-X group.protocol=classic -X partition.assignment.strategy=cooperative-sticky)
  gr_timeout 60 "$TOOL" "$BOOTSTRAP" consume "$G" "$T" --idle-ms 3000 --max-ms 40000 "${cx[@]}" \
    >"$GR_TMP/$c.out" 2>"$GR_TMP/$c.err" || true
  echo "resumed member's records: $(all_recs "$GR_TMP/$c.out"), keys k440..k459: $(awk '$1 == "REC" { sub("k", "", $4); if ($4 >= 440 && $4 < 460) n++ } END { print n + 0 }' "$GR_TMP/$c.out")"
}

# mixed: a libgregor member and a kcat -G member (librdkafka, range) split one classic group
mixed() { # mixed PROTO (classic: range; coop: cooperative-sticky on both sides)
  local T="lm-$RANDOM" G="gm-$RANDOM" pa pk a="m_$1" k="mk_$1" strat=range
  [[ "$1" == coop ]] && strat=cooperative-sticky
  "$SETUP" "$BOOTSTRAP" setup "$T" 4 >/dev/null || { echo "FAIL setup"; return; }
  member "$a" "$1" "$G" "$T"
  pa=$(eval echo "\$PID_$a")
  wait_for 30 eval "(( \$(owned $GR_TMP/$a.out) == 4 ))" || echo "FAIL a alone holds 4"
  gr_bg pk timeout -k 5 80 kcat -b "$BOOTSTRAP" -G "$G" "$T" -u -f 'REC %p %o %k\n' -X auto.offset.reset=earliest \
    -X session.timeout.ms=10000 -X heartbeat.interval.ms=500 -X partition.assignment.strategy=$strat >"$GR_TMP/$k.out" 2>"$GR_TMP/$k.err"
  # the last assignment kcat printed: "assigned: t [0], ..." (eager) or "incremental assignment
  # of N partition(s) (...): t [2], ..." (cooperative; the partitions added)
  kcat_parts() { grep -oE '(assigned: |incremental assignment ).*' "$GR_TMP/$k.err" | tail -n 1 | grep -oE '\[[0-9]+\]' | wc -l; }
  wait_for 30 eval "(( \$(owned $GR_TMP/$a.out) == 2 && \$(kcat_parts) == 2 ))" && echo "ok libgregor and kcat hold 2 each" \
    || echo "FAIL libgregor and kcat hold 2 each: $(owned "$GR_TMP/$a.out") $(kcat_parts)"
  "$SETUP" "$BOOTSTRAP" produce "$T" 200 >/dev/null
  wait_for 30 eval "(( \$(recs $GR_TMP/$a.out $GR_TMP/$k.out) == 200 ))" && echo "ok 200 records consumed by both" \
    || echo "FAIL 200 records consumed by both: $(recs "$GR_TMP/$a.out" "$GR_TMP/$k.out")"
  kill -TERM "$pk" 2>/dev/null; wait "$pk" 2>/dev/null || true
  wait_for 30 eval "(( \$(owned $GR_TMP/$a.out) == 4 ))" && echo "ok libgregor holds 4 after kcat left" \
    || echo "FAIL libgregor holds 4 after kcat left"
  touch "$GR_TMP/$a.stop"; wait "$pa" 2>/dev/null || true
}

# mixed_java PROTO: a libgregor member and Kafka's console consumer (the Java KafkaConsumer
# 4.4.0, its default assignors range + cooperative-sticky on classic) in one group
REF_CP="$GR_SOURCE_DIR/tests/ref/target/lib/*"
have_java() { command -v java >/dev/null && compgen -G "$GR_SOURCE_DIR/tests/ref/target/lib/kafka-tools-*.jar" >/dev/null; }
mixed_java() {
  local p="$1" T="lj-$1-$RANDOM" G="gj-$1-$RANDOM" a="j_$1" pa pj
  "$SETUP" "$BOOTSTRAP" setup "$T" 4 >/dev/null || { echo "FAIL setup"; return; }
  member "$a" "$p" "$G" "$T"
  pa=$(eval echo "\$PID_$a")
  wait_for 30 eval "(( \$(owned $GR_TMP/$a.out) == 4 ))" || echo "FAIL a alone holds 4"
  local jx=(--command-property group.protocol="$p")
  [[ "$p" == classic ]] && jx+=(--command-property heartbeat.interval.ms=500) # refused by Java with KIP-848
  gr_bg pj timeout -k 5 80 java -Xmx256m -cp "$REF_CP" org.apache.kafka.tools.consumer.ConsoleConsumer \
    --bootstrap-server "$BOOTSTRAP" --topic "$T" --group "$G" --from-beginning "${jx[@]}" --formatter-property print.partition=true \
    --formatter-property print.offset=true >"$GR_TMP/$a.java" 2>"$GR_TMP/$a.java.err"
  if wait_for 40 eval "(( \$(owned $GR_TMP/$a.out) == 2 ))"; then echo "ok the Java member took 2 of libgregor's 4"
  else echo "FAIL the Java member took 2 of libgregor's 4: $(owned "$GR_TMP/$a.out")"; fi
  "$SETUP" "$BOOTSTRAP" produce "$T" 200 >/dev/null
  java_recs() { sed -E 's/^Partition:([0-9]+)\tOffset:([0-9]+)\t.*/REC \1 \2/' "$GR_TMP/$a.java"; }
  wait_for 30 eval "(( \$(cat $GR_TMP/$a.out <(java_recs) | awk '\$1 == \"REC\" {print \$2, \$3}' | sort -u | wc -l) == 200 ))" \
    && echo "ok 200 records consumed by libgregor and Java together" \
    || echo "FAIL 200 records consumed by libgregor and Java together"
  (( $(grep -c '^Partition' "$GR_TMP/$a.java") > 0 && $(grep -c '^REC' "$GR_TMP/$a.out") > 0 )) \
    && echo "ok both consumed" || echo "FAIL both consumed"
  kill -TERM "$pj" 2>/dev/null; wait "$pj" 2>/dev/null || true
  wait_for 30 eval "(( \$(owned $GR_TMP/$a.out) == 4 ))" && echo "ok libgregor holds 4 after the Java member left" \
    || echo "FAIL libgregor holds 4 after the Java member left"
  touch "$GR_TMP/$a.stop"; wait "$pa" 2>/dev/null || true
}

# static PROTO: a static member (group.instance.id) closes without leaving: the group keeps
# it, and a restart with the same instance id gets the same partitions and resumes.
# The idle limits are long: a loaded reference broker has been seen to deliver one
# partition and then nothing for 1.5 s (CI, stop 22).
static_member() {
  local p="$1" T="ls-$1-$RANDOM" G="gs-$1-$RANDOM" n
  "$SETUP" "$BOOTSTRAP" setup "$T" 4 >/dev/null && "$SETUP" "$BOOTSTRAP" produce "$T" 100 >/dev/null || { echo "FAIL setup"; return; }
  local xs=(-X group.protocol="$p" -X group.instance.id=inst-1)
  [[ "$p" == classic ]] && xs+=(-X heartbeat.interval.ms=500 -X session.timeout.ms=20000)
  gr_timeout 60 "$TOOL" "$BOOTSTRAP" consume "$G" "$T" --max 100 --idle-ms 8000 --max-ms 40000 "${xs[@]}" >"$GR_TMP/st1-$p.out" 2>&1 || true
  check_line "first run consumed 100" "$(all_recs "$GR_TMP/st1-$p.out")" 100
  n=$("$GR_BUILD_DIR/gregor" consumer-groups --bootstrap-server "$BOOTSTRAP" --describe --group "$G" --members 2>/dev/null \
    | awk -v g="$G" '$1 == g' | wc -l)
  check_line "the static member is still in the group after close" "$n" 1
  "$SETUP" "$BOOTSTRAP" produce "$T" 20 100 >/dev/null
  gr_timeout 60 "$TOOL" "$BOOTSTRAP" consume "$G" "$T" --idle-ms 6000 --max-ms 40000 "${xs[@]}" >"$GR_TMP/st2-$p.out" 2>&1 || true
  check_line "the restart got all 4 partitions" "$(grep -m1 '^ASSIGNED' "$GR_TMP/st2-$p.out")" "ASSIGNED 0,1,2,3"
  check_line "the restart read only the 20 new records" "$(all_recs "$GR_TMP/st2-$p.out")" 20
}
check_line() { if [[ "$2" == "$3" ]]; then echo "ok $1"; else echo "FAIL $1: got '$2', want '$3'"; fi; }

# poll_timeout PROTO: max.poll.interval.ms=1500; a stops polling for 3 s (its application
# stalls) while b goes on; at a's next poll it leaves, loses its partitions (LOST, no commit)
# and joins again; afterwards a and b hold one partition each. b never loses anything.
poll_timeout() {
  local p="$1" T="lp-$1-$RANDOM" G="gp-$1-$RANDOM" a="pa_$1" b="pb_$1" pa pb
  "$SETUP" "$BOOTSTRAP" setup "$T" 2 >/dev/null || { echo "FAIL setup"; return; }
  member "$a" "$p" "$G" "$T" -X max.poll.interval.ms=1500 --pause-file "$GR_TMP/$a.pause"
  pa=$(eval echo "\$PID_$a")
  wait_for 30 eval "(( \$(owned $GR_TMP/$a.out) == 2 ))" || echo "FAIL a alone holds 2"
  member "$b" "$p" "$G" "$T" -X max.poll.interval.ms=1500
  pb=$(eval echo "\$PID_$b")
  wait_for 30 eval "(( \$(owned $GR_TMP/$a.out) == 1 && \$(owned $GR_TMP/$b.out) == 1 ))" \
    && echo "ok a and b hold 1 each" || echo "FAIL a and b hold 1 each"
  grep -q '^LOST' "$GR_TMP/$a.out" && echo "FAIL a lost partitions before it stalled"
  touch "$GR_TMP/$a.pause"
  sleep 3
  rm -f "$GR_TMP/$a.pause"
  wait_for 20 grep -q '^LOST' "$GR_TMP/$a.out" && echo "ok a's first poll after 3 s: its partition is LOST" \
    || echo "FAIL a's first poll after 3 s: its partition is LOST"
  wait_for 30 eval "(( \$(owned $GR_TMP/$a.out) == 1 && \$(owned $GR_TMP/$b.out) == 1 ))" \
    && echo "ok a joined again: 1 partition each" \
    || echo "FAIL a joined again: 1 partition each: $(owned "$GR_TMP/$a.out") $(owned "$GR_TMP/$b.out")"
  grep -q '^LOST' "$GR_TMP/$b.out" && echo "FAIL b lost partitions" || echo "ok b, polling all along, lost nothing"
  touch "$GR_TMP/$a.stop" "$GR_TMP/$b.stop"
  wait "$pa" "$pb" 2>/dev/null || true
}

api_want() {
  cat <<'EOF'
assign after subscribe: _STATE
ASSIGNED 0,1,2,3
assigned: 4
first of p1 after seek 3: 3
position p1: 4
seek unassigned: _STATE
records while paused: 0
first of p2 after resume and seek 0: 0
commit p0=7: NONE
committed p0: NONE 7
commit_async p0=9: NONE
async callback: NONE n=1
committed p0 after async: 9
generation > 0: yes, member id set: yes
REVOKED 0,1,2,3
close: NONE
poll after close: _STATE
EOF
}

SCEN_PIDS=()
for p in classic consumer coop; do
  scenario "$p" >"$GR_TMP/scenario-$p.txt" 2>"$GR_TMP/scenario-$p.err" &
  GR_PIDS+=($!) SCEN_PIDS+=($!)
done
for p in classic coop; do
  mixed "$p" >"$GR_TMP/scenario-mixed-$p.txt" 2>&1 &
  GR_PIDS+=($!) SCEN_PIDS+=($!)
done
if have_java; then
  for p in classic consumer; do
    mixed_java "$p" >"$GR_TMP/scenario-java-$p.txt" 2>&1 &
    GR_PIDS+=($!) SCEN_PIDS+=($!)
  done
else log "no java / Kafka jars: the Java member scenarios are skipped"; fi
for p in classic consumer; do
  static_member "$p" >"$GR_TMP/scenario-static-$p.txt" 2>&1 &
  GR_PIDS+=($!) SCEN_PIDS+=($!)
  poll_timeout "$p" >"$GR_TMP/scenario-poll-$p.txt" 2>&1 &
  GR_PIDS+=($!) SCEN_PIDS+=($!)
done
log "api checks"
AT="api-$RANDOM"
"$SETUP" "$BOOTSTRAP" setup "$AT" 4 >/dev/null && "$SETUP" "$BOOTSTRAP" produce "$AT" 200 >/dev/null || die "api setup"
for p in classic consumer; do
  gr_timeout 60 "$TOOL" "$BOOTSTRAP" api "ga-$p" "$AT" -X group.protocol="$p" >"$GR_TMP/api-$p.out" 2>&1 || true
  if diff <(api_want) "$GR_TMP/api-$p.out" >"$GR_TMP/api-$p.diff"; then ok "$p: api checks"; else
    fail "$p: api checks"; cat "$GR_TMP/api-$p.diff"; fi
done

# ---- gregor consume --group
log "gregor consume --group"
CT="cli-$RANDOM"
"$SETUP" "$BOOTSTRAP" setup "$CT" 1 >/dev/null && "$SETUP" "$BOOTSTRAP" produce "$CT" 30 >/dev/null || die "cli setup"
cons() { gr_timeout 40 "$GR_BUILD_DIR/gregor" consume --bootstrap-server "$BOOTSTRAP" --topic "$CT" "$@"; }
for p in classic consumer; do
  out=$(cons --group "cli-$p" --group-protocol "$p" --from-beginning --max-messages 10 --property print.key=true 2>/dev/null | tr '\t' ' ' | awk '{print $1}' | paste -sd' ')
  check_eq "$p: gregor consume --group --from-beginning: the first 10" "$(seq -f 'k%g' 0 9 | paste -sd' ')" "$out"
  out=$(cons --group "cli-$p" --group-protocol "$p" --max-messages 5 --property print.key=true 2>/dev/null | tr '\t' ' ' | awk '{print $1}' | paste -sd' ')
  check_eq "$p: the next run resumes from the committed offset" "$(seq -f 'k%g' 10 14 | paste -sd' ')" "$out"
done
log "regex subscriptions"
RX="rx$RANDOM"
for t in a b; do "$SETUP" "$BOOTSTRAP" setup "$RX-$t" 1 >/dev/null && "$SETUP" "$BOOTSTRAP" produce "$RX-$t" 10 >/dev/null; done
for p in classic consumer; do
  n=$(gr_timeout 40 "$GR_BUILD_DIR/gregor" consume --bootstrap-server "$BOOTSTRAP" --include "$RX-.*" --group "rx-$p" \
    --group-protocol "$p" --from-beginning --max-messages 20 --timeout-ms 20000 2>/dev/null | wc -l)
  check_eq "$p: --group --include (regex subscription): both topics' 20 records" 20 "$n"
done
members_of() { "$GR_BUILD_DIR/gregor" consumer-groups --bootstrap-server "$BOOTSTRAP" --describe --group "$1" --members 2>&1 \
  | awk -v g="$1" '$1 == g' | wc -l; }
for p in classic consumer; do
  "$GR_BUILD_DIR/gregor" consume --bootstrap-server "$BOOTSTRAP" --topic "$CT" --group "sig-$p" --group-protocol "$p" \
    >/dev/null 2>"$GR_TMP/sig-$p.err" &
  spid=$!
  GR_PIDS+=("$spid")
  wait_for 20 eval "(( \$(members_of sig-$p) == 1 ))" || fail "$p: gregor consume --group joined"
  kill -INT "$spid"
  rc=0; wait "$spid" || rc=$?
  check_eq "$p: SIGINT: exit 0, the group left at once" "0 0" "$rc $(members_of "sig-$p")"
done
EX="$GR_BUILD_DIR/examples/group_consumer"
if [[ -x "$EX" ]]; then
  for p in classic consumer; do
    first=$(gr_timeout 40 "$EX" "$BOOTSTRAP" "ex-$p" "$CT" 3 "$p" 2>/dev/null | sed 's/.*: //' | paste -sd' ')
    again=$(gr_timeout 40 "$EX" "$BOOTSTRAP" "ex-$p" "$CT" 2 "$p" 2>/dev/null | sed 's/.*: //' | paste -sd' ')
    check_eq "$p: examples/group_consumer reads 3, then resumes at the 4th" "v0 v1 v2 | v3 v4" "$first | $again"
  done
else fail "examples/group_consumer not built"; fi
rc=0; err=$(cons --group x --partition 0 2>&1 >/dev/null) || rc=$?
check_eq "--group with --partition: usage error" "2 Error: Options group and partition cannot be specified together." \
  "$rc $(head -n 1 <<<"$err")"
rc=0; err=$(cons --group x --from-beginning --consumer-property auto.offset.reset=latest 2>&1 >/dev/null) || rc=$?
check_eq "--from-beginning with auto.offset.reset=latest" \
  "1 Can't simultaneously specify --from-beginning and 'auto.offset.reset=latest', please remove one option" \
  "$rc $(head -n 1 <<<"$err")"

log "waiting for the background scenarios"
for pid in "${SCEN_PIDS[@]}"; do wait "$pid" || true; done

# ---- coordinator failover: the broker restarts under two members (one per protocol)
log "broker restart"
FT="lf-$RANDOM"
"$SETUP" "$BOOTSTRAP" setup "$FT" 4 >/dev/null || die "failover setup"
for p in classic consumer; do member "f_$p" "$p" "gf-$p-$RANDOM" "$FT"; done
for p in classic consumer; do
  wait_for 30 eval "(( \$(owned $GR_TMP/f_$p.out) == 4 ))" || fail "$p: failover member holds 4"
done
"$SETUP" "$BOOTSTRAP" produce "$FT" 100 >/dev/null
for p in classic consumer; do wait_for 30 eval "(( \$(recs $GR_TMP/f_$p.out) == 100 ))" || true; done
kill9_target
# A killed JVM's threads may hold the listening socket a moment after the process is reaped.
wait_for 20 eval "! port_open ${BOOTSTRAP##*:}" || true
restart_target
"$SETUP" "$BOOTSTRAP" produce "$FT" 50 100 >/dev/null || fail "produce after the restart"
for p in classic consumer; do
  if wait_for 40 eval "(( \$(recs $GR_TMP/f_$p.out) == 150 ))"; then
    ok "$p: the member went on after the broker restart (150 records)"
  else fail "$p: the member went on after the broker restart: $(recs "$GR_TMP/f_$p.out") records"; fi
done
sleep 2 # a few heartbeats: a member the restarted coordinator does not know rejoins (LOST, ASSIGNED)
for p in classic consumer; do touch "$GR_TMP/f_$p.stop"; done
for p in classic consumer; do
  pid=$(eval echo "\$PID_f_$p"); wait "$pid" 2>/dev/null || true
  check_eq "$p: close after the restart commits and leaves" "CLOSE NONE" "$(tail -n 1 "$GR_TMP/f_$p.out")"
  log "$p events: $(grep -v '^REC' "$GR_TMP/f_$p.out" | paste -sd' ')"
done
log "done"
for f in "$GR_TMP"/scenario-mixed-*.txt "$GR_TMP"/scenario-java-*.txt "$GR_TMP"/scenario-static-*.txt \
  "$GR_TMP"/scenario-poll-*.txt; do
  [[ -f "$f" ]] || continue
  name=$(basename "$f" .txt); name=${name#scenario-}
  while read -r kind rest; do
    case "$kind" in ok) ok "$name: $rest" ;; FAIL) fail "$name: $rest" ;; esac
  done <"$f"
done
for p in classic consumer coop; do
  f="$GR_TMP/scenario-$p.txt"
  while read -r kind rest; do
    case "$kind" in ok) ok "$p: $rest" ;; FAIL) fail "$p: $rest" ;; esac
  done <"$f"
  check_eq "$p: every record delivered exactly once to a and b" "records delivered to a and b: 440" \
    "$(grep '^records delivered' "$f")"
  check_eq "$p: the new member resumed at the commits" "resumed member's records: 20, keys k440..k459: 20" \
    "$(grep '^resumed' "$f")"
  grep '^info' "$GR_TMP/scenario-$p.err" | sed "s/^info/$p:/" >&2 || true
done
gr_finish
