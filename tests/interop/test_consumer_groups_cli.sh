#!/usr/bin/env bash
# `gregor consumer-groups` (libgregor's CLI) against kafka-consumer-groups (ConsumerGroupCommand from
# kafka-tools 4.4.0, tests/ref/target/lib) on the same broker: each step runs Kafka's tool, then gregor
# with the same arguments, and compares stdout byte for byte and stderr without the Java stack traces
# (nothing is masked: both describe the same group in the same state, so member ids, hosts and
# padding must be equal). Exit status: compared where Kafka's tool exits non-zero or both succeed
# (gregor also exits 1 after the errors Kafka's tool prints and exits 0 for, docs/cli.md).
# Scenario: topic cgc-t (2 partitions x 10 records), group cgc-g whose offsets a kcat -G consumer
# committed (15 records), a live kcat -G member in group cgc-live; --list (+ --state, --type),
# --describe (offsets, --verbose, --members [--verbose], --state [--verbose]) of the empty and the live
# group, a KIP-848 group of the Java consumer (where the broker has KIP-848), --reset-offsets refused on
# the live group, dry-run / --execute / --export / --from-file / --to-datetime / --by-duration /
# --shift-by / --to-offset / --to-current on the empty one, several groups at once (--all-groups),
# --delete-offsets (also of a live group and of unknown topics), --delete, and --output json.
#   bash tests/interop/test_consumer_groups_cli.sh [--ref] [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
gr_require java kcat
PY="$(gr_venv_dir)/bin/python"
[[ -x "$PY" ]] || die "python venv missing at $PY (run scripts/install-deps.sh)"
GREGOR="$GR_BUILD_DIR/gregor"
[[ -x "$GREGOR" ]] || die "gregor (the CLI) not built in $GR_BUILD_DIR"
start_target --override num.partitions=2 --override group.initial.rebalance.delay.ms=0
RUN="$GR_TMP/run" && mkdir -p "$RUN"
T=cgc-t G=cgc-g L=cgc-live

# Kafka's tool runs in one JVM for the whole script (GroupToolRunner, a coprocess; a JVM start per
# command would make this test minutes long). The runner comes from the Java interop jar, or is
# compiled here from its source when the jar predates it.
JDIR="$GR_SOURCE_DIR/tests/interop/java" LIB="$GR_SOURCE_DIR/tests/ref/target/lib"
ls "$LIB"/kafka-tools-4.4.0.jar >/dev/null 2>&1 || die "kafka-tools jar missing in $LIB (run scripts/install-deps.sh)"
RCP="$JDIR/target/java-interop-1.jar"
if ! unzip -l "$RCP" 2>/dev/null | grep -q 'dev/gregor/interop/GroupToolRunner.class'; then
  gr_require javac
  mkdir -p "$GR_TMP/cls"
  javac -nowarn -cp "$LIB/*" -d "$GR_TMP/cls" "$JDIR/src/main/java/dev/gregor/interop/GroupToolRunner.java" \
    || die "cannot compile GroupToolRunner"
  RCP="$GR_TMP/cls"
fi
printf 'status = error\nrootLogger.level = error\n' >"$GR_TMP/tool-log4j2.properties"
coproc CGR { exec java -Xmx256m -Dlog4j2.configurationFile="$GR_TMP/tool-log4j2.properties" -cp "$RCP:$LIB/*" \
  dev.gregor.interop.GroupToolRunner org.apache.kafka.tools.consumer.group.ConsumerGroupCommand "$BOOTSTRAP" "$RUN" \
  2>"$RUN/runner.err"; }
CGR_PID_SAVED=$CGR_PID CGR_IN=${CGR[1]} CGR_OUT=${CGR[0]}
GR_PIDS+=("$CGR_PID")
stop_runner() {
  eval "exec ${CGR_IN}>&- ${CGR_OUT}<&-"
  local i; for ((i = 0; i < 100; i++)); do alive "$CGR_PID_SAVED" || break; sleep 0.1; done
  stop_pid "$CGR_PID_SAVED" 5
}

