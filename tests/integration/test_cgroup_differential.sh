#!/usr/bin/env bash
# Consumer groups against Apache Kafka 4.4.0 (tests/ref/kafka-ref.sh): the error codes of
# every misuse of the classic protocol and the offset APIs, static membership (fencing,
# rejoin answers v7/v9), JoinGroup v3 / LeaveGroup v1, a two-member rebalance (join of a Stable
# group, parked sync, leave), and the one group-id namespace
# with share groups (tests/integration/cgroup_differential.py), diffed under its allow-list;
# then a few exact values on gregord's side.
#   bash tests/integration/test_cgroup_differential.sh [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
GR_TEST_TIMEOUT="${GR_TEST_TIMEOUT:-240}"
gr_init "$@"
[[ "$GR_TARGET" == gregord ]] || die "test_cgroup_differential compares gregord with the reference itself; no --ref"
PY="$(gr_venv_dir)/bin/python"
[[ -x "$PY" ]] || PY=python3 # standard library only
gr_ref_like_overrides
gr_diff_run "$GR_SOURCE_DIR/tests/integration/cgroup_differential.py" 120

"$PY" - "$GR_TMP/obs.gregord.json" <<'PYEOF' || fail "gregord's observation lacks an expected value (above)"
import json, sys
o = json.load(open(sys.argv[1]))
want = {
    ("misuse", "session_low", "err"): 26, ("misuse", "unknown_member_new_group", "err"): 25,
    ("misuse", "member_required", "err"): 79, ("misuse", "member_required", "form"): True,
    ("misuse", "joined", "gen"): 1, ("misuse", "joined", "leader_is_self"): True,
    ("misuse", "sync_wrong_type", "err"): 23, ("misuse", "sync_stale_gen", "err"): 22,
    ("misuse", "hb_unknown"): 25, ("misuse", "hb_stale"): 22, ("misuse", "join_wrong_type", "err"): 23,
    ("misuse", "commit_non_member"): [[25]], ("misuse", "commit_stale_gen"): [[22]],
    ("misuse", "commit_completing"): [[27]], ("misuse", "commit_unknown_group_v9"): [[69]],
    ("misuse", "commit_unknown_group_v8"): [[22]], ("misuse", "commit_metadata_big"): [[12]],
    ("misuse", "commit_unknown_topic"): [[3]], ("misuse", "leave", "members"): [0, 25],
    ("misuse", "delete_non_empty", "cgw-g1"): 68,
    ("static", "v3_join", "gen"): 1, ("static", "static_rejoin", "new_id"): True,
    ("static", "static_rejoin", "leader_is_old"): True, ("static", "static_rejoin_v9", "skip"): True,
    ("static", "hb_fenced"): 82, ("static", "commit_fenced"): [[82]],
    ("static", "leave_by_instance", "members"): [0, 25],
    ("rebalance", "hb_during_rebalance"): 27, ("rebalance", "alone", "gen"): 3,
    ("rebalance", "commit_old_gen"): [[22]],
    ("namespace", "join", "err"): 23, ("namespace", "sync", "err"): 25, ("namespace", "commit"): [[69]],
}
bad = 0
for path, v in want.items():
    cur = o
    for k in path:
        cur = cur.get(k) if isinstance(cur, dict) else None
    print(("ok   - %s = %r" if cur == v else "FAIL - %s = %r, expected " + repr(v)) % ("/".join(path), cur))
    bad += cur != v
sys.exit(1 if bad else 0)
PYEOF
stop_ref_kafka
stop_gregord
check_no_sanitizer_report
gr_finish
