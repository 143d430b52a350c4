#!/usr/bin/env bash
# Share-group crash test (issue 3, "crash test"; spec share-groups.md §1.3, §7.3, §8).
# 100,000 records (keys = record numbers 0..N-1; kcat, acks=all, 100-record batches) on a 4-partition
# topic; group configs share.auto.offset.reset=earliest and share.record.lock.duration.ms=5000 (the broker
# runs with group.share.min.record.lock.duration.ms=1000). Four Java KafkaShareConsumers (one JVM,
# dev.gregor.interop.ShareCrashWorker, explicit mode) drain it: per poll they log every delivery
# (partition, offset, delivery count, key), "process" the records while holding their locks (N/25 records/s
# per consumer), ACCEPT them - except the first delivery of every 100th key, which is RELEASEd so that
# durable AVAILABLE state and delivery counts > 1 are exercised - and commitSync; offsets of a partition
# whose commitSync result has no exception are logged as CONFIRMED. Meanwhile the broker is killed with
# kill -9 and restarted on the same data dir and port 20 times, at random moments (a random 0.5-3 s apart);
# the consumers reconnect on their own. Afterwards:
#   - DescribeShareGroupOffsets (Java Admin, after the consumers left): lag 0 on every partition, i.e. every
#     record ACKNOWLEDGED or ARCHIVED, and (gregord only: Apache Kafka persists an advanced start offset
#     lazily, spec §1.7) start offset = log end offset;
#   - every record was delivered at least once;
#   - no record whose ACCEPT was confirmed was delivered again afterwards (nor to another consumer between
#     its delivery and the confirmation);
#   - no record's delivery count went down between successive deliveries (and counts stay 1..5), and after a
#     confirmed RELEASE the next delivery of that record has a higher count.
# Disk-full phase (gregord only; issue 8): the data dir is a tmpfs mounted by the test (size
# GR_SHARE_CRASH_TMPFS, default 128m); after half of the kills the disk is filled (a filler file up to
# ENOSPC, topped up every 0.2 s since compaction frees segments) for GR_SHARE_CRASH_DISKFULL_S seconds
# (default 8; 0 = no phase) while the consumers keep acknowledging (their acks are answered
# KAFKA_STORAGE_ERROR and rolled back; Kafka's client retries them; lock expiries cannot be written and
# are retried), then freed; the kills go on and every invariant above must still hold.
# Without the right to mount (not root) the phase is skipped with a message.
# Why 4 partitions: one share-partition per consumer at steady state and four share-partitions recovering
# at every restart (one partition would make the four consumers share one SP; also worth a run:
# GR_SHARE_CRASH_PARTITIONS=1).
#
#   bash tests/integration/test_share_crash.sh [--ref] [--keep]
# Env: GR_SHARE_CRASH_RECORDS (default 100000), GR_SHARE_CRASH_KILLS (default 20; 3 with --ref, where a
#   Kafka restart takes ~20 s and the next kill waits for the consumers to confirm again),
#   GR_SHARE_CRASH_RATE (records/s per consumer, default N/25/CONSUMERS so that the drain spans the kill
#   phase; 0 = no processing time), GR_SHARE_CRASH_RELEASE_EVERY (100; 0 = ACCEPT only),
#   GR_SHARE_CRASH_PARTITIONS (4), GR_SHARE_CRASH_CONSUMERS (4), GR_SHARE_CRASH_DISKFULL_S (8), GR_SHARE_CRASH_SEED (kill timings and
#   names; default time-based, printed), GR_SHARE_CRASH_TOOL=1 (also show kafka-share-groups --describe
#   --offsets, from tests/ref/target/lib).
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
RELEASE_EVERY="${GR_SHARE_CRASH_RELEASE_EVERY:-100}"
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
jar_has_worker() {
  python3 -c 'import sys, zipfile; sys.exit("dev/gregor/interop/ShareCrashWorker.class" not in zipfile.ZipFile(sys.argv[1]).namelist())' "$JCP" 2>/dev/null
}
if ! jar_has_worker || [[ "$SRC" -nt "$JCP" ]]; then
  mkdir -p "$GR_TMP/classes"
  javac -nowarn -d "$GR_TMP/classes" -cp "$JDIR/target/lib/*" "$SRC" || die "could not compile $SRC"
  JCP="$GR_TMP/classes"
fi
JWORKER=(java -Xmx512m -XX:+UseSerialGC -cp "$JCP:$JDIR/src/main/resources:$JDIR/target/lib/*" dev.gregor.interop.ShareCrashWorker)

# --- broker (gregord: on a tmpfs for the disk-full phase)
DISKFULL_S="${GR_SHARE_CRASH_DISKFULL_S:-8}"
MNT="$GR_TMP/gregord-data" # start_gregord's data dir
mounted=0
if [[ "$GR_TARGET" == gregord ]] && ((DISKFULL_S > 0)); then
  if gr_mount_tmpfs "$MNT" "${GR_SHARE_CRASH_TMPFS:-128m}"; then
    mounted=1
  else
    echo "SKIP disk-full phase: cannot mount a tmpfs ($GR_MOUNT_ERR); run as root to test it"
  fi
