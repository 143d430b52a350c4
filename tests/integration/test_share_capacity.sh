#!/usr/bin/env bash
# The capacity view (`gregor share-groups --describe --capacity`, GET /v1/share-groups/<g>/capacity;
# docs/capacity.md) against a run with a known W. One topic of 2 partitions holds a
# backlog; four share groups read it at the same time, each with share.partition.max.record.locks=100:
#  - capw05 / capw10: 8 consumers each take up to 50 records per poll (share.acquire.mode=record_limit,
#    log batches of about 9 records, so the soft cap binds within a batch), hold them W = 0.5 s / 1 s
#    and accept them (implicit mode): 400 records wanted in flight, 200 locks, so the cap binds.
#    Once the broker's window (30..60 s) lies entirely in the steady state, the throughput measured
#    from the consumers (records delivered per second; each is accepted W later) and from
#    /metrics (gregor_share_acknowledgements_total{type="accept"}) must be within 15 % of the
#    ceiling the view reports (2 x 100 / W mean), W mean within [W, 1.3 W], and the verdict
#    "raise record locks or partitions" for the group and each share-partition;
#  - capfew: 1 consumer takes up to 20 records (far below the cap) and holds them 0.5 s:
#    "more consumers help";
#  - capidle: 1 consumer at the latest offset, nothing produced: "idle", lag 0, ETD 0 s.
# Also: the JSON fields (caps, window bounds), the text table, an unknown group (exit 1), group ids
# percent-encoded in the path (400 when malformed).
# Time: about 70 s (the phases run at the same time). gregord only (Kafka has no such endpoint).
# GR_CAP_SKIP_METRICS=1 skips the /metrics cross-check (a build without the metrics collectors).
#   bash tests/integration/test_share_capacity.sh [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
[[ "$GR_TARGET" == gregord ]] || die "this test needs gregord's admin endpoint (no --ref / --bootstrap)"
gr_require python3 curl
G="$GR_BUILD_DIR/gregor"
TOOL="$GR_BUILD_DIR/client_share_consume"
[[ -x "$G" && -x "$TOOL" ]] || die "gregor / client_share_consume not built in $GR_BUILD_DIR"
AP="$(free_port)"
ADMIN="http://127.0.0.1:$AP"
start_gregord --override "admin.listener=127.0.0.1:$AP" --override group.share.min.heartbeat.interval.ms=1000 \
  --override group.share.heartbeat.interval.ms=1000
B="$BOOTSTRAP"
T=cap
RECORDS=50000

"$TOOL" "$B" setup "$T" 2 || die "create topic $T"
t0=$(date +%s%N)
# Small log batches (batch.size 200 bytes: about 9 records). The in-flight cap is soft, as Kafka
# 4.4.0's: record_limit caches the rest of the log batch it stops in and that rest stays acquirable
# over the cap, so the cap binds near 100 only with log batches far smaller than it
# (test_share_softcap.sh: one 1000-record batch lets 200 records be acquired under a cap of 100).
"$TOOL" "$B" produce "$T" "$RECORDS" 0 200 || die "produce $RECORDS records"
log "produced $RECORDS records in $(( ($(date +%s%N) - t0) / 1000000 )) ms"
for g in capw05 capw10 capfew; do
  "$G" configs --bootstrap-server "$B" --entity-type groups --entity-name "$g" --alter \
    --add-config share.auto.offset.reset=earliest,share.partition.max.record.locks=100 >/dev/null || die "configs $g"
done
"$G" configs --bootstrap-server "$B" --entity-type groups --entity-name capidle --alter \
  --add-config share.partition.max.record.locks=100 >/dev/null || die "configs capidle"

# consumers GROUP N SLEEP_MS MAX_POLL_RECORDS: N consumers in the background, output in GROUP.<i>.out
CPIDS=()
consumers() {
  local i cpid
  for ((i = 0; i < $2; i++)); do
    gr_bg cpid "$TOOL" "$B" consume "$1" "$T" --sleep-ms "$3" --max-ms 150000 --idle-ms 150000 \
      -X "max.poll.records=$4" -X share.acquire.mode=record_limit >"$GR_TMP/$1.$i.out" 2>"$GR_TMP/$1.$i.err"
    CPIDS+=("$cpid")
  done
}
delivered() { cat "$GR_TMP/$1".*.out | grep -c '^REC ' || true; }
now_s() { python3 -c 'import time; print(time.monotonic())'; }
capacity_json() { gr_timeout 30 "$G" share-groups --describe --group "$1" --capacity --admin-url "$ADMIN" --output json; }
# acks GROUP: the sum of gregor_share_acknowledgements_total{group=GROUP,type="accept"}; -1 when
# /metrics does not answer
acks() {
  curl -sf -o "$GR_TMP/metrics.txt" "$ADMIN/metrics" || { echo -1; return; }
  python3 -c '
import re, sys
n = 0
for line in sys.stdin:
    if line.startswith("gregor_share_acknowledgements_total{"):
        labels, value = line.rsplit(" ", 1)
        if re.search(r"\bgroup=\"%s\"" % sys.argv[1], labels) and "type=\"accept\"" in labels:
            n += float(value)
print(int(n))' "$1" <"$GR_TMP/metrics.txt"
}
metrics=1
[[ "${GR_CAP_SKIP_METRICS:-0}" == 1 ]] && metrics=0

