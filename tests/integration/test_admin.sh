#!/usr/bin/env bash
# Topic and config administration with confluent-kafka's AdminClient (librdkafka) plus a few
# raw requests it cannot send (CreateTopics v7 with duplicate names, DeleteTopics v6 by id):
# create (validate_only, bad replication factor, bad name, bad configs, duplicates, existing,
# broker defaults, manual assignment), describe configs (defaults, overrides, synonyms,
# broker read-only flags), incremental alter (SET/DELETE/APPEND/SUBTRACT, bad values with
# Kafka's exact messages, validate_only), legacy alter (replace semantics), broker configs,
# create partitions, delete topics; then a restart, after which everything must still hold.
# Passes unchanged against Apache Kafka (--ref): the expected answers are Kafka's.
#   bash tests/integration/test_admin.sh [--ref | --bootstrap H:P] [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
PY="$(gr_venv_dir)/bin/python"
[[ -x "$PY" ]] || die "python venv missing at $PY (run scripts/install-deps.sh)"
CHECK="$GR_SOURCE_DIR/tests/integration/admin_check.py"
prefix="adm$RANDOM"

# run_phase PHASE: run admin_check.py, count its ok/FAIL lines
run_phase() {
  local out rc=0
  out="$(gr_timeout 180 "$PY" -W ignore "$CHECK" "$BOOTSTRAP" "$1" "$prefix" 2>"$GR_TMP/$1.err")" || rc=$?
  echo "$out"
  GR_PASSED=$((GR_PASSED + $(grep -c '^ok ' <<<"$out" || true)))
  GR_FAILED=$((GR_FAILED + $(grep -c '^FAIL ' <<<"$out" || true)))
  grep -q '^failures: ' <<<"$out" || fail "admin_check.py $1 did not finish (rc $rc): $(tail -n 5 "$GR_TMP/$1.err")"
}

start_target
run_phase setup
if [[ "$GR_TARGET" != external ]]; then
  stop_target
  [[ "$GR_TARGET" == gregord ]] && check_eq "gregord exited cleanly on SIGTERM" 0 "$GR_GREGORD_EXIT"
  restart_target
  run_phase verify
  stop_target
fi
gr_finish
