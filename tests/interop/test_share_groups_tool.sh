#!/usr/bin/env bash
# kafka-share-groups (org.apache.kafka.tools.consumer.group.ShareGroupCommand, kafka-tools 4.4.0 from
# tests/ref/target/lib) against the broker: --list (+ --state), --describe (--offsets default,
# --verbose, --members, --state), --reset-offsets --to-earliest/--to-latest --dry-run/--execute
# (refused while the group has a member, applied once it is empty), --delete-offsets, --delete.
# Checks exit codes and row contents. Scenario: group sgt-g (share.auto.offset.reset=earliest) consumes
# topic sgt-a (10 records) with explicit acks, offsets < 4 ACCEPTed and 4..9 RELEASEd, then once more
# RELEASEd by a second member (so that Apache Kafka's persisted start offset has caught up: start 4,
# lag 6); topic sgt-b (4 records) fully ACCEPTed (lag 0); a live member (ShareTool hold, topic sgt-hold)
# for the non-empty part.
# At each --list / --describe step (default, --offsets, --members, --state, --verbose) `gregor share-groups`
# (build/gregor, libgregor's CLI) runs with the same arguments against the same broker right after the
# tool and must print the same rows with the same exit status (see same()). With --ref that is checked
# against Apache Kafka 4.4.0 (ctest: ref/test_share_groups_tool), without it against gregord.
#   bash tests/interop/test_share_groups_tool.sh [--ref | --bootstrap H:P] [--keep] [--compare]
# --compare: run the scenario against the reference Kafka AND gregord (fresh brokers) and diff the
#   normalized transcripts (host:port, member ids, coordinator id and epochs masked; runs of blanks
#   collapsed; --list output sorted). The transcript of each run is in the temp dir (--keep).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
COMPARE=0 args=()
for a in "$@"; do if [[ "$a" == --compare ]]; then COMPARE=1; else args+=("$a"); fi; done
gr_init "${args[@]}"
gr_require java python3
[[ -x "$GR_BUILD_DIR/gregor" ]] || die "gregor (the CLI) not built in $GR_BUILD_DIR"
JDIR="$GR_SOURCE_DIR/tests/interop/java"
LIB="$GR_SOURCE_DIR/tests/ref/target/lib"
[[ -f "$JDIR/target/java-interop-1.jar" && -d "$JDIR/target/lib" ]] \
  || die "Java interop programs not built in $JDIR/target (run scripts/install-deps.sh)"
unzip -l "$JDIR/target/java-interop-1.jar" 2>/dev/null | grep 'dev/gregor/interop/ShareTool.class' >/dev/null \
  || die "ShareTool missing from $JDIR/target/java-interop-1.jar (rebuild: scripts/install-deps.sh)"
ls "$LIB"/kafka-tools-4.4.0.jar >/dev/null 2>&1 || die "kafka-tools jar missing in $LIB (run scripts/install-deps.sh)"
unzip -l "$LIB/kafka-tools-4.4.0.jar" | grep 'org/apache/kafka/tools/consumer/group/ShareGroupCommand.class' >/dev/null \
  || die "ShareGroupCommand not in kafka-tools-4.4.0.jar"

cat >"$GR_TMP/tool-log4j2.properties" <<'EOF'
status = error
rootLogger.level = error
EOF

G=sgt-g T=sgt-a B=sgt-b H=sgt-hold
sharetool() { gr_timeout 120 java -Xmx256m -cp "$JDIR/target/java-interop-1.jar:$JDIR/target/lib/*" dev.gregor.interop.ShareTool "$@"; }