# same STEP args...: Kafka's tool and gregor with the same arguments; compare. With SUB="a b" set,
# gregor acts on group b where Kafka's tool acts on a (a destructive step: both start from the same
# state), and b is read back as a in gregor's output.
same() {
  local step="$1" krc=0 grc=0 line="" a; shift
  { printf '%s' "$step"; for a in "$@"; do printf '\t%s' "$a"; done; printf '\n'; } >&"$CGR_IN"
  if ! read -r -t 60 line <&"$CGR_OUT" || [[ "$line" != "DONE $step" ]]; then
    fail "$step: kafka-consumer-groups did not complete ($line; $(tail -n 3 "$RUN/runner.err"))"
    return 0
  fi
  mv "$RUN/$step.out" "$RUN/$step.k.out"; mv "$RUN/$step.err" "$RUN/$step.k.err"
  krc="$(cat "$RUN/$step.rc")"
  local args=("$@") i
  if [[ -n "${SUB:-}" ]]; then for i in "${!args[@]}"; do [[ "${args[$i]}" == "${SUB% *}" ]] && args[$i]="${SUB#* }"; done; fi
  gr_timeout 60 "$GREGOR" consumer-groups --bootstrap-server "$BOOTSTRAP" "${args[@]}" \
    >"$RUN/$step.g.out" 2>"$RUN/$step.g.err" || grc=$?
  if [[ -n "${SUB:-}" ]]; then sed -i "s/'${SUB#* }'/'${SUB% *}'/g" "$RUN/$step.g.out" "$RUN/$step.g.err"; fi
  local kerr gerr
  kerr="$(grep -vE '^\s+at |^Caused by|^\s+\.\.\. [0-9]+ more|^java\.|^org\.apache\.kafka\.|^\[|^SLF4J|^WARN\b.*Admin' "$RUN/$step.k.err" || true)"
  gerr="$(cat "$RUN/$step.g.err")"
  if ! cmp -s "$RUN/$step.k.out" "$RUN/$step.g.out"; then
    fail "$step: gregor consumer-groups $* prints other rows than kafka-consumer-groups:"
    diff <(cat -A "$RUN/$step.k.out") <(cat -A "$RUN/$step.g.out") | head -n 20 || true
  elif [[ "$kerr" != "$gerr" ]]; then
    fail "$step: stderr differs: kafka [$kerr] gregor [$gerr]"
  elif [[ "$krc" != 0 && "$grc" != "$krc" ]] || [[ "$krc" == 0 && "$grc" != 0 && "${SAME_RC_OK:-}" != 1 ]]; then
    fail "$step: exit status $grc, kafka-consumer-groups $krc"
  else
    ok "$step: gregor consumer-groups $* = kafka-consumer-groups ($(wc -l <"$RUN/$step.k.out") lines, exit $grc)"
  fi
}
has() { grep -qE -- "$2" "$RUN/$1.g.out"; }

"$PY" "$GR_SOURCE_DIR/tests/integration/cgroup_client.py" produce "$BOOTSTRAP" "$T" 2 10 || die "produce failed"
for g in "$G" "$G-2"; do # $G-2: the twin gregor deletes where Kafka's tool deletes $G
  n=$(gr_timeout 30 kcat -b "$BOOTSTRAP" -G "$g" "$T" -c 15 -X auto.offset.reset=earliest -q | wc -l)
  [[ "$n" == 15 ]] || die "kcat -G $g consumed $n records, not 15"
done

same list --list
check "--list shows $G" has list "^$G\$"
same list-state --list --state
same list-type-state --list --type --state
same list-state-empty --list --state empty
same list-type-classic --list --type classic
same describe --describe --group "$G"
check "--describe: rows with CURRENT-OFFSET, LOG-END-OFFSET and LAG of $T" has describe "^$G +$T +[01] +[0-9]+ +10 +[0-9]+ +- +- +-\$"
same describe-verbose --describe --group "$G" --verbose
same members-empty --describe --group "$G" --members
same state-empty --describe --group "$G" --state
same state-verbose --describe --group "$G" --state --verbose
SAME_RC_OK=1 same describe-nosuch --describe --group cgc-nosuch

