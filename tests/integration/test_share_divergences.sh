#!/usr/bin/env bash
# Share-group divergences from Apache Kafka 4.4.0 (issue 14 item 1), each compared against the
# reference (tests/ref/kafka-ref.sh) and gregord:
#  - broker bounds: group.share.max.partition.max.record.locks=1500 (below its [2000, 10000]) and
#    group.share.min.partition.max.record.locks=2500 (above its [100, 2000]) refuse to start,
#    with the same "Invalid value ..." text on both;
#  - the wire scenarios of tests/integration/share_divergences.py (shared-offset acknowledgement
#    batches, batch- and offset-level error texts, top-level ShareFetch/ShareAcknowledge
#    messages, lag beyond the high watermark, lag of share-partitions not written yet (after the
#    join, after the first ShareFetch, after AlterShareGroupOffsets without members),
#    share.assignment.interval.ms, SimpleAssignor with more members than partitions), diffed
#    under that file's allow-list;
#  - `gregor share-groups --describe --offsets` prints the same LAG column as Kafka's
#    kafka-share-groups (ShareGroupCommand) for a start offset beyond the high watermark.
#   bash tests/integration/test_share_divergences.sh [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
GR_TEST_TIMEOUT="${GR_TEST_TIMEOUT:-240}"
gr_init "$@"
[[ "$GR_TARGET" == gregord ]] || die "test_share_divergences compares gregord with the reference itself; no --ref"
PY="$(gr_venv_dir)/bin/python"
[[ -x "$PY" ]] || PY=python3 # standard library only
DIV_PY="$GR_SOURCE_DIR/tests/integration/share_divergences.py"
BIN="$(gregord_bin)"
CLI="$GR_BUILD_DIR/gregor"

# ------------------------------------------------------------------ broker bounds
# Kafka refuses these in kafka-storage format (the first step of kafka-ref.sh start).
bounds_case() { # NAME KEY=VALUE EXPECTED-TEXT
  local name="$1" kv="$2" want="$3" ref_out greg_out rc=0
  ref_out="$(gr_timeout 120 bash "$GR_REF_SH" start "$GR_TMP/ref-bad-$name" "$(free_port)" "$kv" 2>&1)" || rc=$?
  if ((rc == 0)); then
    gr_timeout 60 bash "$GR_REF_SH" stop "$GR_TMP/ref-bad-$name" || true
    fail "$name: Apache Kafka started with $kv"
    return
  fi
  grep -qF -- "$want" <<<"$ref_out" && ok "$name: Apache Kafka refuses $kv: $want" ||
    fail "$name: Apache Kafka's refusal does not say '$want': $(grep -m1 -i exception <<<"$ref_out")"
  rc=0
  greg_out="$(gr_timeout 30 "$BIN" --override "$kv" --override "log.dirs=$GR_TMP/unused" 2>&1 </dev/null)" || rc=$?
  check_eq "$name: gregord exits 2" 2 "$rc"
  grep -qF -- "gregord: configuration error: $want" <<<"$greg_out" && ok "$name: gregord refuses with the same text" ||
    fail "$name: gregord's refusal: $(grep '^gregord:' <<<"$greg_out")"
}
bounds_case max-locks group.share.max.partition.max.record.locks=1500 \
  "Invalid value 1500 for configuration group.share.max.partition.max.record.locks: Value must be at least 2000"
bounds_case min-locks group.share.min.partition.max.record.locks=2500 \
  "Invalid value 2500 for configuration group.share.min.partition.max.record.locks: Value must be no more than 2000"

# ------------------------------------------------------------------ wire scenarios
gr_ref_like_overrides

gr_diff_run "$DIV_PY" 150

