#!/usr/bin/env bash
# Cross-client share-consumer comparison: the same scenarios run with libgregor
# (tests/integration/client_share_xclient.c), the Java KafkaShareConsumer 4.4.0
# (tests/interop/java/.../ShareXClient.java) and @kafkats/client (tests/interop/node/
# share_xclient.mjs, pinned by package-lock.json), one driver process each, all scenarios
# in sequence. Each driver prints normalized lines (offsets, delivery counts, error names,
# never times); each driver's transcript must equal the one expected transcript below, so
# a client (or a broker answer to one client) that differs is caught. With --ref the same
# runs against Apache Kafka 4.4.0, which shows that the expected transcript is Kafka's.
#
# Scenarios (1-partition topic PREFIX-S, group PREFIX-S-g, share.auto.offset.reset=earliest;
# the drivers produce their records themselves once their consumers exist):
#   drain    implicit mode, 10 records: each delivered once with count 1, nothing afterwards
#            (lock 1 s, so an acknowledgement that failed would show as a redelivery);
#   acks     explicit ACCEPT 0 / RELEASE 1 / REJECT 2 + commit: only offset 1 comes back,
#            with delivery count 2; nothing after it is accepted;
#   refusal  explicit mode: a poll while records are unacknowledged is refused
#            (IllegalStateException / GR_ERR__STATE), the records can still be acknowledged;
#   close    two members; the one that got the records closes without acknowledging them:
#            the other member gets them (lock 30 s; it waits at most 15 s, so they came from
#            the close, not from lock expiry), delivery count 2 as on Kafka 4.4.0;
#   expiry   two members, lock 1 s: the holder does not acknowledge in time, the other member
#            gets the records with count 2, the holder's late ACCEPT fails for the partition
#            with INVALID_RECORD_STATE;
#   limit    share.delivery.count.limit=2: a record RELEASEd twice is archived;
#   renew    two members, lock 1 s: the holder RENEWs its record 10 times about 0.3 s apart
#            (several lock durations; libgregor and Java get it back from poll after each
#            renewal, with its delivery count unchanged), the other member polls all along and
#            gets nothing; the holder's final ACCEPT succeeds and nothing comes back.
# The broker runs with group.share.min.record.lock.duration.ms=1000.
#
# @kafkats/client 0.12.0 has no poll() and no acknowledgement mode: runEach() accepts each
# record when its handler returns (unless the handler acknowledged it), and stream() accepts
# the previous record when the next one is taken (ShareConsumer.stream / processShareFetchWorkItem
# in node_modules/@kafkats/client/dist/index.js). "Poll with unacknowledged records" cannot be
# expressed with it, so its transcript has "refusal unsupported" instead of that scenario.
# In the other scenarios a kafkats "poll" is a run of handler calls, "commit" the settled
# ack()/release()/reject() promises, and "close" is stop() while the handlers still hold the
# records (they then end without acknowledging), followed by disconnecting its client.
# One more check with kafkats alone ("leave"): stop() while its client stays connected leaves the
# group without ending the share session; the records stay acquired until their lock expires.
#
#   bash tests/interop/test_share_crossclient.sh [--ref | --bootstrap H:P] [--keep]
# Env: GR_XCLIENT_DRIVERS (subset of "libgregor java kafkats", default all).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
gr_require python3 java node
XC="$GR_BUILD_DIR/client_share_xclient"
JDIR="$GR_SOURCE_DIR/tests/interop/java"
NDIR="$GR_SOURCE_DIR/tests/interop/node"
[[ -x "$XC" ]] || die "client_share_xclient not built in $GR_BUILD_DIR"
[[ -d "$JDIR/target/lib" ]] || die "Java client jars missing in $JDIR/target/lib (run scripts/install-deps.sh)"
[[ -f "$NDIR/node_modules/@kafkats/client/package.json" ]] \
  || die "@kafkats/client not installed in $NDIR (run scripts/install-deps.sh)"
SCENARIOS=(drain acks refusal close expiry limit renew)
DRIVERS=(${GR_XCLIENT_DRIVERS:-libgregor java kafkats})

case "$GR_TARGET" in
  gregord) start_gregord --override group.share.min.record.lock.duration.ms=1000 \
             --override group.share.min.delivery.count.limit=2 ;;
  ref) start_ref_kafka group.share.min.record.lock.duration.ms=1000 group.share.min.delivery.count.limit=2 ;;
  *) start_target ;;
esac

# The Java driver: from the Maven jar when it holds an up-to-date ShareXClient, else compiled
# here against the pinned kafka-clients jars (so a stale jar cannot hide a change).
JSRC="$JDIR/src/main/java/dev/gregor/interop/ShareXClient.java"
JCP="$JDIR/target/java-interop-1.jar:$JDIR/target/lib/*"
if [[ " ${DRIVERS[*]} " == *" java "* ]]; then
  if ! { [[ "$JDIR/target/java-interop-1.jar" -nt "$JSRC" ]] \
         && unzip -l "$JDIR/target/java-interop-1.jar" 2>/dev/null | grep 'dev/gregor/interop/ShareXClient.class' >/dev/null; }; then
    gr_require javac
    mkdir -p "$GR_TMP/jclasses"
    gr_timeout 120 javac -nowarn -d "$GR_TMP/jclasses" -cp "$JDIR/target/lib/*" "$JSRC" 2>"$GR_TMP/javac.err" \
      || die "javac ShareXClient: $(tail -n 5 "$GR_TMP/javac.err")"
    JCP="$GR_TMP/jclasses:$JDIR/target/lib/*"
  fi
fi