# The tool runs in one JVM for the whole scenario (GroupToolRunner, a coprocess): a JVM start
# per command would triple the test time.
start_runner() {
  coproc SGR { exec java -Xmx256m -Dlog4j2.configurationFile="$GR_TMP/tool-log4j2.properties" \
    -cp "$JDIR/target/java-interop-1.jar:$LIB/*" dev.gregor.interop.GroupToolRunner org.apache.kafka.tools.consumer.group.ShareGroupCommand \
    "$BOOTSTRAP" "$RUN" 2>"$RUN/runner.err"; }
  SGR_PID_SAVED=$SGR_PID
  GR_PIDS+=("$SGR_PID")
  SGR_IN=${SGR[1]} SGR_OUT=${SGR[0]}
}
stop_runner() { # EOF on its stdin ends the runner
  eval "exec ${SGR_IN}>&- ${SGR_OUT}<&-"
  local i; for ((i = 0; i < 100; i++)); do alive "$SGR_PID_SAVED" || break; sleep 0.1; done
  stop_pid "$SGR_PID_SAVED" 5
}
# sg STEP args...: run the tool; raw stdout/stderr in $RUN/STEP.out/.err, exit status in $RUN/STEP.rc;
# appends the normalized result to $RUN/transcript
sg() {
  local step="$1"; shift
  local rc=0 line="" a
  { printf '%s' "$step"; for a in "$@"; do printf '\t%s' "$a"; done; printf '\n'; } >&"$SGR_IN"
  (IFS=$'\t'; printf '%s\n' "$*") >"$RUN/$step.args"
  if ! read -r -t 120 line <&"$SGR_OUT" || [[ "$line" != "DONE $step" ]]; then
    fail "kafka-share-groups $step did not complete ($line; $(tail -n 3 "$RUN/runner.err" 2>/dev/null))"
    echo 124 >"$RUN/$step.rc"; : >>"$RUN/$step.out"; : >>"$RUN/$step.err"
  fi
  rc="$(cat "$RUN/$step.rc")"
  [[ "$step" == wait-* ]] && return 0
  {
    echo "## $step: $* -> exit $rc"
    python3 - "$step" "$RUN/$step.out" "$RUN/$step.err" <<'PY'
import re, sys
step, out, err = sys.argv[1:4]
def norm(lines):
    res = []
    for l in lines:
        l = l.rstrip()
        if not l.strip() or re.match(r'\s+at ', l) or l.startswith('Caused by') or l.startswith('java.util.concurrent'):
            continue
        l = re.sub(r'127\.0\.0\.1:\d+', 'HOST:PORT', l)
        l = re.sub(r'\(\d+\)', '(ID)', l)
        l = re.sub(r'(?<![\w-])[A-Za-z0-9_-]{22}(?![\w-])', 'MEMBER-ID', l)
        l = re.sub(r'\s+', ' ', l.strip())
        res.append(l)
    return res
o = norm(open(out).read().splitlines())
e = norm(open(err).read().splitlines())
if 'verbose' in step:  # epochs are an implementation detail: mask the *EPOCH columns
    hdr = next((x.split(' ') for x in o if x.startswith('GROUP ')), [])
    masked = []
    for x in o:
        parts = x.split(' ')
        if not x.startswith('GROUP ') and len(parts) == len(hdr):
            parts = ['E' if h.endswith('EPOCH') and p.lstrip('-').isdigit() else p for h, p in zip(hdr, parts)]
        masked.append(' '.join(parts))
    o = masked
if step.startswith('list'):
    head = [x for x in o if x.startswith('GROUP ')]
    o = head + sorted(x for x in o if not x.startswith('GROUP '))
for x in o: print('out: ' + x)
for x in e: print('err: ' + x)
PY
  } >>"$RUN/transcript"
}
# same STEP: `gregor share-groups` (libgregor's CLI) with the arguments of the tool's last STEP, against
# the same broker right after it: exit status and rows must equal Kafka's tool (runs of blanks collapsed,
# blank lines dropped; --list rows sorted, as the order of groups is not specified; stdout and stderr
# together, as where a notice goes is not part of the rows). Nothing else is masked: both run against
# the same group in the same state, so member ids, hosts and epochs must be equal too. (Not compared:
# error answers, e.g. --describe of a deleted group: gregor words them "Error: <message>" and exits 1,
# docs/cli.md.)
GREGOR="$GR_BUILD_DIR/gregor"
same() {
  local step="$1" args rc=0
  IFS=$'\t' read -r -a args <"$RUN/$step.args"
  gr_timeout 60 "$GREGOR" share-groups --bootstrap-server "$BOOTSTRAP" "${args[@]}" \
    >"$RUN/$step.gregor.out" 2>"$RUN/$step.gregor.err" || rc=$?
  local norm='s/[[:space:]]+/ /g; s/^ //; s/ $//; /^$/d'
  local want got
  want="$(cat "$RUN/$step.out" "$RUN/$step.err" | grep -vE '^\s+at |^Caused by|^java\.util\.concurrent' | sed -E "$norm")"
  got="$(cat "$RUN/$step.gregor.out" "$RUN/$step.gregor.err" | sed -E "$norm")"
  if [[ "$step" == list* ]]; then want="$(sort <<<"$want")"; got="$(sort <<<"$got")"; fi
  if [[ "$rc" == "$(rc "$step")" && "$want" == "$got" ]]; then
    ok "gregor share-groups ${args[*]}: the rows and exit status of kafka-share-groups ($(wc -l <<<"$want") lines)"
  else
    fail "gregor share-groups ${args[*]} (exit $rc) differs from kafka-share-groups (exit $(rc "$step")):"
    diff <(echo "$want") <(echo "$got") | head -n 20 || true
  fi
  return 0
}
out() { cat "$RUN/$1.out"; }
err() { cat "$RUN/$1.err"; }
rc() { cat "$RUN/$1.rc"; }
# has STEP REGEX [out|err|all]: the (blank-collapsed) output of STEP has a line matching REGEX
has() {
  local f
  case "${3:-out}" in out) f="$RUN/$1.out" ;; err) f="$RUN/$1.err" ;; *) f="$RUN/$1.out $RUN/$1.err" ;; esac
  # shellcheck disable=SC2086
  cat $f | sed -E 's/[[:space:]]+/ /g; s/^ //; s/ $//' | grep -Eq -- "$2"
}
expect() { # expect DESCRIPTION STEP RC REGEX [stream]: exit status and a matching line
  local d="$1" s="$2" r="$3" re="$4" st="${5:-out}"
  if [[ "$(rc "$s")" == "$r" ]] && has "$s" "$re" "$st"; then ok "$d"
  else fail "$d (exit $(rc "$s"), want $r; want /$re/ in $st; got: $(sed -E 's/[[:space:]]+/ /g' "$RUN/$s.out" | tr '\n' '|' | cut -c1-300) / $(grep -v '^\s*at ' "$RUN/$s.err" | tr '\n' '|' | cut -c1-200))"
  fi
}
expect_not() { # expect_not DESCRIPTION STEP REGEX: no such line in stdout
  if has "$2" "$3" out; then fail "$1 (unexpected /$3/: $(tr '\n' '|' <"$RUN/$2.out" | cut -c1-300))"; else ok "$1"; fi
}
# wait_state STATE: until --describe --state shows STATE (30 s)
wait_state() {
  local i
  for ((i = 0; i < 15; i++)); do
    sg "wait-$1-$i" --describe --group "$G" --state
    has "wait-$1-$i" "^$G .* $1 " && return 0
    sleep 1
  done
  return 1
}

