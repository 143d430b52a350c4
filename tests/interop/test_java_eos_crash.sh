#!/usr/bin/env bash
# Exactly-once consume-transform-produce across kill -9 of the broker
# (tests/interop/java/.../JavaEosCrash.java): a Java loop copies 1500 records from one topic to
# another in small transactions with sendOffsetsToTransaction while gregord is killed and
# restarted under it; the output, read with read_committed, holds every input record exactly
# once (none duplicated, none lost).
#   bash tests/interop/test_java_eos_crash.sh [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
gr_require java
gr_require python3
[[ "$GR_TARGET" == gregord ]] || die "kills and restarts gregord: no --ref / --bootstrap"
gr_java_interop JavaEosCrash
start_gregord --override transaction.abort.timed.out.transaction.cleanup.interval.ms=500
java_run=(java -Xmx256m -cp "$JDIR/target/java-interop-1.jar:$JDIR/target/lib/*" dev.gregor.interop.JavaEosCrash)
export PYTHONPATH="$GR_SOURCE_DIR/tests/integration${PYTHONPATH:+:$PYTHONPATH}"
n=1500 in="eos-in-$RANDOM" out="eos-out-$RANDOM"
python3 - "$BOOTSTRAP" "$in" "$out" <<'PY' || die "topics not created"
import sys, kwire
c = kwire.Conn(sys.argv[1])
assert kwire.create_topic(c, sys.argv[2], 2)[0] == 0 and kwire.create_topic(c, sys.argv[3], 2)[0] == 0
PY
seeded=$(gr_timeout 60 "${java_run[@]}" seed "$BOOTSTRAP" "$in" "$n" 2>"$GR_TMP/seed.err") || true
check "input seeded" grep -q seeded <<<"$seeded"
"${java_run[@]}" copy "$BOOTSTRAP" "$in" "$out" eos-group eos-copier >"$GR_TMP/copy.out" 2>"$GR_TMP/copy.err" &
copier=$!
GR_PIDS+=("$copier")
for kill_at in 2 1.5; do # two crashes while the loop runs
  sleep "$kill_at"
  check "copier still copying when gregord is killed" alive "$copier"
  kill9_gregord
  sleep 0.3
  restart_gregord
done
for ((i = 0; i < 900; i++)); do alive "$copier" || break; sleep 0.1; done
wait "$copier" 2>/dev/null || true
grep '^#' "$GR_TMP/copy.out" | tail -n 5 || true
check "copier finished the input" grep -q '^copied' "$GR_TMP/copy.out"
res=$(gr_timeout 60 "${java_run[@]}" check "$BOOTSTRAP" "$out" "$n" 2>"$GR_TMP/check.err") || true
echo "$res"
check "exactly once across kill -9" grep -q '^ok' <<<"$res"
gr_finish
