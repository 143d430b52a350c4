#!/usr/bin/env bash
# confluent-kafka (librdkafka) transactional producers and ShareConsumers with a share group whose
# share.isolation.level is read_committed (tests/interop/python/share_read_committed.py): committed
# records only, an open transaction holding back later records until it commits, aborted records
# never delivered, read_uncommitted gets all. On gregord and, with --ref, Apache Kafka 4.4.0.
#   bash tests/interop/test_confluent_share_rc.sh [--ref | --bootstrap H:P] [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
PY="$(gr_venv_dir)/bin/python"
[[ -x "$PY" ]] || die "python venv missing at $PY (run scripts/install-deps.sh)"
"$PY" -c 'import confluent_kafka as c; c.ShareConsumer' 2>/dev/null || die "confluent-kafka in $PY has no ShareConsumer"
start_target
out="$(gr_timeout 120 "$PY" "$GR_SOURCE_DIR/tests/interop/python/share_read_committed.py" "$BOOTSTRAP" 2>"$GR_TMP/py.err")" || true
printf '%s\n' "$out"
GR_PASSED=$((GR_PASSED + $(grep -c '^ok' <<<"$out" || true)))
GR_FAILED=$((GR_FAILED + $(grep -c '^FAIL' <<<"$out" || true)))
check "the script ran to the end (4 checks)" test "$(grep -cE '^(ok|FAIL)' <<<"$out")" -ge 4 || sed 's/^/  ! /' "$GR_TMP/py.err" | tail -20
check_no_sanitizer_report
gr_finish
