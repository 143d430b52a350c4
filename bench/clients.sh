#!/usr/bin/env bash
# bench/clients.sh: libgregor next to the other clients, against one gregord, in one run
# (the end of `make bench`; alone: GR_BUILD_DIR=build bash bench/clients.sh).
#
# Producer: N records of 1 KiB (null key, 1 partition, auto-created topic, each run its own
# topic), at equal acks and codec, every other setting at each client's default:
#   libgregor  build/gregor_bench_client produce (bench/gregor_bench_client.c, public API only);
#   kcat -P    from a prepared file of N 1 KiB lines (librdkafka defaults), as bench/run.sh does;
#   Java       Apache Kafka 4.4.0's ProducerPerformance (kafka-clients defaults, -Xmx256m).
# Share drain: the N records of one topic (the first libgregor acks=all topic), each client in
# its own new share group (group config share.auto.offset.reset=earliest, set with
# `gregor configs`), implicit acknowledgement, until N records arrived:
#   libgregor  gregor_bench_client share-drain;
#   Java       KafkaShareConsumer (tests/interop/java BenchShareDrain, -Xmx256m);
#   confluent-kafka  ShareConsumer (bench/share_drain_confluent.py, the pinned venv).
# Per run: wall time of the process, client CPU-seconds (user+system) and peak RSS
# (/usr/bin/time), and the throughput. Throughput: libgregor and kcat produce = N / process wall
# time; Java produce = ProducerPerformance's own records/sec (from its first send, so the JVM
# start-up is not counted; it is reported apart as wall - N/rate); share drain (all three) =
# N / (subscribe to the last record) as timed inside each client, the time to the first record
# and the JVM start-up (Java) reported apart. Every produced topic is checked to end at offset
# N-1 (kcat -C), every drain to have received N records with delivery count 1.
# Prints a table with the ratios (libgregor / the faster peer) and the goals (producer >= 1.0x,
# share drain >= 1.5x); writes $GR_BUILD_DIR/bench-results/clients.json.
#
# Environment:
#   BENCH_CLIENT_MESSAGES  records per run (default 1000000 = 1 GiB of values)
#   BENCH_CLIENT_SIZE      value size in bytes (default 1024)
#   BENCH_REPEAT           runs of each libgregor / kcat produce phase and of each share drain
#                          (default 3; the median run is reported); ProducerPerformance runs once
#   BENCH_CLIENT_ACKS      acks values to run (default "1 all")
#   BENCH_CLIENT_CODECS    compression types to run (default "none"; e.g. "none lz4")
#   BENCH_CLIENT_BIG_BATCH batch.size of the second libgregor and Java producer runs (default 1000000,
#                          librdkafka's default, which kcat uses; empty: no such runs)
#   BENCH_CLIENT_PROPS     extra libgregor producer properties, "name=value ..." (default none)
#   BENCH_CLIENT_DRAIN_PROPS  consumer properties for all three share drains, "name=value ..."
#                          (default none: each client's defaults, max.poll.records 500)
#   BENCH_CLIENT_SKIP_PRODUCE=1  no producer runs (the share drains only)
#   BENCH_CLIENT_SKIP_JAVA=1 / BENCH_CLIENT_SKIP_CONFLUENT=1   leave a client out
#   BENCH_TIMEOUT          watchdog for the whole run, s (default 1800)
#   GR_BUILD_DIR           where gregord and gregor_bench_client are (default ./build), GR_KEEP_TMP=1
#   --bootstrap-server H:P (or BENCH_BOOTSTRAP=H:P)  run against that broker or cluster (Apache
#                          Kafka, a gregord cluster) instead of starting a gregord; --name / BENCH_NAME
#                          names it in the results ("broker" key)
# Everything listens on 127.0.0.1 only; every process is started and stopped by PID.
set -uo pipefail

BENCH_SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
GR_TEST_TIMEOUT="${BENCH_TIMEOUT:-1800}"
# shellcheck source=../tests/lib.sh
source "$BENCH_SRC/../tests/lib.sh"
# shellcheck source=lib.sh
source "$BENCH_SRC/lib.sh"
GR_TEST_NAME=bench-clients
bench_parse_bootstrap "$@"

