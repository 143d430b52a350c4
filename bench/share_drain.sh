# shellcheck shell=bash
# The share-drain phases of bench/run.sh (sourced; uses its put/say/calc, phase_begin/phase_end,
# BOOTSTRAP): the same libgregor share consumers (bench/gregor_bench_client share-drain, implicit
# acknowledgement, client defaults) drain one topic on each broker, with 1, 2 and 4 consumers in
# one share group. The consumer processes start behind a barrier (GR_BENCH_START_DIR): all are up
# before any subscribes, so process start-up is not counted. Each consumer stops after GR_BENCH_IDLE_EXIT_MS without records and prints the
# wall-clock times of its first and last records; rate = N / (the first record of any consumer ->
# the last record of any), so that the group's join and assignment time (seconds on Apache Kafka,
# milliseconds on gregord) is left out of the rate and reported apart (first_s: launch -> first
# record). Each consumer count gets a new group starting at the earliest offset.
#
# Environment: BENCH_SHARE_MESSAGES (default 500000, 1 KiB values), BENCH_SHARE_PARTITIONS (1),
# BENCH_SHARE_CONSUMERS ("1 2 4"), BENCH_SKIP_SHARE=1 to leave the phases out.

SD_N="${BENCH_SHARE_MESSAGES:-500000}"
SD_PARTS="${BENCH_SHARE_PARTITIONS:-1}"
SD_CONSUMERS="${BENCH_SHARE_CONSUMERS:-1 2 4}"
SD_CLIENT="$GR_BUILD_DIR/gregor_bench_client"
SD_CLI="$GR_BUILD_DIR/gregor"

share_drain_series() { # share_drain_series BROKER
  local b="$1" topic="bench-share${TS:-}" k
  [[ "${BENCH_SKIP_SHARE:-0}" == 1 ]] && return
  if [[ ! -x "$SD_CLIENT" || ! -x "$SD_CLI" ]]; then
    put "$b.share_drain_c1.note" "no-gregor_bench_client"; return
  fi
  gr_timeout 60 "$SD_CLI" topics --bootstrap-server "$BOOTSTRAP" --create --topic "$topic" \
    --partitions "$SD_PARTS" --replication-factor 1 >"$GR_TMP/$b.share-topic.out" 2>&1 \
    || { put "$b.share_drain_c1.note" "topic-create-failed"; return; }
  say "$b: producing $SD_N x 1 KiB to $topic ($SD_PARTS partition(s)) for the share drains"
  gr_timeout 300 "$SD_CLIENT" produce "$BOOTSTRAP" "$topic" "$SD_N" 1024 -X acks=1 >"$GR_TMP/$b.share-produce.out" 2>&1 \
    || { put "$b.share_drain_c1.note" "produce-failed"; return; }
  for k in $SD_CONSUMERS; do share_drain_run "$b" "$topic" "$k"; done
}

# share_drain_run BROKER TOPIC CONSUMERS [KEY [N]]: KEY (default share_drain_cCONSUMERS) names the
# results ($b.KEY.msgs_s, .mb_s, .client_cpu_s, .first_s, .first_epoch, .last_epoch, or .note),
# N (default SD_N) the records the topic holds.
share_drain_run() {
  local b="$1" topic="$2" k="$3" key="${4:-share_drain_c$3}" SD_N="${5:-$SD_N}" i pids=() t0
  local group="bench-share-$1-$key-$$"
  gr_timeout 60 "$SD_CLI" configs --bootstrap-server "$BOOTSTRAP" --alter --entity-type groups --entity-name "$group" \
    --add-config share.auto.offset.reset=earliest >"$GR_TMP/$b.$key.cfg" 2>&1 \
    || { put "$b.$key.note" "group-config-failed"; return; }
  say "$b: share drain of $SD_N records with $k consumer(s), group $group"
  # start barrier: every consumer process is up before any subscribes (GR_BENCH_START_DIR)
  local start_dir="$GR_TMP/start.$b.$key"
  rm -rf "$start_dir" && mkdir -p "$start_dir"
  for ((i = 1; i <= k; i++)); do
    GR_BENCH_START_DIR="$start_dir" GR_BENCH_IDLE_EXIT_MS=2000 gr_timeout 600 "$SD_CLIENT" share-drain "$BOOTSTRAP" \
      "$group" "$topic" "$SD_N" >"$GR_TMP/$b.$key.$i.out" 2>"$GR_TMP/$b.$key.$i.err" &
    pids+=($!)
  done
  for ((i = 0; i < 6000; i++)); do # up to 60 s
    (($(find "$start_dir" -name 'ready.*' | wc -l) >= k)) && break
    sleep 0.01
  done
  phase_begin
  t0="$(date +%s.%N)"
  touch "$start_dir/go"
  local rc=0
  for i in "${pids[@]}"; do wait "$i" || rc=1; done
  phase_end "$b" "$key"
  local sum
  sum="$(python3 - "$t0" "$SD_N" "$GR_TMP/$b.$key".*.out <<'PY'
import json, sys
t0, n, files = float(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
docs = [json.loads(open(f).read().strip().splitlines()[-1]) for f in files]
done = sum(d["done"] for d in docs)
last = max(d["last_epoch"] for d in docs)
first = min((d["first_epoch"] for d in docs if d["first_epoch"] > 0), default=last)
cpu = sum(d["cpu_s"] for d in docs)
print("%d %.3f %.3f %.2f %s %.3f %.3f" % (done, max(last - first, 1e-3), first - t0, cpu,
                                        "/".join(str(d["done"]) for d in docs), first, last))
PY
)" || { put "$b.$key.note" "no-client-output"; return; }
  local done_ secs first ccpu split e0 e1
  read -r done_ secs first ccpu split e0 e1 <<<"$sum"
  if ((rc != 0)) || ((done_ != SD_N)); then
    put "$b.$key.note" "received-$done_-of-$SD_N(rc=$rc)"; say "$b: $key received $done_ of $SD_N (rc $rc)"; return
  fi
  put "$b.$key.msgs_s" "$(calc "$SD_N / $secs")"
  put "$b.$key.mb_s" "$(calc "$SD_N * 1024 / 1e6 / $secs")"
  put "$b.$key.client_cpu_s" "$ccpu"
  put "$b.$key.first_s" "$first"
  put "$b.$key.first_epoch" "$e0"
  put "$b.$key.last_epoch" "$e1"
  say "$b: $k consumer(s): $SD_N in $secs s after the first record ($first s after launch) = $(calc "$SD_N / $secs") records/s (per consumer: $split)"
}
