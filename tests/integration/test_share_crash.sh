#!/usr/bin/env bash
# Share-group crash test (issue 3, "crash test"; spec share-groups.md §1.3, §7.3, §8).
# 100,000 records (keys = record numbers 0..N-1, kcat, acks=all) on a 4-partition topic; group
# configs share.auto.offset.reset=earliest and share.record.lock.duration.ms=5000 (the broker runs
# with group.share.min.record.lock.duration.ms=1000). Four Java KafkaShareConsumers (one JVM,
# dev.gregor.interop.ShareCrashWorker, explicit mode: ACCEPT every record, then commitSync) drain it
# while the broker is killed with kill -9 and restarted on the same data dir and port 20 times, at
# random moments (a random 0.5-3 s between kills). The consumers reconnect on their own. Afterwards:
#   - DescribeShareGroupOffsets: every partition's start offset = its log end offset and lag 0
#     (every record ACKNOWLEDGED or ARCHIVED), also shown with kafka-share-groups when available;
#   - every record was delivered at least once;
#   - no record whose acknowledgement was confirmed (commitSync: no exception for its partition) was
#     delivered again afterwards;
#   - no record's delivery count went down between its successive deliveries (and stays 1..limit).
# Why 4 partitions: one share-partition per consumer at steady state, and several share-partitions
# recovering at each restart (one partition would serialize all four consumers on one SP).
#
#   bash tests/integration/test_share_crash.sh [--ref] [--keep]
# Env: GR_SHARE_CRASH_RECORDS (default 100000), GR_SHARE_CRASH_KILLS (default 20; 3 with --ref,
#   a Kafka restart takes ~15 s), GR_SHARE_CRASH_RATE (records/s per consumer, default: N/25,
#   so that the drain spans the kill phase; 0 = unpaced), GR_SHARE_CRASH_PARTITIONS (4),
#   GR_SHARE_CRASH_CONSUMERS (4), GR_SHARE_CRASH_SEED (kill timings; default random, printed).
set -euo pipefail
case " $* " in *" --ref "*) GR_TEST_TIMEOUT="${GR_TEST_TIMEOUT:-900}" ;; *) GR_TEST_TIMEOUT="${GR_TEST_TIMEOUT:-300}" ;; esac
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
gr_require java javac kcat python3

N="${GR_SHARE_CRASH_RECORDS:-100000}"
PARTS="${GR_SHARE_CRASH_PARTITIONS:-4}"
CONSUMERS="${GR_SHARE_CRASH_CONSUMERS:-4}"
if [[ "$GR_TARGET" == ref ]]; then KILLS="${GR_SHARE_CRASH_KILLS:-3}"; else KILLS="${GR_SHARE_CRASH_KILLS:-20}"; fi
[[ "$GR_TARGET" != external ]] || die "this test kills the broker: it needs gregord or --ref"
RATE="${GR_SHARE_CRASH_RATE:-$(( (N / 25 + CONSUMERS - 1) / CONSUMERS ))}"
LOCK_MS=5000
LIMIT=5            # share.delivery.count.limit (default)
SEED="${GR_SHARE_CRASH_SEED:-$(( $(date +%s) % 100000 ))}"
RANDOM="$SEED"
log "records $N, partitions $PARTS, consumers $CONSUMERS, kills $KILLS, rate $RATE/s per consumer, seed $SEED"

# --- Java worker: from the interop jar when it has it, else compiled here (javac, kafka-clients jars)
JDIR="$GR_SOURCE_DIR/tests/interop/java"
[[ -d "$JDIR/target/lib" ]] || die "Java interop dependencies missing in $JDIR/target/lib (run scripts/install-deps.sh)"
SRC="$JDIR/src/main/java/dev/gregor/interop/ShareCrashWorker.java"
JCP="$JDIR/target/java-interop-1.jar"
if ! unzip -l "$JCP" 2>/dev/null | grep -q 'dev/gregor/interop/ShareCrashWorker.class' || [[ "$SRC" -nt "$JCP" ]]; then
  mkdir -p "$GR_TMP/classes"
  javac -nowarn -d "$GR_TMP/classes" -cp "$JDIR/target/lib/*" "$SRC" || die "could not compile $SRC"
  JCP="$GR_TMP/classes"
fi
JWORKER=(java -Xmx512m -XX:+UseSerialGC -cp "$JCP:$JDIR/src/main/resources:$JDIR/target/lib/*" dev.gregor.interop.ShareCrashWorker)

# --- broker
if [[ "$GR_TARGET" == ref ]]; then
  start_ref_kafka group.share.min.record.lock.duration.ms=1000
else
  start_gregord --override group.share.min.record.lock.duration.ms=1000
fi
kill9_broker() { if [[ "$GR_TARGET" == ref ]]; then kill9_ref_kafka; else kill9_gregord; fi; }
restart_broker() { if [[ "$GR_TARGET" == ref ]]; then restart_ref_kafka; else restart_gregord; fi; }

topic="share-crash-$RANDOM"
group="share-crash-g$RANDOM"
gr_timeout 90 "${JWORKER[@]}" setup "$BOOTSTRAP" "$topic" "$PARTS" "$group" "$LOCK_MS" >"$GR_TMP/setup.out" 2>"$GR_TMP/setup.err" \
  || die "setup (create topic, group configs) failed: $(grep -v '^\s*at ' "$GR_TMP/setup.err" | tail -n 3)"
ok "topic $topic ($PARTS partitions) and group configs: $(cat "$GR_TMP/setup.out")"

t0=$(date +%s%N)
seq 0 $((N - 1)) | awk '{print $1 ":" $1}' \
  | gr_timeout 120 kcat -P -b "$BOOTSTRAP" -t "$topic" -K: -X acks=all -X linger.ms=5 -X batch.num.messages=100 2>"$GR_TMP/kcat.err" \
  || die "kcat produce failed: $(tail -n 3 "$GR_TMP/kcat.err")"