scenario() {
  RUN="$GR_TMP/run-$GR_TARGET"; mkdir -p "$RUN"; : >"$RUN/transcript"
  log "scenario against $GR_TARGET ($BOOTSTRAP)"
  start_runner
  sharetool topic "$BOOTSTRAP" "$T" 1 && sharetool topic "$BOOTSTRAP" "$B" 1 \
    && sharetool topic "$BOOTSTRAP" "$H" 1 || { fail "topic creation"; return; }
  sharetool produce "$BOOTSTRAP" "$T" 10 0 && sharetool produce "$BOOTSTRAP" "$B" 4 0 || { fail "produce"; return; }
  sharetool group-config "$BOOTSTRAP" "$G" share.auto.offset.reset=earliest || { fail "group config"; return; }
  local c
  c="$(sharetool consume-accept "$BOOTSTRAP" "$G" "$T" 4 10 2>"$RUN/consume.err")" || true
  check_eq "share consumer on $T: 10 records, offsets < 4 accepted, 4..9 released" "consumed 10" "$c"
  c="$(sharetool consume-accept "$BOOTSTRAP" "$G" "$T" 0 6 2>>"$RUN/consume.err")" || true
  check_eq "a second member gets the 6 released records and releases them again" "consumed 6" "$c"
  c="$(sharetool consume-accept "$BOOTSTRAP" "$G" "$B" 1000 4 2>>"$RUN/consume.err")" || true
  check_eq "share consumer on $B: 4 records, all accepted" "consumed 4" "$c"

  # --- empty group with offsets
  sg list --list
  same list
  expect "--list: the group, exit 0" list 0 "^$G$"
  sg list-state --list --state
  same list-state
  expect "--list --state: '$G Empty'" list-state 0 "^$G Empty$"
  expect "--list --state: header GROUP STATE" list-state 0 "^GROUP STATE$"
  sg list-state-stable --list --state stable
  expect_not "--list --state stable: not listed while empty" list-state-stable "^$G "
  sg describe --describe --group "$G"
  same describe
  expect "--describe: header" describe 0 "^GROUP TOPIC PARTITION START-OFFSET LAG$"
  expect "--describe: $T 0 start 4 lag 6" describe 0 "^$G $T 0 4 6$"
  expect "--describe: $B 0 fully acknowledged, lag 0" describe 0 "^$G $B 0 [0-9]+ 0$"
  sg describe-offsets --describe --group "$G" --offsets
  same describe-offsets
  if diff -q "$RUN/describe.out" "$RUN/describe-offsets.out" >/dev/null; then ok "--describe --offsets = --describe"
  else fail "--describe --offsets differs from --describe"; fi
  sg describe-verbose --describe --group "$G" --verbose
  same describe-verbose
  expect "--describe --verbose: LEADER-EPOCH column" describe-verbose 0 "^GROUP TOPIC PARTITION LEADER-EPOCH START-OFFSET LAG$"
  expect "--describe --verbose: $T 0 row" describe-verbose 0 "^$G $T 0 -?[0-9]+ 4 6$"
  sg members-empty --describe --group "$G" --members
  same members-empty
  expect "--describe --members on an empty group: notice, exit 0" members-empty 0 "Share group '$G' has no active members." all
  sg state-empty --describe --group "$G" --state
  same state-empty
  expect "--describe --state: header" state-empty 0 "^GROUP COORDINATOR \(ID\) STATE #MEMBERS$"
  expect "--describe --state: Empty, 0 members, coordinator $BOOTSTRAP" state-empty 0 "^$G $BOOTSTRAP \([0-9]+\) Empty 0$"
  sg state-verbose --describe --group "$G" --state --verbose
  same state-verbose
  expect "--describe --state --verbose: epochs columns" state-verbose 0 "^GROUP COORDINATOR \(ID\) STATE GROUP-EPOCH ASSIGNMENT-EPOCH #MEMBERS$"

  # --- a live member
  local stop="$RUN/hold.stop" hp i
  rm -f "$stop"
  gr_bg hp sharetool hold "$BOOTSTRAP" "$G" "$H" 120 "$stop" >"$RUN/hold.out" 2>"$RUN/hold.err"
  if wait_state Stable; then ok "a member joined: --describe --state shows Stable"; else fail "group never Stable with a member"; fi
  for ((i = 0; i < 15; i++)); do  # the assignment reaches the member a moment later
    sg "wait-members-$i" --describe --group "$G" --members
    has "wait-members-$i" " 1 $H:0$" && break
    sleep 1
  done
  sg state-stable --describe --group "$G" --state
  same state-stable
  expect "--describe --state: Stable, 1 member" state-stable 0 "^$G $BOOTSTRAP \([0-9]+\) Stable 1$"
  sg members --describe --group "$G" --members
  same members
  expect "--describe --members: header" members 0 "^GROUP CONSUMER-ID HOST CLIENT-ID #PARTITIONS ASSIGNMENT$"
  expect "--describe --members: the member, its client id and assignment $H:0" members 0 "^$G [A-Za-z0-9_-]+ /?127\.0\.0\.1 share-tool-hold 1 $H:0$"
  sg members-verbose --describe --group "$G" --members --verbose
  same members-verbose
  expect "--describe --members --verbose: MEMBER-EPOCH column" members-verbose 0 "^GROUP CONSUMER-ID HOST CLIENT-ID #PARTITIONS MEMBER-EPOCH ASSIGNMENT$"
  expect "--describe --members --verbose: row" members-verbose 0 "^$G [A-Za-z0-9_-]+ /?127\.0\.0\.1 share-tool-hold 1 [0-9]+ $H:0$"
  sg list-state-stable2 --list --state stable
  same list-state-stable2
  expect "--list --state stable: '$G Stable'" list-state-stable2 0 "^$G Stable$"
  sg reset-nonempty --reset-offsets --group "$G" --topic "$T" --to-earliest --execute
  expect "--reset-offsets --execute with a member: refused, exit 1" reset-nonempty 1 "Share group '$G' is not empty." err
  sg reset-nonempty-dry --reset-offsets --group "$G" --topic "$T" --to-earliest --dry-run
  expect "--reset-offsets --dry-run with a member: refused, exit 1" reset-nonempty-dry 1 "Share group '$G' is not empty." err
  sg delete-offsets-nonempty --delete-offsets --group "$G" --topic "$T"
  expect "--delete-offsets with a member: '$T Error: The group is not empty.'" delete-offsets-nonempty 0 "^$T Error: The group is not empty.$"
  sg delete-nonempty --delete --group "$G"
  expect "--delete with a member: GroupNotEmptyException" delete-nonempty 0 "Group '$G' could not be deleted due to: .*GroupNotEmptyException: Share group '$G' is not EMPTY." all
  sg describe-after-refused --describe --group "$G"
  expect "offsets unchanged after the refused commands" describe-after-refused 0 "^$G $T 0 4 6$"
  touch "$stop"
  for ((i = 0; i < 300; i++)); do alive "$hp" || break; sleep 0.1; done
  stop_pid "$hp" 5
  if wait_state Empty; then ok "the member left: Empty again"; else fail "group not Empty after the member closed"; fi

  # --- resets on the empty group
  sg reset-dry --reset-offsets --group "$G" --topic "$T" --to-earliest --dry-run
  expect "--reset-offsets --to-earliest --dry-run: header" reset-dry 0 "^GROUP TOPIC PARTITION NEW-OFFSET$"
  expect "--reset-offsets --to-earliest --dry-run: $T 0 -> 0" reset-dry 0 "^$G $T 0 0$"

  sg describe-after-dry --describe --group "$G"
  expect "--dry-run changed nothing" describe-after-dry 0 "^$G $T 0 4 6$"
  sg reset-noexec --reset-offsets --group "$G" --topic "$T" --to-earliest
  expect "--reset-offsets without --dry-run/--execute: usage error, exit 1" reset-noexec 1 "takes the option: \[execute\] or \[dry-run\]" err
  sg reset-latest --reset-offsets --group "$G" --topic "$T" --to-latest --execute
  expect "--reset-offsets --to-latest --execute: $T 0 -> 10" reset-latest 0 "^$G $T 0 10$"
  expect_not "--reset-offsets --topic $T: $B untouched" reset-latest "^$G $B "
  sg describe-latest --describe --group "$G"
  expect "after --to-latest: $T 0 start 10 lag 0" describe-latest 0 "^$G $T 0 10 0$"

  sg reset-earliest-p1 --reset-offsets --group "$G" --topic "$B:0" --to-earliest --execute
  expect "--reset-offsets --topic $B:0 --to-earliest: $B 0 -> 0" reset-earliest-p1 0 "^$G $B 0 0$"
  expect_not "--reset-offsets --topic $B:0: $T untouched" reset-earliest-p1 "^$G $T "
  sg describe-p1 --describe --group "$G"
  expect "after the $B:0 reset: $B 0 start 0 lag 4" describe-p1 0 "^$G $B 0 0 4$"
  expect "after the $B:0 reset: $T 0 still start 10 lag 0" describe-p1 0 "^$G $T 0 10 0$"
  sg reset-all --reset-offsets --group "$G" --all-topics --to-earliest --execute
  expect "--reset-offsets --all-topics --to-earliest --execute: $T 0 -> 0" reset-all 0 "^$G $T 0 0$"
  sg describe-earliest --describe --group "$G"
  same describe-earliest
  expect "after --to-earliest: $T 0 start 0 lag 10" describe-earliest 0 "^$G $T 0 0 10$"
  expect "after --to-earliest: $B 0 start 0 lag 4" describe-earliest 0 "^$G $B 0 0 4$"
  c="$(sharetool consume-accept "$BOOTSTRAP" "$G" "$T" 1000 10 2>>"$RUN/consume.err")" || true
  check_eq "after the reset the group consumes all 10 records of $T again" "consumed 10" "$c"
  sg describe-drained --describe --group "$G"
  expect "after draining: $T 0 lag 0" describe-drained 0 "^$G $T 0 [0-9]+ 0$"

  # --- delete offsets, delete the group
  sg delete-offsets --delete-offsets --group "$G" --topic "$T"
  expect "--delete-offsets: '$T Successful'" delete-offsets 0 "^$T Successful$"
  expect "--delete-offsets: header" delete-offsets 0 "^TOPIC STATUS$"
  sg describe-after-delete-offsets --describe --group "$G"
  expect_not "--describe after --delete-offsets: no $T rows" describe-after-delete-offsets "^$G $T "
  sg delete-offsets-unknown --delete-offsets --group "$G" --topic sgt-nosuch
  expect "--delete-offsets of an unknown topic: per-topic error" delete-offsets-unknown 0 "^sgt-nosuch Error: This server does not host this topic-partition.$"
  sg delete --delete --group "$G"
  expect "--delete: successful" delete 0 "^Deletion of requested share groups \('$G'\) was successful.$"
  sg list-after-delete --list
  expect_not "--list after --delete: gone" list-after-delete "^$G$"
  sg describe-deleted --describe --group "$G"
  expect "--describe of a deleted group: GroupIdNotFoundException" describe-deleted 0 "Group $G not found." all
  sg delete-unknown --delete --group sgt-nosuch
  expect "--delete of an unknown group: not a share group" delete-unknown 0 "Group 'sgt-nosuch' could not be deleted due to: .*Group 'sgt-nosuch' is not a share group." all
  stop_runner
  log "transcript: $RUN/transcript"
}

start_share() {
  case "$GR_TARGET" in
    gregord) start_gregord ;;
    ref) start_ref_kafka ;;
    *) start_target ;;
  esac
}

if ((COMPARE)); then
  [[ "$GR_TARGET" == external ]] && die "--compare starts its own brokers (not with --bootstrap)"
  for GR_TARGET in ref gregord; do
    start_share
    scenario
    stop_target
  done
  if diff -u "$GR_TMP/run-ref/transcript" "$GR_TMP/run-gregord/transcript" >"$GR_TMP/transcript.diff"; then
    ok "kafka-share-groups prints the same (normalized) rows against gregord as against Apache Kafka 4.4.0"
  else
    fail "kafka-share-groups output differs between Apache Kafka 4.4.0 (-) and gregord (+):"
    grep -E '^[-+@]' "$GR_TMP/transcript.diff" | grep -vE '^(---|\+\+\+)' | head -n 80
  fi
  GR_TARGET=compare
else
  start_share
  scenario
  if [[ "$GR_TARGET" == gregord ]] && ! alive "$GR_GREGORD_PID"; then fail "gregord died (log: $GR_TMP/gregord.log)"; fi
  stop_target
fi
gr_finish
