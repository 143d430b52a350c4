#!/usr/bin/env bash
# gregor.producer.state.max.producers (gregord only: Kafka bounds producer state by time
# alone), on the wire (tests/integration/producer_state_cap.py) with the cap at 50:
#  - 500 made-up producer ids each append an idempotent batch: DescribeProducers lists the
#    50 newest, gregor_producer_ids says 50, 450 evictions counted;
#  - a retried batch of a tracked producer is deduplicated; an evicted producer's next batch
#    is accepted as after producer.id.expiration.ms (Apache Kafka 4.4.0's behaviour after
#    the expiry is compared in test_txn_log.sh);
#  - the cap lowered to 10 at run time keeps the 10 most recent at once;
#  - 10 ongoing transactions fill it: a new producer gets NOT_ENOUGH_REPLICAS with a message,
#    and gets in once a transaction ends; the same producers come back after a restart;
#  - the evictions and the refusal are logged, rate-limited (30 lines per 10 s per site);
#    gregord's RSS is only reported (500 entries are ~110 KB either way).
#   bash tests/integration/test_producer_state_cap.sh [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
[[ "$GR_TARGET" == gregord ]] || die "test_producer_state_cap needs gregord (the cap is gregord's)"
gr_require python3
export PYTHONPATH="$GR_SOURCE_DIR/tests/integration${PYTHONPATH:+:$PYTHONPATH}"
D="$GR_SOURCE_DIR/tests/integration/producer_state_cap.py"

ADMIN_PORT="$(free_port)"
start_gregord --override "admin.listener=127.0.0.1:$ADMIN_PORT" --override gregor.producer.state.max.producers=50
wait_port "$ADMIN_PORT" 10 "$GR_GREGORD_PID" || die "admin listener not up on 127.0.0.1:$ADMIN_PORT"
rss() { awk '/^VmRSS:/ {print $2}' "/proc/$GR_GREGORD_PID/status"; }
rss0="$(rss)"

rc=0
gr_timeout 60 python3 "$D" "$BOOTSTRAP" "http://127.0.0.1:$ADMIN_PORT" main >"$GR_TMP/main.out" 2>&1 || rc=$?
gr_relay_checks producer_state_cap.py "$GR_TMP/main.out" "$rc" 60
rss1="$(rss)"
# Reported, not checked: 500 entries are ~110 KB with or without the cap, below RSS noise
# (ASan alone adds MBs); DescribeProducers and gregor_producer_ids above show the cap held.
log "gregord RSS ${rss0} kB before, ${rss1} kB after 500 producer ids"
warn='gregor.producer.state.max.producers=50 producers: the least recently used one'
n_warn="$(grep -c "$warn" "$GR_TMP/gregord.log" || true)"
check "evictions logged, rate-limited ($n_warn lines for 452 evictions)" test "$n_warn" -ge 1 -a "$n_warn" -le 31
check "the refusal logged" grep -q 'all with an ongoing transaction' "$GR_TMP/gregord.log"

final="$(sed -n 's/^FINAL //p' "$GR_TMP/main.out")"
stop_gregord
check_eq "gregord exits 0 on SIGTERM" 0 "$GR_GREGORD_EXIT"
restart_gregord
rc=0
gr_timeout 30 python3 "$D" "$BOOTSTRAP" "http://127.0.0.1:$ADMIN_PORT" restart "${final:-none}" \
  >"$GR_TMP/restart.out" 2>&1 || rc=$?
gr_relay_checks producer_state_cap.py "$GR_TMP/restart.out" "$rc" 30
stop_gregord
check_no_sanitizer_report
gr_finish
