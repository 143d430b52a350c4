#!/usr/bin/env bash
# Share-group coordinator APIs over the wire (tests/integration/share_coord_wire.py):
#  - ShareGroupHeartbeat: join, assignment once the share state is initialized, errors
#    25 / 42 / 69 / 81 (group.share.max.size=2) / 110, heartbeat interval from the group config;
#  - ShareGroupDescribe, ListGroups (type and state filters), DescribeGroups on share ids;
#  - DeleteGroups (68 with members, 69 unknown, ok when empty and the share state is gone);
#  - Describe/Alter/DeleteShareGroupOffsets incl. 68, 69, 3 and KIP-1226 lag;
#  - GROUP configs: describe, set, validation errors naming the broker bound;
#  - session timeout expiry; persistence across a clean restart and a kill -9.
#   bash tests/integration/test_share_coord.sh [--ref | --bootstrap H:P] [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
gr_require python3
WIRE=(python3 "$GR_SOURCE_DIR/tests/integration/share_coord_wire.py")

# run_wire NAME ARGS...: run a scenario, turn its ok/FAIL lines into ours
run_wire() {
  local name="$1" line; shift
  while IFS= read -r line; do
    case "$line" in
      "ok - "*) ok "$name: ${line#ok - }" ;;
      "FAIL - "*) fail "$name: ${line#FAIL - }" ;;
    esac
  done < <(gr_timeout 120 "${WIRE[@]}" "$BOOTSTRAP" "$@" 2>&1 || echo "FAIL - scenario $* exited non-zero")
}

start_target --override group.share.max.size=2 \
  --override group.share.min.session.timeout.ms=1000 \
  --override group.share.min.heartbeat.interval.ms=500
run_wire main main
run_wire expiry expiry
run_wire persist persist-setup g-persist
stop_target
restart_target
run_wire restart persist-verify g-persist
if [[ "$GR_TARGET" != external ]]; then
  kill9_target
  restart_target
  run_wire kill9 persist-verify g-persist
fi

# kafka-share-groups (ShareGroupCommand from kafka-tools) against the target, when the
# reference classpath exists (tests/ref: mvn dependency copy).
if ls "$GR_SOURCE_DIR"/tests/ref/target/lib/kafka-tools-*.jar >/dev/null 2>&1 && command -v java >/dev/null; then
  mkdir -p "$GR_TMP/tool"
  sgc() { gr_timeout 90 bash "$GR_SOURCE_DIR/tests/ref/kafka-ref.sh" tool "$GR_TMP/tool" \
            org.apache.kafka.tools.consumer.group.ShareGroupCommand --bootstrap-server "$BOOTSTRAP" "$@" 2>&1 || true; }
  # The checks below need both members of g-persist alive, but each tool run starts a JVM
  # (seconds each, far more on a loaded machine), so their sessions could expire in between.
  # keepalive [max]: heartbeat every member at its current epoch; with "max", first raise the
  # group's share.session.timeout.ms to the broker maximum (group.share.max.session.timeout.ms,
  # default 60000) so one heartbeat covers a whole tool run.
  keepalive() {
    PYTHONPATH="$GR_SOURCE_DIR/tests/integration" python3 - "$BOOTSTRAP" "${1:-}" <<'PY' || true
import sys
import share_coord_wire as w
c = w.Conn(sys.argv[1])
if sys.argv[2] == "max":
    e = w.incr_alter_group_configs(c, "g-persist", [("share.session.timeout.ms", 0, "60000")])
    if e[0]:
        print("keepalive: setting share.session.timeout.ms failed: %r" % (e,), file=sys.stderr)
d = w.sg_describe(c, ["g-persist"])[0]
for m in d["members"]:
    r = w.hb(c, "g-persist", m["id"], m["epoch"])
    if r["err"]:
        print("keepalive: heartbeat of %s failed: %r" % (m["id"], r), file=sys.stderr)
PY
  }
  keepalive max
  out="$(sgc --list)"; check "kafka-share-groups --list shows g-persist" grep -qx g-persist <<<"$out"
  out="$(sgc --describe --group g-persist)"
  check "kafka-share-groups --describe (offsets)" grep -Eq '^g-persist +sc-persist +1 ' <<<"$out"
  keepalive
  out="$(sgc --describe --group g-persist --members)"
  check "kafka-share-groups --describe --members" grep -Eq '^g-persist +member-a +/127.0.0.1' <<<"$out"
  keepalive
  out="$(sgc --describe --group g-persist --state)"
  check "kafka-share-groups --describe --state: Stable, 2 members" grep -Eq '^g-persist .* Stable +2$' <<<"$out"
  keepalive
  out="$(sgc --reset-offsets --group g-persist --to-earliest --all-topics --execute)"
  check "kafka-share-groups --reset-offsets refuses a non-empty group" grep -q "not empty" <<<"$out"
  PYTHONPATH="$GR_SOURCE_DIR/tests/integration" python3 - "$BOOTSTRAP" <<'PY'
import sys
import share_coord_wire as w
c = w.Conn(sys.argv[1])
for m in ("member-a", "member-b"):
    w.hb(c, "g-persist", m, -1)
w.produce(c, "sc-persist", 5)
PY
  out="$(sgc --reset-offsets --group g-persist --to-earliest --all-topics --execute)"
  check "kafka-share-groups --reset-offsets --to-earliest --execute" grep -Eq '^g-persist +sc-persist +0 +0$' <<<"$out"
  out="$(sgc --describe --group g-persist)"
  check "kafka-share-groups --describe after reset: start 0, lag 5" \
    grep -Eq '^g-persist +sc-persist +0 +0 +5$' <<<"$out"
  out="$(sgc --delete --group g-persist)"
  check "kafka-share-groups --delete" grep -q "was successful" <<<"$out"
  out="$(sgc --list)"; check "kafka-share-groups --list after delete" bash -c '! grep -qx g-persist <<<"$1"' _ "$out"
else
  log "kafka-tools jar or java missing: kafka-share-groups checks skipped"
fi
gr_finish
