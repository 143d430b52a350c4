#!/usr/bin/env bash
# libgregor's transactional producer (tests/integration/client_txn.c, public API only),
# docs/libgregor.md "Transactions":
#  - one producer: commit 10 records, abort 5 flushed records, abort 5 records before they are
#    sent (their deliveries fail "Failing batch since transaction was aborted"), commit 3, commit
#    1 record with the consumed offset 42 of group g1 (AddOffsetsToTxn + TxnOffsetCommit), then a
#    send outside a transaction is refused;
#  - kcat and libgregor's consumer (gregor consume --isolation-level) with read_committed read
#    exactly the 14 committed records, with read_uncommitted also the 5 aborted ones that reached
#    the log; g1's committed offset is 42;
#  - fencing: a producer holding an open transaction is fenced by a second instance with the same
#    transactional.id: its commit fails with PRODUCER_FENCED (90), its records are aborted;
#  - transactional.id with enable.idempotence=false is refused with Kafka's message.
# All of that with transaction version 2 (both brokers finalize transaction.version=2): the
# client sends no AddPartitionsToTxn (v0-3) and no AddOffsetsToTxn, only Produce v12 and
# EndTxn v5 (counted by gregord's gregor_requests_total, by Kafka's request log).
# Then transaction.version is downgraded to 1 (UpdateFeatures, txn_features.py) and a new
# producer commits, aborts, sends offsets and is fenced the version-1 way: AddPartitionsToTxn,
# AddOffsetsToTxn and EndTxn v4 are sent, no EndTxn v5.
# Then the consumer's fetch ahead (gregor.consumer.fetch.ahead): the Fetches counted after the
# first record, the order across one-batch answers and seeks, and read_committed over a
# transaction aborted across several answers.
# On gregord (its transaction coordinator) and, with --ref, against Apache Kafka 4.4.0
# (ctest: ref/test_libgregor_txn): the same checks.
#   bash tests/integration/test_libgregor_txn.sh [--ref | --bootstrap H:P] [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
gr_require kcat python3
TXN="$GR_BUILD_DIR/client_txn"
[[ -x "$TXN" ]] || die "client_txn not built in $GR_BUILD_DIR"
start_target_counting
"$GR_BUILD_DIR/gregor" topics --bootstrap-server "$BOOTSTRAP" --create --topic tx --partitions 3 >/dev/null ||
  die "create tx"

out="$(gr_timeout 90 "$TXN" "$BOOTSTRAP" tx t1 commit:10 abort:5 abort-unsent:5 commit:3 offsets:g1:42 send-outside)" ||
  true
printf '%s\n' "$out" | sed 's/^/  | /'
for step in init commit:10 abort:5 abort-unsent:5 commit:3 offsets:g1:42; do
  check "step $step ok" grep -qx "$step ok" <<<"$out"
done
check "aborted unsent records fail their deliveries" \
  grep -q "delivery error -108 Failing batch since transaction was aborted (5 records)" <<<"$out"
check "send outside a transaction is refused" \
  grep -q "send-outside error -110 Cannot call send in state READY" <<<"$out"

readall() { gr_timeout 60 kcat -b "$BOOTSTRAP" -C -t tx -e -q -X "isolation.level=$1" -f '%s\n' | sort; }
want="$(printf 't1-c%d\n' 0 1 2 3 4 5 6 7 8 9 0 1 2; echo t1-o0)"
check_eq "read_committed: exactly the committed records" "$(sort <<<"$want" | tr '\n' ' ')" \
  "$(readall read_committed | tr '\n' ' ')"
check_eq "read_uncommitted: also the 5 aborted records in the log" 19 "$(readall read_uncommitted | wc -l)"
# libgregor's consumer (gregor consume): read_committed skips the aborted records and the markers.
lg_read() { gr_timeout 60 "$GR_BUILD_DIR/gregor" consume --bootstrap-server "$BOOTSTRAP" --topic tx --from-beginning \
  --timeout-ms 3000 --isolation-level "$1" 2>/dev/null | sort; }
check_eq "gregor consume --isolation-level read_committed: the committed records" \
  "$(sort <<<"$want" | tr '\n' ' ')" "$(lg_read read_committed | tr '\n' ' ')"