start=$(now_s)
consumers capw05 8 500 50
consumers capw10 8 1000 50
consumers capfew 1 500 20
consumers capidle 1 500 50

# The first window boundary of a share-partition is 30 s after it was loaded (its first fetch):
# from there on the counts are steady. Take the first readings then.
sleep 32
declare -A NA NB AA AB
ta=$(now_s)
for g in capw05 capw10; do
  NA[$g]=$(delivered $g)
  ((metrics)) && AA[$g]=$(acks $g)
done
log "first readings at +$(python3 -c "print(round($ta - $start, 1))") s: ${NA[*]}"

# Wait for the second boundary (the window is then 30..60 s of the steady state only): every
# share-partition's window_seconds drops from ~60 to ~30 (until then it is the time since loading).
sleep "$(python3 -c "print(max(0, 61 - ($(now_s) - $start)))")"
ok_window=0
for ((i = 0; i < 30; i++)); do
  ((i == 0)) || sleep 1
  all=1
  for g in capw05 capw10 capfew; do
    capacity_json $g >"$GR_TMP/$g.json" 2>"$GR_TMP/$g.json.err" || { all=0; continue; }
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))[0]
sys.exit(0 if d["share_partitions"] and all(30 <= p["window_seconds"] < 45 for p in d["share_partitions"]) else 1)' \
      "$GR_TMP/$g.json" || all=0
  done
  if ((all)); then ok_window=1; break; fi
done
tb=$(now_s)
for g in capw05 capw10; do
  NB[$g]=$(delivered $g)
  ((metrics)) && AB[$g]=$(acks $g)
done
check "every share-partition's window is 30..45 s after the second boundary" test "$ok_window" = 1
"$G" share-groups --describe --group capidle --capacity --admin-url "$ADMIN" --output json >"$GR_TMP/capidle.json" \
  || fail "capacity view of capidle"
"$G" share-groups --describe --group capw05 --capacity --admin-url "$ADMIN" >"$GR_TMP/capw05.txt" \
  || fail "capacity table of capw05"
log "capacity view capw05: $(cat "$GR_TMP/capw05.json")"

# check_bound GROUP W_S MEASURED_RATE WHAT: the view's numbers against the run
check_bound() {
  local out
  if out=$(python3 - "$GR_TMP/$1.json" "$2" "$3" "$4" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))[0]
w, x, what = float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
t, sps = d["group_total"], d["share_partitions"]
errs = []
if [p["partition"] for p in sps] != [0, 1] or any(p["record_lock_limit"] != 100 for p in sps):
    errs.append("share-partitions/caps %s" % [(p["partition"], p["record_lock_limit"]) for p in sps])
if t["record_lock_limit"] != 200 or t["share_partitions"] != 2:
    errs.append("group cap %s" % t["record_lock_limit"])
if not (w <= t["w_mean_seconds"] <= 1.3 * w):
    errs.append("W mean %s not in [%s, %s]" % (t["w_mean_seconds"], w, 1.3 * w))
if abs(t["ceiling"] - 200 / t["w_mean_seconds"]) > 0.01 * t["ceiling"]:
    errs.append("ceiling %s != 200 / %s" % (t["ceiling"], t["w_mean_seconds"]))
if abs(x - t["ceiling"]) > 0.15 * t["ceiling"]:
    errs.append("%s throughput %.1f/s not within 15%% of the ceiling %.1f/s" % (what, x, t["ceiling"]))
want = "raise record locks or partitions"
for o in sps + [t]:
    if o["verdict"] != want:
        errs.append("verdict %r (in flight avg %s)" % (o["verdict"], o["in_flight_avg"]))
if t["lag"] is None or t["lag"] <= 0 or t["etd_seconds"] is None:
    errs.append("lag %s / ETD %s" % (t["lag"], t["etd_seconds"]))
