#!/usr/bin/env bash
# Smoke test of the benchmark tools (bench/, docs/benchmarks.md): tiny runs against gregord
# that check the output format and that every record was delivered. No timing is asserted.
#  - gregor_latency (bench/latency.sh): 300 records/s for 2 s after a 1 s warm-up, 2 explicit
#    share consumers: every record received once, latency and ack percentiles present and
#    ordered (p50 <= p99 <= p999 <= max); records of an earlier run in the same topic are
#    counted as foreign, not as received;
#  - gregor_bench_client produce / share-drain / consume (bench/clients.sh, bench/txn.sh): 2,000
#    records each way; the share-drain start barrier (GR_BENCH_START_DIR).
#   bash tests/integration/test_bench_tools.sh [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
[[ "$GR_TARGET" == gregord ]] || die "test_bench_tools starts gregord itself"
start_gregord
G="$GR_BUILD_DIR/gregor"
LAT="$GR_BUILD_DIR/gregor_latency"
"$G" topics --bootstrap-server "$BOOTSTRAP" --create --topic lt --partitions 4 >/dev/null || die "create lt"
for grp in lg1 lg2 dg dg2; do
  "$G" configs --bootstrap-server "$BOOTSTRAP" --alter --group "$grp" --add-config share.auto.offset.reset=earliest \
    >/dev/null || die "group config $grp"
done
jget() { python3 -c 'import json,sys
d = json.loads(sys.argv[1])
for k in sys.argv[2].split("."): d = d[k]
print(d)' "$1" "$2"; }

run_lat() { gr_timeout 60 "$LAT" "$BOOTSTRAP" lt "$1" 300 2 --warmup 1 --join-wait 2 --consumers 2 --drain 15 2>"$GR_TMP/lat.err" | tail -n 1; }
out="$(run_lat lg1)" || true
check "gregor_latency prints one JSON line" jget "$out" sent
[[ -n "$out" ]] || cat "$GR_TMP/lat.err"
check_eq "every record sent (900)" 900 "$(jget "$out" sent 2>/dev/null)"
check_eq "every record received once" "900 0" "$(jget "$out" received 2>/dev/null) $(jget "$out" duplicates 2>/dev/null)"
check_eq "samples only after the warm-up (600)" 600 "$(jget "$out" latency_us.n 2>/dev/null)"
check "latency percentiles are ordered" python3 -c 'import json,sys
l = json.loads(sys.argv[1])["latency_us"]; a = json.loads(sys.argv[1])["ack_us"]
assert 0 <= l["p50"] <= l["p99"] <= l["p999"] <= l["max"], l
assert a["n"] > 0 and 0 <= a["p50"] <= a["p99"] <= a["max"], a' "$out"
# A second run in the same topic with a new group that reads from the earliest offset: the first
# run's 900 records reach it too, and must not count.
out="$(run_lat lg2)" || true
check_eq "a later run counts only its own records" "900 900" \
  "$(jget "$out" received 2>/dev/null) $(jget "$out" foreign 2>/dev/null)"

B="$GR_BUILD_DIR/gregor_bench_client"
out="$(gr_timeout 60 "$B" produce "$BOOTSTRAP" bt 2000 100 -X acks=all | tail -n 1)" || true
check_eq "gregor_bench_client produce: 2000 delivered" "2000 0" \
  "$(jget "$out" done 2>/dev/null) $(jget "$out" failed 2>/dev/null)"
out="$(gr_timeout 60 "$B" share-drain "$BOOTSTRAP" dg bt 2000 | tail -n 1)" || true
check_eq "gregor_bench_client share-drain: 2000 received" 2000 "$(jget "$out" done 2>/dev/null)"
out="$(gr_timeout 60 "$B" consume "$BOOTSTRAP" bt 2000 -X isolation.level=read_committed | tail -n 1)" || true
check_eq "gregor_bench_client consume (read_committed): 2000 received" "2000 0" \
  "$(jget "$out" done 2>/dev/null) $(jget "$out" failed 2>/dev/null)"
# and the start barrier of several share-drain processes (bench/share_drain.sh)
SD="$GR_TMP/start"; mkdir -p "$SD"
GR_BENCH_START_DIR="$SD" gr_timeout 60 "$B" share-drain "$BOOTSTRAP" dg2 bt 2000 >"$GR_TMP/sd2.out" 2>&1 &
sd_pid=$!
for _ in $(seq 1 500); do compgen -G "$SD/ready.*" >/dev/null && break; sleep 0.01; done
check "share-drain behind GR_BENCH_START_DIR says it is ready" compgen -G "$SD/ready.*"
sleep 0.3
check "... and waits for the go file (alive, nothing printed, 0.3 s later)" \
  bash -c "kill -0 $sd_pid && ! [[ -s '$GR_TMP/sd2.out' ]]"
touch "$SD/go"
wait "$sd_pid" || true
check_eq "... then drains: 2000 received" 2000 "$(jget "$(tail -n 1 "$GR_TMP/sd2.out")" done 2>/dev/null)"
check_no_sanitizer_report
gr_finish
