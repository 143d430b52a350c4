# Sourced by the kafkajs tests after lib.sh and gr_init: node with the pinned kafkajs
# (tests/interop/node, installed by scripts/install-deps.sh) and kafkajs_run.
gr_require node
NDIR="$GR_SOURCE_DIR/tests/interop/node"
[[ -d "$NDIR/node_modules/kafkajs" ]] || die "kafkajs not installed in $NDIR (run scripts/install-deps.sh)"

# kafkajs_run TIMEOUT_S PROGRAM ARGS...: run a node program of NDIR; its "ok " and "FAIL " lines
# count as this test's checks, and it must print "done" (stderr goes to $GR_TMP/node.err).
kafkajs_run() {
  local t="$1" out
  shift
  out="$(cd "$NDIR" && KAFKAJS_NO_PARTITIONER_WARNING=1 gr_timeout "$t" node "$@" 2>"$GR_TMP/node.err")" || true
  echo "$out"
  GR_PASSED=$((GR_PASSED + $(grep -c '^ok ' <<<"$out" || true)))
  GR_FAILED=$((GR_FAILED + $(grep -c '^FAIL ' <<<"$out" || true)))
  grep -qx 'done' <<<"$out" || fail "kafkajs program did not finish: $(tail -n 5 "$GR_TMP/node.err")"
}