N="${BENCH_CLIENT_MESSAGES:-1000000}"
SIZE="${BENCH_CLIENT_SIZE:-1024}"
REPEAT="${BENCH_REPEAT:-3}"
ACKS_LIST="${BENCH_CLIENT_ACKS:-1 all}"
CODECS="${BENCH_CLIENT_CODECS:-none}"
BIG="${BENCH_CLIENT_BIG_BATCH-1000000}"
read -r -a LG_PROPS <<<"${BENCH_CLIENT_PROPS:-}"
LG_X=()
for p in "${LG_PROPS[@]}"; do LG_X+=(-X "$p"); done
read -r -a DRAIN_PROPS <<<"${BENCH_CLIENT_DRAIN_PROPS:-}"
DRAIN_X=()
for p in "${DRAIN_PROPS[@]}"; do DRAIN_X+=(-X "$p"); done
OUT_DIR="$GR_BUILD_DIR/bench-results"
CLIENT="$GR_BUILD_DIR/gregor_bench_client"
CLI="$GR_BUILD_DIR/gregor"
JDIR="$GR_SOURCE_DIR/tests/interop/java"

gr_init
gr_require kcat java python3 /usr/bin/time
[[ -x "$GR_BUILD_DIR/gregord" ]] || die "no $GR_BUILD_DIR/gregord (make, or GR_BUILD_DIR=...)"
[[ -x "$CLIENT" ]] || die "no $CLIENT (make)"
[[ -x "$CLI" ]] || die "no $CLI (make)"
SKIP_JAVA="${BENCH_CLIENT_SKIP_JAVA:-0}"
SKIP_CONFLUENT="${BENCH_CLIENT_SKIP_CONFLUENT:-0}"
if [[ "$SKIP_JAVA" != 1 ]]; then
  bash "$GR_REF_SH" setup || die "reference Kafka jars unavailable (tests/ref/kafka-ref.sh setup)"
  if ! unzip -l "$JDIR/target/java-interop-1.jar" 2>/dev/null | grep -q 'dev/gregor/interop/BenchShareDrain.class'; then
    log "BenchShareDrain missing from $JDIR/target: building it (mvn -o)"
    (cd "$JDIR" && gr_timeout 600 mvn -o -B -q -Dstyle.color=never package dependency:copy-dependencies) \
      || die "could not build tests/interop/java (scripts/install-deps.sh)"
  fi
fi
PY="$(gr_venv_dir)/bin/python"
if [[ "$SKIP_CONFLUENT" != 1 ]]; then
  "$PY" -c 'import confluent_kafka as c; c.ShareConsumer' 2>/dev/null \
    || die "confluent-kafka with ShareConsumer missing in $PY (scripts/install-deps.sh)"
fi

bench_results_init
put messages "$N"
put size "$SIZE"
put repeat "$REPEAT"
put big_batch "$BIG"
put kcat_version "$(kcat -V 2>&1 | grep -oE '(kcat|Version) [0-9][^ ]*|librdkafka [0-9][^ ]*' | tr ' \n' '_ ' | sed 's/ $//; s/ /,/g')"
[[ "$SKIP_CONFLUENT" != 1 ]] && put confluent_version "$("$PY" -c 'import confluent_kafka as c; v = c.version(); print((v if isinstance(v, str) else v[0]) + "/librdkafka-" + c.libversion()[0])')"
[[ "$SKIP_JAVA" != 1 ]] && put java_version "$(java -version 2>&1 | head -n1 | tr ' "' '_ ' | tr -d ' ')"

# ------------------------------------------------------------------ kcat input
KCAT_FILE="$GR_TMP/kcat-input.txt"
bench_kcat_input "$KCAT_FILE" "$N" "$SIZE"

