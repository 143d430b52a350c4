#!/usr/bin/env bash
# Consumer groups (classic protocol) with real clients:
#  1. kcat -G: two members split a 4-partition topic 2/2; when one leaves the other gets
#     all 4 (4/0); every record is consumed (the ones produced after the leave too).
#  2. confluent-kafka: consume 30, commit, close; a new consumer resumes at offset 30.
#  3. kill -9 while a client commits in a loop: after the restart every acknowledged
#     commit is there (the committed offset is at least the last acknowledged one), and the
#     groups and kcat's committed offsets are back.
#   bash tests/integration/test_consumer_group.sh [--ref] [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
gr_require kcat
PY="$(gr_venv_dir)/bin/python"
[[ -x "$PY" ]] || die "python venv missing at $PY (run scripts/install-deps.sh)"
CLIENT="$GR_SOURCE_DIR/tests/integration/cgroup_client.py"
start_target --override num.partitions=4 --override group.initial.rebalance.delay.ms=500

# ---- 1. kcat -G, two members, then one
"$PY" "$CLIENT" produce "$BOOTSTRAP" t4 4 100 || die "produce failed"
kc() { # kcat -G member NAME: stdout lines "<partition> <value>", stderr the rebalance lines
  gr_bg "$1" timeout -k 5 80 kcat -b "$BOOTSTRAP" -G g4 t4 -u -f '%p %s\n' -X auto.offset.reset=earliest \
    -X session.timeout.ms=10000 >"$GR_TMP/$1.out" 2>"$GR_TMP/$1.err"
}
assigned() { grep -o 'assigned: .*' "$GR_TMP/$1.err" | tail -n 1 | grep -o '\[[0-9]*\]' | wc -l; }
wait_for() { # wait_for SECONDS CMD...: until CMD succeeds
  local deadline=$(( $(date +%s) + $1 )); shift
  until "$@"; do (( $(date +%s) >= deadline )) && return 1; sleep 0.2; done
}
lines() { cat "$GR_TMP"/a.out "$GR_TMP"/b.out 2>/dev/null | sort -u | wc -l; }
both_assigned() { (( $(assigned a) == 2 && $(assigned b) == 2 )); }
kc a
kc b
pa=$a pb=$b
check "two members each got 2 of the 4 partitions" wait_for 30 both_assigned
check "both members consumed all 400 records" wait_for 30 eval '(( $(lines) == 400 ))'
parts_a=$(grep -o 'assigned: .*' "$GR_TMP/a.err" | tail -n 1)
parts_b=$(grep -o 'assigned: .*' "$GR_TMP/b.err" | tail -n 1)
log "a $parts_a; b $parts_b"
kill -TERM "$pb" 2>/dev/null || true
wait "$pb" 2>/dev/null || true
check "after b left, a holds all 4 partitions" wait_for 30 eval '(( $(assigned a) == 4 ))'
check_eq "b's last event revoked its partitions" 1 "$(grep -E 'rebalanced|revoked' "$GR_TMP/b.err" | tail -n 1 | grep -c revoked)"
"$PY" "$CLIENT" produce "$BOOTSTRAP" t4 4 10 || die "produce failed"
# The new records are "p<part>-0".."p<part>-9" again: count a's lines after the leave.
check "a consumed the 40 records produced after the leave" \
  wait_for 30 eval '(( $(grep -c "" "$GR_TMP/a.out") >= 240 ))'
check_eq "distinct records consumed by the two members" 400 "$(lines)"
check_eq "a's records: its 200 + the 40 new ones (no re-read of b's committed partitions)" 240 \
  "$(grep -c "" "$GR_TMP/a.out")"
kill -TERM "$pa" 2>/dev/null || true
wait "$pa" 2>/dev/null || true

# ---- 2. commit, stop, resume
"$PY" "$CLIENT" produce "$BOOTSTRAP" t1 1 50 >/dev/null || die "produce failed"
out=$(gr_timeout 80 "$PY" "$CLIENT" resume "$BOOTSTRAP" t1 gr) || die "resume client failed"
check_eq "first consumer: 30 records up to p0-29" "first 30 p0-29 29" "$(sed -n 1p <<<"$out")"
check_eq "second consumer resumes at the committed offset" "resumed p0-30 30" "$(sed -n 2p <<<"$out")"

# ---- 3. kill -9 right after commits
acked="$GR_TMP/acked" stopf="$GR_TMP/stop"
: >"$acked"
"$PY" "$CLIENT" produce "$BOOTSTRAP" tk 2 1 >/dev/null || die "produce failed"
gr_bg com "$PY" "$CLIENT" commits "$BOOTSTRAP" tk gk "$acked" "$stopf" 2>"$GR_TMP/com.err"
check "commits acknowledged" wait_for 20 eval '(( $(grep -c "" "$acked") >= 200 ))'
kill9_target
# The client blocks in a commit to the dead broker: stop it for good (its acks are on file).
kill -9 "$com" 2>/dev/null || true
wait "$com" 2>/dev/null || true
restart_target
"$PY" "$CLIENT" committed "$BOOTSTRAP" tk gk 2 >"$GR_TMP/committed" || die "committed() failed"
check_eq "after the restart: the groups, Empty (kcat's is not simple, the committer's is)" \
  "g4 EMPTY False;gk EMPTY True;gr EMPTY False;" "$("$PY" "$CLIENT" groups "$BOOTSTRAP" | tr '\n' ';')"
check_eq "after the restart: kcat's committed offsets of t4 (110 per partition)" "0 110;1 110;2 110;3 110;" \
  "$("$PY" "$CLIENT" committed "$BOOTSTRAP" t4 g4 4 | tr '\n' ';')"
for p in 0 1; do
  last=$(awk -v p=$p '$1 == p { v = $2 } END { print v + 0 }' "$acked")
  got=$(awk -v p=$p '$1 == p { print $2 }' "$GR_TMP/committed")
  check "partition $p: commits were acknowledged ($last)" test "$last" -gt 0
  check "partition $p: committed $got >= last acknowledged $last after kill -9" test "${got:-0}" -ge "$last"
  check "partition $p: committed $got at most one commit ahead of the acknowledged $last" \
    test "${got:-0}" -le $((last + 1))
done
stop_target
[[ "$GR_TARGET" == gregord ]] && check_no_sanitizer_report
gr_finish