log "produced $N records in $(( ($(date +%s%N) - t0) / 1000000 )) ms"
gr_timeout 60 "${JWORKER[@]}" offsets "$BOOTSTRAP" "$topic" "$group" >"$GR_TMP/offsets0.out" 2>"$GR_TMP/offsets0.err" || true
total_end=$(awk '$1=="partition"{s+=$6} END{print s+0}' "$GR_TMP/offsets0.out")
check_eq "log end offsets add up to the $N produced records" "$N" "$total_end"

# --- consumers
OUT="$GR_TMP/consumers"
mkdir -p "$OUT"
deadline_s=$((GR_TEST_TIMEOUT - 60))
tc0=$(date +%s%N)
gr_bg wpid "${JWORKER[@]}" consume "$BOOTSTRAP" "$topic" "$group" "$CONSUMERS" "$OUT" "$RATE" "$deadline_s" \
  >"$GR_TMP/worker.out" 2>"$GR_TMP/worker.err"
progress() { # prints "deliveries confirmed errors"
  cat "$OUT/progress" 2>/dev/null || echo "0 0 0"
}
confirmed() { local d c e; read -r d c e < <(progress); echo "$c"; }
# wait until the consumers have confirmed something, so that the first kill lands mid-drain
for ((i = 0; i < 600; i++)); do
  (( $(confirmed) > 0 )) && break
  alive "$wpid" || break
  sleep 0.1
done
(( $(confirmed) > 0 )) || die "consumers confirmed nothing within 60 s: $(grep -v '^\s*at ' "$GR_TMP/worker.err" | tail -n 5)"
log "consumers started confirming after $(( ($(date +%s%N) - tc0) / 1000000 )) ms"

# --- kill -9 / restart at random moments
mid=0
restart_ms=()
for ((k = 1; k <= KILLS; k++)); do
  ms=$((500 + RANDOM % 2501))
  sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
  c=$(confirmed)
  (( c < N )) && mid=$((mid + 1))
  kill9_broker
  tr0=$(date +%s%N)
  restart_broker
  restart_ms+=($(( ($(date +%s%N) - tr0) / 1000000 )))
  log "kill $k/$KILLS after ${ms} ms (confirmed so far $c/$N; listening again after ${restart_ms[-1]} ms)"
  alive "$wpid" || { fail "consumer JVM exited during the kill phase"; break; }
done
kill_end=$(date +%s%N)
log "kills done: $mid of $KILLS while records were still unconfirmed; restart times (ms): ${restart_ms[*]}"
ok "$KILLS kill -9 + restart cycles ($mid while the drain was in progress)"

# --- drain: the worker stops once DescribeShareGroupOffsets shows every partition complete
touch "$OUT/check"
wrc=0
wait "$wpid" || wrc=$?
tc1=$(date +%s%N)
log "consumers: $(tail -n 1 "$GR_TMP/worker.out")"
check_eq "consumers drained the group (worker: $(tail -n 1 "$GR_TMP/worker.out"))" 0 "$wrc"
grep -v '^\s*at ' "$GR_TMP/worker.err" | grep -v '^\[worker\] offsets ' | tail -n 5 >&2 || true

# --- final state, read by a fresh admin client after the consumers left
gr_timeout 90 "${JWORKER[@]}" offsets "$BOOTSTRAP" "$topic" "$group" >"$GR_TMP/offsets.out" 2>"$GR_TMP/offsets.err" \
  || fail "DescribeShareGroupOffsets failed: $(grep -v '^\s*at ' "$GR_TMP/offsets.err" | tail -n 3)"
cat "$GR_TMP/offsets.out"
bad=$(awk '$1=="partition" && ($4!=$6 || $8!=0)' "$GR_TMP/offsets.out" | wc -l)
np=$(grep -c '^partition ' "$GR_TMP/offsets.out" || true)
check "every record ACKNOWLEDGED or ARCHIVED: start offset = log end offset, lag 0 on all $PARTS partitions" \
  test "$np" -eq "$PARTS" -a "$bad" -eq 0
REFLIB="$GR_SOURCE_DIR/tests/ref/target/lib"
if [[ -f "$REFLIB/.stamp" ]]; then # the same through kafka-share-groups (kafka-tools), informative
  gr_timeout 60 java -Xmx256m -cp "$REFLIB/*" org.apache.kafka.tools.consumer.group.ShareGroupCommand \
    --bootstrap-server "$BOOTSTRAP" --describe --offsets --group "$group" 2>&1 | sed 's/^/#   /' || true
fi

# --- the deliveries and confirmations
gr_timeout 120 python3 "$GR_SOURCE_DIR/tests/integration/share_crash_check.py" "$OUT" "$N" "$LIMIT" \
  >"$GR_TMP/check.out" 2>"$GR_TMP/check.err" || fail "checker failed: $(tail -n 3 "$GR_TMP/check.err")"
cat "$GR_TMP/check.out"
GR_PASSED=$((GR_PASSED + $(grep -c '^ok ' "$GR_TMP/check.out" || true)))
GR_FAILED=$((GR_FAILED + $(grep -c '^FAIL ' "$GR_TMP/check.out" || true)))

echo "stat duration_s drain $(( (tc1 - tc0) / 1000000000 )) (kill phase $(( (kill_end - tc0) / 1000000000 ))), kills $KILLS ($mid mid-drain), records $N"
if [[ "$GR_TARGET" == gregord ]]; then
  echo "stat gregord_starts $(grep -c '^=== start' "$GR_TMP/gregord.log")"
fi
stop_target
gr_finish