fi
if [[ "$GR_TARGET" == ref ]]; then
  start_ref_kafka group.share.min.record.lock.duration.ms=1000
else
  start_gregord --override group.share.min.record.lock.duration.ms=1000
fi
# fill_disk: a filler file up to ENOSPC, to the last page
fill_disk() {
  local bs
  for bs in 1M 4k 1; do dd if=/dev/zero of="$MNT/filler" bs="$bs" oflag=append conv=notrunc 2>/dev/null || true; done
}
kill9_broker() {
  if [[ "$GR_TARGET" == ref ]]; then
    kill9_ref_kafka
    # the JVM's main thread is reaped before its other threads have closed the listener: wait for the port
    local i
    for ((i = 0; i < 300; i++)); do port_open "$GR_REF_PORT" || break; sleep 0.1; done
  else
    kill9_gregord
  fi
}
restart_broker() { if [[ "$GR_TARGET" == ref ]]; then restart_ref_kafka; else restart_gregord; fi; }

topic="share-crash-$RANDOM"
group="share-crash-g$RANDOM"
gr_timeout 90 "${JWORKER[@]}" setup "$BOOTSTRAP" "$topic" "$PARTS" "$group" "$LOCK_MS" >"$GR_TMP/setup.out" 2>"$GR_TMP/setup.err" \
  || die "setup (create topic, group configs) failed: $(grep -v '^\s*at ' "$GR_TMP/setup.err" | tail -n 3)"
ok "topic $topic ($PARTS partitions) created; $(cat "$GR_TMP/setup.out")"

t0=$(date +%s%N)
seq 0 $((N - 1)) | awk '{print $1 ":" $1}' \
  | gr_timeout 120 kcat -P -b "$BOOTSTRAP" -t "$topic" -K: -X acks=all -X linger.ms=5 -X batch.num.messages=100 2>"$GR_TMP/kcat.err" \
  || die "kcat produce failed: $(tail -n 3 "$GR_TMP/kcat.err")"
log "produced $N records in $(( ($(date +%s%N) - t0) / 1000000 )) ms"

# --- consumers
OUT="$GR_TMP/consumers"
mkdir -p "$OUT"
deadline_s=$((GR_TEST_TIMEOUT - 60))
tc0=$(date +%s%N)
gr_bg wpid "${JWORKER[@]}" consume "$BOOTSTRAP" "$topic" "$group" "$CONSUMERS" "$OUT" "$RATE" "$deadline_s" "$RELEASE_EVERY" \
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

# --- kill -9 / restart at random moments (the disk-full phase after half of them)
mid=0
restart_ms=()
full_at=$(( mounted ? (KILLS + 1) / 2 : -1 ))
for ((k = 1; k <= KILLS; k++)); do
  if ((k == full_at + 1)); then
    c0=$(confirmed)
    for ((i = 0; i < 300; i++)); do (( $(confirmed) > c0 )) && break; sleep 0.1; done # consumers back at work
    fill_disk
    c0=$(confirmed)
    read -r _ _ e0 < <(progress)
    refused0=$(grep -c 'share-state write for .* failed' "$GR_TMP/gregord.log" || true)
    log "disk full ($(df -h --output=used,size "$MNT" | tail -n 1 | xargs)) for ${DISKFULL_S} s, confirmed so far $c0/$N"
    # The store frees space itself (compaction deletes old segments): keep the disk full.
    t_end=$(( $(date +%s%N) + DISKFULL_S * 1000000000 ))
    while (( $(date +%s%N) < t_end )); do fill_disk; sleep 0.2; done
    c1=$(confirmed)
    read -r _ _ e1 < <(progress)
    rm -f "$MNT/filler"
    refused=$(( $(grep -c 'share-state write for .* failed' "$GR_TMP/gregord.log" || true) - refused0 ))
    echo "$((c1 - c0)) $((e1 - e0)) $refused" >"$GR_TMP/diskfull"
    log "disk freed: $refused share-state writes refused; $((c1 - c0)) acknowledgements confirmed and $((e1 - e0)) client errors meanwhile (Kafka's client retries acks answered 56)"
    check "share-state writes were refused while the disk was full" test "$refused" -gt 0
    check "gregord survived the full disk" alive "$GR_GREGORD_PID"
  fi
  ms=$((500 + RANDOM % 2501))
  sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
  c=$(confirmed)
  (( c < N )) && mid=$((mid + 1))
  if [[ "$GR_TARGET" == gregord ]] && ! alive "$GR_GREGORD_PID"; then
    fail "gregord died on its own before kill $k: $(tail -n 5 "$GR_TMP/gregord.log" | tr '\n' ' ')"
  fi
  tr0=$(date +%s%N)
  kill9_broker
  restart_broker
  tr1=$(date +%s%N)
  restart_ms+=($(( (tr1 - tr0) / 1000000 )))
  echo "$k $((tr0 / 1000)) $((tr1 / 1000))" >>"$OUT/kills" # kill, listening again (us)
  log "kill $k/$KILLS after ${ms} ms (confirmed so far $c/$N; listening again after ${restart_ms[-1]} ms)"
  alive "$wpid" || { fail "consumer JVM exited during the kill phase"; break; }
  if [[ "$GR_TARGET" == ref ]]; then # Kafka restarts take ~20 s: let the consumers get going again first
    for ((i = 0; i < 600; i++)); do (( $(confirmed) > c )) && break; sleep 0.1; done
  fi