gr_bg kc timeout -k 5 60 kcat -b "$BOOTSTRAP" -G "$L" "$T" -X auto.offset.reset=earliest -X client.id=cgc-kcat \
  >/dev/null 2>"$GR_TMP/kc.err"
stable() { "$GREGOR" consumer-groups --bootstrap-server "$BOOTSTRAP" --describe --group "$L" --members 2>/dev/null \
  | grep -qE "cgc-kcat +2 *\$"; }
poll() { local i; for i in $(seq 1 30); do "$@" && return 0; sleep 1; done; return 1; }
check "a kcat member holds both partitions of $L" poll stable
sleep 6 # kcat commits every 5 s: the offsets of the live group settle
same live-describe --describe --group "$L"
same live-members --describe --group "$L" --members
same live-members-verbose --describe --group "$L" --members --verbose
same live-state --describe --group "$L" --state
same two-groups --describe --group "$L" --group "$G" --state
SAME_RC_OK=1 same reset-live --reset-offsets --group "$L" --topic "$T" --to-earliest --execute
check "--reset-offsets of a live group: Kafka's refusal" grep -q "Assignments can only be reset if the group '$L' is inactive, but the current state is Stable." "$RUN/reset-live.g.out"
SAME_RC_OK=1 same delete-live --delete --group "$L"
check "--delete of a live group: GroupNotEmptyException" grep -q "could not be deleted due to: .*GroupNotEmptyException" "$RUN/delete-live.g.out"
SAME_RC_OK=1 same delete-offsets-live --delete-offsets --group "$L" --topic "$T"
kill -TERM "$kc" 2>/dev/null || true
wait "$kc" 2>/dev/null || true

# A KIP-848 group (the Java consumer with group.protocol=consumer): ConsumerGroupDescribe's epochs and
# target assignment in --members --verbose and --state --verbose. Skipped where the broker does not
# offer ConsumerGroupHeartbeat yet (gregord before KIP-848); always run against Apache Kafka.
K=cgc-848
mkdir -p "$GR_TMP/tool"
gr_bg jc gr_timeout 90 bash "$GR_REF_SH" tool "$GR_TMP/tool" org.apache.kafka.tools.consumer.ConsoleConsumer \
  --bootstrap-server "$BOOTSTRAP" --topic "$T" --group "$K" --from-beginning --timeout-ms 60000 \
  --command-property group.protocol=consumer --command-property client.id=cgc-java >/dev/null 2>"$GR_TMP/jc.err"
kip848() { "$GREGOR" consumer-groups --bootstrap-server "$BOOTSTRAP" --describe --group "$K" --members 2>/dev/null \
  | grep -qE "cgc-java +2 *\$"; }
kip848_wait() { local i; for i in $(seq 1 40); do kip848 && return 0; alive "$jc" || return 1; sleep 0.5; done; return 1; }
if kip848_wait; then
  same kip848-members --describe --group "$K" --members --verbose
  check "KIP-848 member: epochs and target assignment" has kip848-members "cgc-java +2 +[0-9]+ +$T:0,1 +[0-9]+ +$T:0,1"
  same kip848-state --describe --group "$K" --state --verbose
  same kip848-list --list --type --state
elif [[ "$GR_TARGET" == ref ]]; then
  fail "the KIP-848 consumer never held the partitions of $K ($(tail -n 2 "$GR_TMP/jc.err"))"
else
  log "skipped the KIP-848 steps: no KIP-848 consumer group formed on $GR_TARGET"
fi
stop_pid "$jc" 5