# ------------------------------------------------------------------ helpers
# timed KEY cmd...: run cmd under /usr/bin/time (stdout KEY.out, stderr KEY.err); records
# KEY.wall_s, KEY.cpu_s (user+system of the process and its children) and KEY.rss_mb (peak);
# returns the command's exit status.
timed() {
  local key="$1" t0 t1 rc; shift
  gr_timeout 900 sync
  t0=$(date +%s%N)
  gr_timeout 900 /usr/bin/time -f '%U %S %M' -o "$GR_TMP/$key.time" "$@" >"$GR_TMP/$key.out" 2>"$GR_TMP/$key.err"
  rc=$?
  t1=$(date +%s%N)
  put "$key.wall_s" "$(calc "($t1 - $t0) / 1e9")"
  put "$key.cpu_s" "$(awk 'END {printf "%.2f", $1 + $2}' "$GR_TMP/$key.time")"
  put "$key.rss_mb" "$(awk 'END {printf "%.1f", $3 * 1024 / 1e6}' "$GR_TMP/$key.time")"
  put "$key.rc" "$rc"
  return "$rc"
}
wall_of() { awk -v k="$1.wall_s" '$1 == k {print $2}' "$RES" | tail -n1; }
json_field() { python3 -c 'import json,sys; print(json.loads(sys.stdin.read().strip().splitlines()[-1])[sys.argv[1]])' "$2" <"$1"; }

check_topic() { # check_topic KEY TOPIC: the topic ends at offset N-1
  local lo; lo="$(last_offset "$2")"
  if ((lo == N - 1)); then return 0; fi
  put "$1.note" "last-offset-$lo"; fail "$2 ends at offset $lo, expected $((N - 1))"; return 1
}
drop_topic() { # frees the disk and page cache of a checked topic
  gr_timeout 60 "$CLI" topics --bootstrap-server "$BOOTSTRAP" --delete --topic "$1" >/dev/null 2>&1 || true
}
ok_run() { put "$1.ok" 1; }

produce_libgregor() { # VARIANT ACKS CODEC RUN: libgregor (defaults) or libgregor-big (batch.size=$BIG)
  local v="$1" key="produce.$2.$3.$1.r$4" topic="bc-$1-acks$2-$3-r$4-$$" extra=()
  [[ "$v" == libgregor-big ]] && extra=(-X "batch.size=$BIG")
  say "$v produce acks=$2 compression=$3, $N x $SIZE B (run $4)"
  if ! timed "$key" "$CLIENT" produce "$BOOTSTRAP" "$topic" "$N" "$SIZE" -X "acks=$2" -X "compression.type=$3" \
       "${extra[@]}" "${LG_X[@]}"; then
    put "$key.note" "failed"; fail "libgregor produce ($key): $(tail -n3 "$GR_TMP/$key.err")"; return
  fi
  check_topic "$key" "$topic" || return
  local s; s="$(wall_of "$key")"
  put "$key.msgs_s" "$(calc "$N / $s")"
  put "$key.inner_s" "$(json_field "$GR_TMP/$key.out" seconds)"
  put "$key.batch_size" "$(json_field "$GR_TMP/$key.out" batch_size 2>/dev/null || echo '?')"
  ok_run "$key"
  say "$v: $N in $s s = $(calc "$N / $s") msgs/s; $(cat "$GR_TMP/$key.out")"
  if [[ -z "$DRAIN_TOPIC" && "$v/$2/$3" == libgregor/all/none ]]; then DRAIN_TOPIC="$topic"; else drop_topic "$topic"; fi
}

produce_kcat() { # ACKS CODEC RUN
  local key="produce.$1.$2.kcat.r$3" topic="bc-kcat-acks$1-$2-r$3-$$"
  say "kcat -P acks=$1 compression=$2, $N x $SIZE B (run $3)"
  if ! timed "$key" kcat -P -b "$BOOTSTRAP" -t "$topic" -X "acks=$1" -X "compression.type=$2" -l "$KCAT_FILE"; then
    put "$key.note" "failed"; fail "kcat -P ($key): $(tail -n3 "$GR_TMP/$key.err")"; return
  fi
  check_topic "$key" "$topic" || return
  local s; s="$(wall_of "$key")"
  put "$key.msgs_s" "$(calc "$N / $s")"
  ok_run "$key"
  say "kcat: $N in $s s = $(calc "$N / $s") msgs/s"
  drop_topic "$topic"
}