check_eq "gregor consume --isolation-level read_uncommitted: 19 records" 19 "$(lg_read read_uncommitted | wc -l)"
check_eq "the transaction committed g1's offset" 42 \
  "$("$GR_BUILD_DIR/gregor" consumer-groups --bootstrap-server "$BOOTSTRAP" --describe --group g1 2>/dev/null |
    awk '$1 == "g1" && $2 == "tx" && $3 == 0 {print $4}')"

# fence ID: ID holds an open transaction; a second ID initializes and commits 2 records; the
# first one is fenced at commit and only the second one's records are committed.
fence() {
  local id="$1" hold_pid out2
  rm -f "$GR_TMP/hold"
  mkfifo "$GR_TMP/hold"
  gr_timeout 90 "$TXN" "$BOOTSTRAP" tx "$id" hold:4 <"$GR_TMP/hold" >"$GR_TMP/hold.out" 2>&1 &
  hold_pid=$!
  GR_PIDS+=("$hold_pid")
  exec 7>"$GR_TMP/hold"
  for _ in $(seq 100); do grep -q holding "$GR_TMP/hold.out" && break; sleep 0.1; done
  check "the first $id holds an open transaction" grep -q holding "$GR_TMP/hold.out"
  out2="$(gr_timeout 60 "$TXN" "$BOOTSTRAP" tx "$id" commit:2)" || true
  check "a second $id initializes and commits" grep -qx "commit:2 ok" <<<"$out2"
  echo go >&7
  exec 7>&-
  wait "$hold_pid" || true
  check "the first $id is fenced at commit" grep -q "hold:4 error 90 " "$GR_TMP/hold.out"
  check_eq "read_committed: only the second $id's records" "$id-c0 $id-c1 " \
    "$(readall read_committed | grep "^$id-" | tr '\n' ' ')"
}
fence z1

if [[ "$GR_TARGET" != external ]]; then
  check_eq "transaction version 2: no AddPartitionsToTxn from the client" 0 "$(target_requests AddPartitionsToTxn 24 0 3)"
  check_eq "transaction version 2: no AddOffsetsToTxn" 0 "$(target_requests AddOffsetsToTxn 25 0 99)"
  check_eq "transaction version 2: no Produce below v12" 0 "$(target_requests Produce 0 0 11)"
  check_eq "transaction version 2: no EndTxn below v5" 0 "$(target_requests EndTxn 26 0 4)"
  e5="$(target_requests EndTxn 26 5 99)" # t1: 4 ends (its abort of unsent records needs none), z1: 2
  check "transaction version 2: EndTxn v5 ($e5 requests)" test "$e5" -ge 6

  # Transaction version 1: the same producer code on a node downgraded to transaction.version=1.
  check "downgrade to transaction.version=1" python3 "$GR_SOURCE_DIR/tests/integration/txn_features.py" \
    "$BOOTSTRAP" 1
  a0="$(target_requests AddPartitionsToTxn 24 0 3)" o0="$(target_requests AddOffsetsToTxn 25 0 99)" e4="$(target_requests EndTxn 26 0 4)"
  out="$(gr_timeout 90 "$TXN" "$BOOTSTRAP" tx v1 commit:3 abort:2 abort-unsent:2 offsets:g2:7)" || true
  printf '%s\n' "$out" | sed 's/^/  | /'
  for step in init commit:3 abort:2 abort-unsent:2 offsets:g2:7; do
    check "transaction version 1: step $step ok" grep -qx "$step ok" <<<"$out"
  done
  check_eq "transaction version 1: read_committed: the committed records" "v1-c0 v1-c1 v1-c2 v1-o0 " \
    "$(readall read_committed | grep '^v1-' | tr '\n' ' ')"
  check "transaction version 1: AddPartitionsToTxn sent" test "$(target_requests AddPartitionsToTxn 24 0 3)" -gt "$a0"
  # (a retry after CONCURRENT_TRANSACTIONS counts again; the abort of unsent records sends an EndTxn
  # only if its AddPartitionsToTxn went out before)
  check "transaction version 1: AddOffsetsToTxn sent" test "$(target_requests AddOffsetsToTxn 25 0 99)" -gt "$o0"
  check "transaction version 1: EndTxn v4 (commit, abort, commit)" test "$(target_requests EndTxn 26 0 4)" -ge $((e4 + 3))
  check_eq "transaction version 1: no EndTxn v5" "$e5" "$(target_requests EndTxn 26 5 99)"
  fence y1
  check_eq "the committed offset of g2 (transaction version 1)" 7 \
    "$("$GR_BUILD_DIR/gregor" consumer-groups --bootstrap-server "$BOOTSTRAP" --describe --group g2 2>/dev/null |
      awk '$1 == "g2" && $2 == "tx" && $3 == 0 {print $4}')"