# Values that must hold on both (the diff only says they are equal).
"$PY" - "$GR_TMP/obs.gregord.json" <<'EOF' || fail "gregord's observation lacks an expected value (above)"
import json, sys
o = json.load(open(sys.argv[1]))
want = {
    ("ack_overlap", "ov1", "ack", "partitions", "sdv-ov-0", "err"): 0,
    ("ack_overlap", "ov1", "probe", "5", "sdv-ov-0", "err"): 121,
    ("ack_overlap", "ov3", "ack", "partitions", "sdv-ov-0", "err"): 121,
    ("ack_overlap", "ov3", "probe", "5", "sdv-ov-0", "err"): 0,
    ("ack_overlap", "ov6", "ack", "partitions", "sdv-ov-0", "err"): 42,
    ("ack_texts", "accept_whole_batch_again", "partitions", "sdv-tx-0", "msg"):
        "The batch cannot be acknowledged. The batch is not in the acquired state.",
    ("ack_texts", "accept_2_again", "partitions", "sdv-tx-0", "msg"):
        "The offset cannot be acknowledged. The offset is not acquired.",
    ("ack_texts", "m2_ack_batch", "partitions", "sdv-tx-0", "msg"): "Member is not the owner of batch record",
    ("ack_texts", "m2_ack_3_tracked", "partitions", "sdv-tx-0", "msg"): "Member is not the owner of offset",
    ("lag", "offsets_beyond_hwm", "partitions", "sdv-lag-0", "lag"): -3,
    ("lag_init", "after_join_named", "partitions", "sdv-li-0"):
        {"start": -1, "leader_epoch": 0, "lag": -1, "error": 0},
    ("lag_init", "after_join_all", "partitions", "sdv-li-0", "lag"): -1,
    ("lag_init", "fetch"): [[[0, 4, 1]]],
    ("lag_init", "after_fetch_named", "partitions", "sdv-li-0"):
        {"start": -1, "leader_epoch": 0, "lag": -1, "error": 0},
    ("lag_init", "after_fetch_all", "partitions", "sdv-li-0", "lag"): -1,
    ("lag_init", "after_ack_named", "partitions", "sdv-li-0", "lag"): 3,
    ("lag_init", "alter_named", "partitions", "sdv-li-0"): {"start": 2, "leader_epoch": 0, "lag": 3, "error": 0},
    ("lag_init", "alter_all", "partitions", "sdv-li-0"): {"start": 2, "leader_epoch": 0, "lag": 3, "error": 0},
    ("assign_cfg", "describe_set", "entry", "value"): "2500",
    ("fair_release", "a_fetch"): [[[0, 9, 1]]],
    ("fair_release", "a_release_and_fetch", "partitions", "sdv-fair-0", "acquired"): [],
    ("fair_release", "b_waiting_fetch", "partitions", "sdv-fair-0", "acquired"): [[0, 9, 2]],
    ("assignor", "members_5", "members_per_partition"): [2, 2, 2],
    ("assignor", "members_5", "partitions_per_member"): [1, 1, 1, 1, 2],
    ("assignor", "heterogeneous", "by_member"): {"sdv-asgh-a": {"sdv-asg4": 2},
                                                  "sdv-asgh-b": {"sdv-asg2": 1, "sdv-asg4": 2},
                                                  "sdv-asgh-c": {"sdv-asg2": 1}},
}
bad = 0
for path, v in want.items():
    cur = o
    for k in path:
        cur = cur.get(k) if isinstance(cur, dict) else None
    if cur != v:
        print("FAIL - %s = %r, expected %r" % ("/".join(path), cur, v))
        bad += 1
    else:
        print("ok   - %s = %r" % ("/".join(path), v))
sys.exit(1 if bad else 0)
EOF

# ------------------------------------------------------------------ the offsets view of both tools
[[ -x "$CLI" ]] || die "gregor command-line tool not found at $CLI (build it: make)"
ref_lag="$(gr_timeout 90 bash "$GR_REF_SH" tool "$GR_REF_DIR" org.apache.kafka.tools.consumer.group.ShareGroupCommand \
  --bootstrap-server "$REF_BOOT" --describe --group sdv-lagcli-g --offsets 2>&1 | awk '$1 == "sdv-lagcli-g" {print $2, $3, $4, $5}')"
greg_lag="$(gr_timeout 30 "$CLI" share-groups --bootstrap-server "$GREGORD_BOOT" --describe --group sdv-lagcli-g \
  --offsets 2>&1 | awk '$1 == "sdv-lagcli-g" {print $2, $3, $4, $5}')"
check_eq "kafka-share-groups and gregor share-groups print the same offsets row (start 8, lag -)" \
  "sdv-lag 0 8 -" "$ref_lag"
check_eq "gregor share-groups --describe --offsets beyond the high watermark" "$ref_lag" "$greg_lag"

stop_ref_kafka
stop_gregord
check_no_sanitizer_report
gr_finish