produce_java() { # VARIANT ACKS CODEC: java (defaults) or java-big (batch.size=$BIG)
  local v="$1" key="produce.$2.$3.$1.r1" topic="bc-$1-acks$2-$3-$$" line extra=()
  [[ "$v" == java-big ]] && extra=("batch.size=$BIG")
  say "$v: ProducerPerformance acks=$2 compression=$3 ${extra[*]}, $N x $SIZE B"
  if ! timed "$key" bash "$GR_REF_SH" tool "$GR_TMP/tools" org.apache.kafka.tools.ProducerPerformance \
       --bootstrap-server "$BOOTSTRAP" --topic "$topic" --num-records "$N" --record-size "$SIZE" --throughput -1 \
       --producer-props "acks=$2" "compression.type=$3" "${extra[@]}"; then
    put "$key.note" "failed"; fail "ProducerPerformance ($key): $(tail -n3 "$GR_TMP/$key.out")"; return
  fi
  line="$(grep -E '^[0-9]+ records sent' "$GR_TMP/$key.out" | tail -n1)"
  [[ "$(awk '{print $1}' <<<"$line")" == "$N" ]] || { put "$key.note" "no-summary"; fail "ProducerPerformance: no summary"; return; }
  check_topic "$key" "$topic" || return
  local rps; rps="$(sed -E 's/^[0-9]+ records sent, ([0-9.]+) records\/sec.*/\1/' <<<"$line")"
  put "$key.msgs_s" "$rps"
  put "$key.startup_s" "$(calc "$(wall_of "$key") - $N / $rps")"
  ok_run "$key"
  say "$v: $line (process wall $(wall_of "$key") s)"
  drop_topic "$topic"
}

group_earliest() { # a new share group starting at the earliest offset
  gr_timeout 60 "$CLI" configs --bootstrap-server "$BOOTSTRAP" --alter --entity-type groups --entity-name "$1" \
    --add-config share.auto.offset.reset=earliest >"$GR_TMP/group-$1.out" 2>&1 \
    || die "gregor configs on group $1 failed: $(cat "$GR_TMP/group-$1.out")"
}

drain() { # CLIENT RUN
  local c="$1" key="drain.$1.r$2" group="bc-share-$1-r$2-$$"
  group_earliest "$group"
  say "share drain: $c, group $group, $N records of $DRAIN_TOPIC (run $2)"
  local cmd
  case "$c" in
    libgregor) cmd=("$CLIENT" share-drain "$BOOTSTRAP" "$group" "$DRAIN_TOPIC" "$N" "${DRAIN_X[@]}") ;;
    java) cmd=(java -Xmx256m -cp "$JDIR/target/java-interop-1.jar:$JDIR/target/lib/*"
               dev.gregor.interop.BenchShareDrain "$BOOTSTRAP" "$group" "$DRAIN_TOPIC" "$N" "${DRAIN_PROPS[@]}") ;;
    confluent) cmd=("$PY" "$BENCH_SRC/share_drain_confluent.py" "$BOOTSTRAP" "$group" "$DRAIN_TOPIC" "$N"
                    "${DRAIN_PROPS[@]}") ;;
  esac
  if ! timed "$key" "${cmd[@]}"; then
    put "$key.note" "failed"; fail "share drain $c: $(grep -v '^\s*at ' "$GR_TMP/$key.err" | tail -n3) $(tail -n1 "$GR_TMP/$key.out")"
    return
  fi
  local s done_ first
  s="$(json_field "$GR_TMP/$key.out" seconds)"
  done_="$(json_field "$GR_TMP/$key.out" done)"
  first="$(json_field "$GR_TMP/$key.out" first_s)"
  ((done_ >= N)) || { put "$key.note" "received-$done_"; fail "share drain $c received $done_"; return; }
  put "$key.inner_s" "$s"
  put "$key.first_s" "$first"
  put "$key.msgs_s" "$(calc "$N / $s")"
  [[ "$c" == java ]] && put "$key.jvm_s" "$(json_field "$GR_TMP/$key.out" jvm_s)"
  ok_run "$key"
  say "$c: $(tail -n1 "$GR_TMP/$key.out") (process wall $(wall_of "$key") s)"
}