print("%s: ceiling %.1f/s, %s %.1f/s (%.1f %%), W mean %.3f s p50 %s p99 %s, in flight avg %.1f, ack rate %.1f/s"
      % (d["group"], t["ceiling"], what, x, 100 * (x / t["ceiling"] - 1), t["w_mean_seconds"], t["w_p50_seconds"],
         t["w_p99_seconds"], t["in_flight_avg"], t["ack_rate"]))
if errs:
    print("; ".join(errs))
    sys.exit(1)
EOF
  ); then ok "$out"; else fail "${out:-$1: no capacity view}"; fi
}
for g in capw05 capw10; do
  w=0.5; [[ $g == capw10 ]] && w=1.0
  rate=$(python3 -c "print((${NB[$g]} - ${NA[$g]}) / ($tb - $ta))")
  check_bound $g $w "$rate" delivered
  if ((metrics)) && [[ "${AA[$g]}" == -1 || "${AB[$g]}" == -1 ]]; then
    fail "$g: GET $ADMIN/metrics failed"
  elif ((metrics)); then
    rate=$(python3 -c "print((${AB[$g]} - ${AA[$g]}) / ($tb - $ta))")
    check_bound $g $w "$rate" acknowledged
  fi
done

# capfew: 20 records at most in flight per poll, far below 2 x 100 locks
if out=$(python3 - "$GR_TMP/capfew.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))[0]
t, sps = d["group_total"], d["share_partitions"]
errs = ["verdict %r" % o["verdict"] for o in sps + [t] if o["verdict"] != "more consumers help"]
if t["in_flight_avg"] is None or t["in_flight_avg"] > 45:
    errs.append("in flight avg %s" % t["in_flight_avg"])
if t["headroom"] is None or t["headroom"] < 2:
    errs.append("headroom %s" % t["headroom"])
print("capfew: in flight avg %s, ack rate %.1f/s, ceiling %s, headroom %s, lag %s, ETD %s s, %s"
      % (t["in_flight_avg"], t["ack_rate"], t["ceiling"], t["headroom"], t["lag"], t["etd_seconds"], t["verdict"]))
if errs:
    print("; ".join(errs))
    sys.exit(1)
EOF
); then ok "$out"; else fail "${out:-capfew: no capacity view}"; fi

if out=$(python3 - "$GR_TMP/capidle.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))[0]
t = d["group_total"]
ok = (t["verdict"] == "idle" and t["lag"] == 0 and t["etd_seconds"] == 0 and t["acknowledged"] == 0
      and all(p["verdict"] == "idle" for p in d["share_partitions"]))
print("capidle: verdict %r, lag %s, ETD %s, %d share-partitions" % (t["verdict"], t["lag"], t["etd_seconds"],
                                                                    len(d["share_partitions"])))
sys.exit(0 if ok else 1)
EOF
); then ok "$out"; else fail "${out:-capidle: no capacity view}"; fi

check "the table has the group row with its verdict" \
  grep -Eq '^capw05 +\* +\* +200 .*raise record locks or partitions$' "$GR_TMP/capw05.txt"
check "the table has a row per share-partition" test "$(grep -Ec '^capw05 +cap +[01] +100 ' "$GR_TMP/capw05.txt")" = 2

# An unknown group: the endpoint's 404 message, exit 1.
rc=0
"$G" share-groups --describe --group nope --capacity --admin-url "$ADMIN" >"$GR_TMP/nope.out" 2>&1 || rc=$?
check_eq "unknown group: exit 1 and the broker's message" "1 Error: Group nope not found." "$rc $(cat "$GR_TMP/nope.out")"

# The group id travels percent-encoded: one with a space, a slash, a percent sign and é
# comes back whole in the broker's message; malformed encodings are 400, other paths not ours.
rc=0
"$G" share-groups --describe --group 'no pe/%é' --capacity --admin-url "$ADMIN" >"$GR_TMP/nope2.out" 2>&1 || rc=$?
check_eq "group id with / % space é: exit 1 and the broker's message" "1 Error: Group no pe/%é not found." \
  "$rc $(cat "$GR_TMP/nope2.out")"
code() { curl -s -o /dev/null -w '%{http_code}' "$ADMIN$1"; }
check_eq "bad percent-encoding: 400" 400 "$(code /v1/share-groups/%zz/capacity)"
check_eq "encoded NUL: 400" 400 "$(code /v1/share-groups/a%00/capacity)"
check_eq "empty group: 404" 404 "$(code /v1/share-groups//capacity)"
check_eq "a query string is ignored" 200 "$(code '/v1/share-groups/capidle/capacity?x=1')"

for pid in "${CPIDS[@]}"; do stop_pid "$pid" 10; done
check_no_sanitizer_report
gr_finish