done
kill_end=$(date +%s%N)
log "kills done: $mid of $KILLS while records were still unconfirmed; restart times (ms): ${restart_ms[*]}"
ok "$KILLS kill -9 + restart cycles ($mid while the drain was in progress)"

# --- drain: the worker stops once DescribeShareGroupOffsets shows every partition complete
touch "$OUT/check"
wrc=0
wait "$wpid" || wrc=$?
tc1=$(date +%s%N)
stopped="$(grep '^stopped' "$GR_TMP/worker.out" || echo "no summary: $(grep -v '^\s*at ' "$GR_TMP/worker.err" | tail -n 3)")"
log "consumers: $stopped"
check_eq "consumers drained the group ($stopped)" 0 "$wrc"

# --- final state (DescribeShareGroupOffsets + ListOffsets, a fresh admin client after the consumers left)
grep '^partition \|^final' "$GR_TMP/worker.out" || true
np=$(grep -c '^partition ' "$GR_TMP/worker.out" || true)
bad=$(awk '$1=="partition" && ($4<0 || $8!=0)' "$GR_TMP/worker.out" | wc -l)
check "every record ACKNOWLEDGED or ARCHIVED: lag 0 on all $PARTS partitions" test "$np" -eq "$PARTS" -a "$bad" -eq 0
behind=$(awk '$1=="partition" && $4!=$6' "$GR_TMP/worker.out" | wc -l)
if [[ "$GR_TARGET" == ref ]]; then
  # Apache Kafka persists an advanced start offset lazily, with the next write (spec §1.7): after the last
  # acks the described start offset stays behind the end offset while the lag is 0.
  log "start offset behind the log end offset on $behind partitions (Kafka persists the SPSO lazily)"
else
  check "start offset = log end offset on all $PARTS partitions" test "$np" -eq "$PARTS" -a "$behind" -eq 0
fi
total_end=$(awk '$1=="partition"{s+=$6} END{print s+0}' "$GR_TMP/worker.out")
check_eq "log end offsets add up to the $N produced records" "$N" "$total_end"
REFLIB="$GR_SOURCE_DIR/tests/ref/target/lib"
if [[ "${GR_SHARE_CRASH_TOOL:-0}" == 1 && -f "$REFLIB/.stamp" ]]; then # the same through kafka-share-groups
  gr_timeout 60 java -Xmx256m -cp "$REFLIB/*" org.apache.kafka.tools.consumer.group.ShareGroupCommand \
    --bootstrap-server "$BOOTSTRAP" --describe --offsets --group "$group" 2>&1 | sed 's/^/#   /' || true
fi

# --- the deliveries and confirmations
gr_timeout 120 python3 "$GR_SOURCE_DIR/tests/integration/share_crash_check.py" "$OUT" "$N" "$LIMIT" \
  >"$GR_TMP/check.out" 2>"$GR_TMP/check.err" || fail "checker failed: $(tail -n 3 "$GR_TMP/check.err")"
cat "$GR_TMP/check.out"
GR_PASSED=$((GR_PASSED + $(grep -c '^ok ' "$GR_TMP/check.out" || true)))
GR_FAILED=$((GR_FAILED + $(grep -c '^FAIL ' "$GR_TMP/check.out" || true)))

if [[ -f "$GR_TMP/diskfull" ]]; then
  read -r dc de dr <"$GR_TMP/diskfull"
  echo "stat disk_full_s $DISKFULL_S after kill $full_at: share-state writes refused $dr, confirmed meanwhile $dc, client errors meanwhile $de"
  ok "disk-full phase ran ($DISKFULL_S s after kill $full_at); the checks above cover it"
fi
echo "stat duration_s drain $(( (tc1 - tc0) / 1000000000 )) (kill phase $(( (kill_end - tc0) / 1000000000 ))), kills $KILLS ($mid mid-drain), records $N"
if [[ "$GR_TARGET" == gregord ]]; then
  check "gregord still running at the end" alive "$GR_GREGORD_PID"
  echo "stat gregord_starts $(grep -c '^=== start' "$GR_TMP/gregord.log")"
fi
stop_target
gr_finish