# ------------------------------------------------------------------ run
mkdir -p "$GR_TMP/tools"
BNAME="${BENCH_EXTERNAL:+$BENCH_NAME}"
bench_start_broker "${BNAME:-gregord}"
put broker "${BNAME:-gregord}"
DRAIN_TOPIC=""
[[ "${BENCH_CLIENT_SKIP_PRODUCE:-0}" == 1 ]] && CODECS=""
for codec in $CODECS; do
  for acks in $ACKS_LIST; do
    if [[ "$SKIP_JAVA" != 1 ]]; then
      produce_java java "$acks" "$codec"
      [[ -n "$BIG" ]] && produce_java java-big "$acks" "$codec"
    fi
    for ((r = 1; r <= REPEAT; r++)); do
      produce_libgregor libgregor "$acks" "$codec" "$r"
      [[ -n "$BIG" ]] && produce_libgregor libgregor-big "$acks" "$codec" "$r"
      produce_kcat "$acks" "$codec" "$r"
    done
  done
done
rm -f "$KCAT_FILE"

# the share drains read one topic of N records
if [[ -z "$DRAIN_TOPIC" || "$(last_offset "$DRAIN_TOPIC")" != "$((N - 1))" ]]; then
  DRAIN_TOPIC="bc-drain-$$"
  say "producing $N records to $DRAIN_TOPIC for the share drains"
  "$CLIENT" produce "$BOOTSTRAP" "$DRAIN_TOPIC" "$N" "$SIZE" -X acks=all >"$GR_TMP/drain-produce.out" 2>&1 \
    || die "could not produce the share-drain topic: $(tail -n3 "$GR_TMP/drain-produce.out")"
fi
put drain_topic "$DRAIN_TOPIC"
put drain_props "$(IFS=,; echo "${DRAIN_PROPS[*]:-defaults}")"
for ((r = 1; r <= REPEAT; r++)); do
  drain libgregor "$r"
  [[ "$SKIP_JAVA" != 1 ]] && drain java "$r"
  [[ "$SKIP_CONFLUENT" != 1 ]] && drain confluent "$r"
done
[[ -z "$BPID" ]] || alive "$BPID" || fail "gregord died (log: $GR_TMP/gregord.log)"
bench_stop_broker "${BNAME:-gregord}"

# ------------------------------------------------------------------ report
put loadavg_end "$(cut -d' ' -f1 /proc/loadavg)"
mkdir -p "$OUT_DIR"
cp "$RES" "$OUT_DIR/clients.txt"
if python3 - "$RES" "$OUT_DIR/clients.json" <<'EOF'; then ok "client benchmark ran"; else fail "client report"; fi
import json, statistics, sys

res, out = sys.argv[1], sys.argv[2]
kv = {}
for line in open(res):
    k, _, v = line.rstrip("\n").partition(" ")
    kv[k] = v
def num(k):
    try:
        return float(kv[k])
    except (KeyError, ValueError):
        return None

def runs(prefix):
    """The runs of prefix (e.g. produce.all.none.kcat) that succeeded: list of dicts."""
    rs = []
    for r in range(1, 100):
        p = "%s.r%d" % (prefix, r)
        if p + ".wall_s" not in kv:
            if r > 1:
                break
            continue
        if kv.get(p + ".ok") != "1":
            continue
        rs.append({f: num(p + "." + f) for f in
                   ("msgs_s", "wall_s", "cpu_s", "rss_mb", "inner_s", "first_s", "jvm_s", "startup_s")})
    return rs