fi

# The consumer's fetch ahead (gregor.consumer.fetch.ahead, docs/libgregor.md), one batch per
# answer (max.partition.fetch.bytes=1, every record its own batch): after the first record, with
# the application not polling, the broker has received two Fetches (the first and the one ahead;
# one with the option off); the records come in order across the answers and after seeks back
# and ahead; read_committed skips a transaction aborted across several answers.
if [[ "$GR_TARGET" != external ]]; then
  GCON="$GR_BUILD_DIR/client_group_consume"
  "$GR_BUILD_DIR/gregor" topics --bootstrap-server "$BOOTSTRAP" --create --topic fa --partitions 1 >/dev/null &&
    "$GR_BUILD_DIR/client_share_consume" "$BOOTSTRAP" produce fa 60 0 1 >/dev/null || die "fa setup"
  fetches() { target_requests Fetch 1 0 99; }
  # ... once the count stands still: a consumer that closed with a Fetch waiting at the broker
  # (kcat above) has it answered and counted up to fetch.max.wait.ms later
  fetches_settled() {
    local a b; a="$(fetches)"
    for _ in $(seq 10); do sleep 0.6; b="$(fetches)"; [[ "$a" == "$b" ]] && break; a="$b"; done
    echo "$b"
  }
  for ahead in true false; do
    want=2 && [[ "$ahead" == false ]] && want=1
    rm -f "$GR_TMP/go"
    f0="$(fetches_settled)"
    gr_timeout 60 "$GCON" "$BOOTSTRAP" ahead "fa-$ahead" fa 60 --go "$GR_TMP/go" -X max.partition.fetch.bytes=1 \
      -X "gregor.consumer.fetch.ahead=$ahead" >"$GR_TMP/ahead-$ahead.out" 2>&1 &
    pid=$!
    GR_PIDS+=("$pid")
    for _ in $(seq 100); do grep -q '^first:' "$GR_TMP/ahead-$ahead.out" && break; sleep 0.1; done
    for _ in $(seq 30); do (( $(fetches) - f0 >= want )) && break; sleep 0.1; done
    sleep 0.5 # no more may come while the application does not poll
    check_eq "fetch.ahead=$ahead: Fetches received after the first record" "$want" "$(( $(fetches) - f0 ))"
    touch "$GR_TMP/go"
    wait "$pid" || true
    check_eq "fetch.ahead=$ahead: one batch per answer, in order, seeks" \
      "first: 0|the rest: 1..59 in order|seek 30: NONE|after the seek back: 30..35 in order|seek 59: NONE|after the seek ahead: 59..59 in order" \
      "$(paste -sd'|' "$GR_TMP/ahead-$ahead.out")"
  done
  "$GR_BUILD_DIR/gregor" topics --bootstrap-server "$BOOTSTRAP" --create --topic fb --partitions 1 >/dev/null ||
    die "create fb"
  out="$(gr_timeout 90 "$TXN" "$BOOTSTRAP" fb t4 commit:3 abort:6 commit:2 -X batch.size=1 -X linger.ms=0)" || true
  check "fb: commit, abort of 6 records, commit" grep -qx "commit:2 ok" <<<"$out"
  check_eq "read_committed, one batch per answer: the 5 committed records" "t4-c0 t4-c0 t4-c1 t4-c1 t4-c2 " \
    "$(gr_timeout 60 "$GR_BUILD_DIR/gregor" consume --bootstrap-server "$BOOTSTRAP" --topic fb --from-beginning \
      --timeout-ms 3000 --isolation-level read_committed --consumer-property max.partition.fetch.bytes=1 2>/dev/null |
      sort | tr '\n' ' ')"
fi

out="$(gr_timeout 30 "$TXN" "$BOOTSTRAP" tx t2 commit:1 -X enable.idempotence=false 2>&1)" || true
check "transactional.id needs idempotence" \
  grep -q "new error Cannot set a transactional.id without also enabling idempotence." <<<"$out"
check_no_sanitizer_report
gr_finish