# Topics and group configs for every driver, over the raw wire (tests/integration/kwire.py).
setup() { # setup PREFIX
  PYTHONPATH="$GR_SOURCE_DIR/tests/integration" python3 - "$BOOTSTRAP" "$1" <<'PY'
import sys, time, kwire, share_fetch_wire as s
boot, prefix = sys.argv[1], sys.argv[2]
groups = {
    "drain": {"share.record.lock.duration.ms": 1000},
    "acks": {"share.record.lock.duration.ms": 1000},
    "refusal": {"share.record.lock.duration.ms": 1000},
    "close": {"share.record.lock.duration.ms": 30000},
    "expiry": {"share.record.lock.duration.ms": 1000},
    "limit": {"share.record.lock.duration.ms": 1000, "share.delivery.count.limit": 2},
    "renew": {"share.record.lock.duration.ms": 1000},
    "leave": {"share.record.lock.duration.ms": 30000},
}
c = kwire.Conn(boot)
for scen, cfg in groups.items():
    err, _ = kwire.create_topic(c, "%s-%s" % (prefix, scen), 1)
    if err not in (0, 36):
        sys.exit("create topic %s-%s: error %d" % (prefix, scen, err))
    cfg = dict(cfg, **{"share.auto.offset.reset": "earliest"})
    for attempt in range(50):  # Kafka may answer before its group coordinator is ready
        err, msg = s.set_group_configs(c, "%s-%s-g" % (prefix, scen), cfg)
        if err == 0:
            break
        time.sleep(0.2)
    if err:
        sys.exit("group configs %s-%s-g: %s %s" % (prefix, scen, err, msg))
PY
}

# The expected transcript: the same for every client (Apache Kafka 4.4.0's outcome, see --ref).
EXPECTED="$(cat <<'EOF'
drain got: 0:1 1:1 2:1 3:1 4:1 5:1 6:1 7:1 8:1 9:1
drain more: none
acks got: 0:1 1:1 2:1
acks commit: NONE
acks got: 1:2
acks commit: NONE
acks more: none
refusal got: 0:1 1:1 2:1
refusal poll with unacknowledged records: refused
refusal commit: NONE
refusal more: none
close holder got: 0:1 1:1 2:1
close holder close: NONE
close other got: 0:2 1:2 2:2
close other commit: NONE
expiry holder got: 0:1 1:1 2:1
expiry other got: 0:2 1:2 2:2
expiry holder late commit: INVALID_RECORD_STATE
expiry other commit: NONE
limit got: 0:1
limit commit: NONE
limit got: 0:2
limit commit: NONE
limit more: none
renew holder got: 0:1
renew renewals: NONE
renew holder has after renewals: 0:1
renew other got: none
renew holder accept: NONE
renew other more: none
EOF
)"
# @kafkats/client: the refusal scenario cannot be expressed (see the header).
EXPECTED_KAFKATS="$(awk '/^refusal / { if (!done) print "refusal unsupported"; done = 1; next } { print }' <<<"$EXPECTED")"

run_driver() { # run_driver NAME: prints the driver's transcript
  local name="$1" prefix="xc-$1-$$"
  setup "$prefix" || { echo "set-up failed"; return 0; }
  case "$name" in
    libgregor) gr_timeout 240 "$XC" "$BOOTSTRAP" "$prefix" "${SCENARIOS[@]}" ;;
    java) gr_timeout 240 java -Xmx256m -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "$JCP" dev.gregor.interop.ShareXClient "$BOOTSTRAP" "$prefix" "${SCENARIOS[@]}" ;;
    kafkats) (cd "$NDIR" && gr_timeout 240 node share_xclient.mjs "$BOOTSTRAP" "$prefix" "${SCENARIOS[@]}") ;;
  esac 2>"$GR_TMP/$name.err" || echo "exit status $?"
}

for d in "${DRIVERS[@]}"; do
  t0=$(date +%s)
  out="$(run_driver "$d")"
  printf '%s\n' "$out" >"$GR_TMP/$d.out"
  log "$d driver: $(($(date +%s) - t0)) s"
  want="$EXPECTED"
  [[ "$d" == kafkats ]] && want="$EXPECTED_KAFKATS"
  if [[ "$out" == "$want" ]]; then
    ok "$d: the expected transcript ($(wc -l <<<"$out") lines)"
  else
    fail "$d: transcript differs (< expected, > $d):"
    diff <(echo "$want") <(echo "$out") | sed 's/^/    /' || true
    tail -n 5 "$GR_TMP/$d.err" | sed 's/^/    stderr: /'
  fi
done
# kafkats leave (not a shared scenario): stop() with the member's client still connected leaves
# the group without ending the share session; Kafka 4.4.0 keeps the records acquired until their
# 30 s lock expires, so the other member gets nothing within 3 s (gregord released them on the
# leave heartbeat until this test found it).
if [[ " ${DRIVERS[*]} " == *" kafkats "* ]]; then
  prefix="xc-leave-$$"
  setup "$prefix" || fail "leave: set-up"
  out="$(cd "$NDIR" && gr_timeout 120 node share_xclient.mjs "$BOOTSTRAP" "$prefix" leave 2>"$GR_TMP/leave.err")" || true
  check_eq "kafkats: a member that leaves the group with its share session open keeps its records" \
    "$(printf 'leave holder got: 0:1 1:1 2:1\nleave other got within 3 s: none')" "$out"
fi
if [[ "$GR_TARGET" == gregord ]] && ! alive "$GR_GREGORD_PID"; then fail "gregord died (log: $GR_TMP/gregord.log)"; fi
stop_target
gr_finish