same reset-dry --reset-offsets --group "$G" --topic "$T" --to-earliest --dry-run
same reset-offset --reset-offsets --group "$G" --topic "$T:1" --to-offset 5 --execute
same after-offset --describe --group "$G"
check "--to-offset 5 --execute: $T 1 now at 5, lag 5" has after-offset "^$G +$T +1 +5 +10 +5 "
same reset-shift --reset-offsets --group "$G" --topic "$T" --shift-by -2 --dry-run
same reset-clamp --reset-offsets --group "$G" --all-topics --to-offset 99 --dry-run
same reset-current --reset-offsets --group "$G" --all-topics --to-current --dry-run
same reset-datetime --reset-offsets --group "$G" --topic "$T" --to-datetime 2020-01-01T00:00:00.000 --dry-run
same reset-future --reset-offsets --group "$G" --topic "$T" --to-datetime 2999-01-01T00:00:00.000Z --dry-run
same reset-duration --reset-offsets --group "$G" --topic "$T" --by-duration PT1H --dry-run
same export --reset-offsets --group "$G" --all-topics --to-latest --dry-run --export
printf '%s,0,3\n%s,1,4\n' "$T" "$T" >"$RUN/plan.csv"
same from-file --reset-offsets --group "$G" --from-file "$RUN/plan.csv" --execute
same after-file --describe --group "$G"
check "--from-file --execute: $T 0 at 3" has after-file "^$G +$T +0 +3 +10 +7 "
# several groups: Kafka's order of groups (a HashMap by group id) and the CSV form with groups (on
# Kafka the KIP-848 group is still Stable until its session times out: its reset is refused, exit 1)
same all-state --describe --all-groups --state
same all-members --describe --all-groups --members
SAME_RC_OK=1 same reset-all-groups --reset-offsets --all-groups --all-topics --to-earliest --dry-run
same export-groups --reset-offsets --group "$G" --group "$G-2" --group "$L" --topic "$T" --to-latest --export
same reset-unknown-group --reset-offsets --group "$G" --group cgc-none --topic "$T:0" --to-offset 1
same delete-offsets --delete-offsets --group "$G" --topic "$T:0"
same after-delete-offsets --describe --group "$G"
SAME_RC_OK=1 same delete-offsets-unknown --delete-offsets --group "$G" --topic cgc-nosuch:0
SAME_RC_OK=1 same delete-offsets-unknown-topic --delete-offsets --group "$G" --topic cgc-nosuch --topic "$T:1"
SUB="$G $G-2" same delete --delete --group "$G"
same list-after --list
check "--delete: $G no longer listed" eval "! has list-after '^$G\$'"
SAME_RC_OK=1 same delete-nosuch --delete --group cgc-nosuch

# usage errors: Kafka's message, exit 2 (before any request)
usage() { # usage REGEX args...
  local re="$1" rc=0; shift
  "$GREGOR" consumer-groups --bootstrap-server "$BOOTSTRAP" "$@" >/dev/null 2>"$RUN/usage.err" || rc=$?
  if [[ "$rc" == 2 ]] && grep -qE -- "$re" "$RUN/usage.err"; then ok "usage error: $*"
  else fail "usage error $* (exit $rc: $(head -n 2 "$RUN/usage.err"))"; fi
}
usage "Option \[describe\] takes one of these options: \[all-groups\], \[group\]" --describe
usage "requires one of the following scenarios" --reset-offsets --group "$G" --topic "$T"
usage "One of the reset scopes should be defined: --all-topics, --topic." --reset-offsets --group "$G" --to-latest
usage "only accepts one of \[execute\] and \[dry-run\]" --reset-offsets --group "$G" --all-topics --to-latest --dry-run --execute
usage "Invalid state list 'bogus'" --list --state bogus
usage "Invalid types list 'share'" --list --type share
usage "Invalid topic arg '$T:', expected topic name and partitions" --reset-offsets --group "$G" --topic "$T:" --to-latest
usage "Unparseable date" --reset-offsets --group "$G" --all-topics --to-datetime 2020-02-30T00:00:00.000
usage "Command must include exactly one action" --list --describe --group "$G"

# --output json: the same rows as objects
"$GREGOR" consumer-groups --bootstrap-server "$BOOTSTRAP" --describe --group "$L" --output json >"$RUN/json.out" || true
check "--output json: valid JSON with the committed rows of $L" python3 -c '
import json, sys
rows = json.load(open(sys.argv[1]))
assert rows and all(r["group"] == sys.argv[2] and r["topic"] == sys.argv[3] for r in rows), rows
assert all(isinstance(r["log_end_offset"], int) for r in rows), rows
' "$RUN/json.out" "$L" "$T"
stop_runner
stop_target
[[ "$GR_TARGET" == gregord ]] && check_no_sanitizer_report
gr_finish