def median_run(rs):
    """The run with the median msgs/s (the lower middle of an even count), plus all rates."""
    if not rs:
        return None
    srt = sorted(rs, key=lambda x: x["msgs_s"])
    m = dict(srt[(len(srt) - 1) // 2])
    m["runs"] = len(rs)
    m["all_msgs_s"] = [x["msgs_s"] for x in rs]
    return m

n, size = int(kv["messages"]), int(kv["size"])
doc = {"messages": n, "value_bytes": size, "repeat": int(kv["repeat"]), "date": kv.get("date"),
       "machine": kv.get("machine"), "loadavg": [kv.get("loadavg_start"), kv.get("loadavg_end")],
       "versions": {"kcat": kv.get("kcat_version"), "confluent-kafka": kv.get("confluent_version"),
                    "java": kv.get("java_version")},
       "goals": {"produce": 1.0, "share_drain": 1.5}, "produce": [], "share_drain": None}

lines = []
def row(name, m, extra=""):
    if m is None:
        lines.append("  %-20s %s" % (name, "failed / not run"))
        return
    mb = m["msgs_s"] * size / 1e6
    lines.append("  %-20s %10.0f msgs/s %7.1f MB/s  wall %6.2f s  cpu %6.2f s  peak RSS %7.1f MB%s"
                 % (name, m["msgs_s"], mb, m["wall_s"], m["cpu_s"], m["rss_mb"], extra))

def ratio_line(what, lg, peers, goal):
    best = max((p for p in peers.items() if p[1] is not None), key=lambda p: p[1]["msgs_s"], default=None)
    if lg is None or best is None:
        lines.append("  ratio: n/a")
        return None
    r = lg["msgs_s"] / best[1]["msgs_s"]
    lines.append("  libgregor / %s (the faster peer) = %.3fx   goal >= %.1fx: %s"
                 % (best[0], r, goal, "met" if r >= goal else "NOT met"))
    return {"vs": best[0], "ratio": round(r, 3), "goal": goal, "met": r >= goal}

groups = sorted({tuple(k.split(".")[1:3]) for k in kv if k.startswith("produce.") and k.endswith(".wall_s")})
big = kv.get("big_batch", "")
for acks, codec in groups:
    lines.append("produce %d x %d B, acks=%s, compression=%s (median of runs; Java = ProducerPerformance's rate)"
                 % (n, size, acks, codec))
    names = ("libgregor", "libgregor-big", "kcat", "java", "java-big")
    ms = {c: median_run(runs("produce.%s.%s.%s" % (acks, codec, c))) for c in names}
    for c in names:
        if c.endswith("-big") and not big:
            continue
        label = c.replace("-big", " bs=%s" % big) if c.endswith("-big") else c
        j = ms[c]
        row(label, j, "  (+%.1f s JVM start/exit outside the rate)" % j["startup_s"]
            if j and j.get("startup_s") is not None else "")
    lg_bs = kv.get("produce.%s.%s.libgregor.r1.batch_size" % (acks, codec), "?")
    lines.append("  each client at its defaults (batch.size: libgregor %s, Java 16384, kcat/librdkafka 1000000):"
                 % lg_bs)
    rt = ratio_line("produce", ms["libgregor"], {"kcat": ms["kcat"], "java": ms["java"]}, 1.0)
    entry = {"acks": acks, "compression": codec, "clients": ms, "result": rt}
    if big:
        lines.append("  equal batch.size=%s (kcat's default) for all three:" % big)
        entry["result_equal_batch"] = ratio_line("produce", ms["libgregor-big"],
                                                 {"kcat": ms["kcat"], "java bs=" + big: ms["java-big"]}, 1.0)
    doc["produce"].append(entry)

lines.append("share drain of %d x %d B, 1 partition, implicit acknowledgement, consumer properties: %s "
             "(median of runs; rate = N / subscribe-to-last-record)" % (n, size, kv.get("drain_props")))
ds = {c: median_run(runs("drain.%s" % c)) for c in ("libgregor", "java", "confluent")}
for c in ("libgregor", "java", "confluent"):
    m = ds[c]
    extra = ""
    if m:
        extra = "  first record %.2f s; process wall outside the rate %.2f s" % (m["first_s"], m["wall_s"] - m["inner_s"])
    row(c, m, extra)
rt = ratio_line("share drain", ds["libgregor"], {"java": ds["java"], "confluent-kafka": ds["confluent"]}, 1.5)
doc["share_drain"] = {"topic": kv.get("drain_topic"), "properties": kv.get("drain_props"), "clients": ds, "result": rt}

print("\n".join(lines))
json.dump(doc, open(out, "w"), indent=1)
print("written: " + out)
EOF
# End the watchdog here, the subshell before its sleep (see bench/run.sh).
bench_stop_watchdog
gr_finish
