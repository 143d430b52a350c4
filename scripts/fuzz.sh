#!/usr/bin/env bash
# Build the libFuzzer targets with clang in ./build-fuzz (-DGR_FUZZ=ON) and run every
# build-fuzz/fuzz_* binary (one per fuzz/targets/fuzz_*.c, plus the per-API request
# targets CMake derives from them) for a bounded time.
#   scripts/fuzz.sh [SECONDS_PER_TARGET]      (default $FUZZ_SECONDS or 10)
# Env: FUZZ_BUDGET=S   total wall-clock budget instead: per target max(3, S*PARALLEL/targets)
#      FUZZ_PARALLEL=N targets run side by side (default nproc)
#      FUZZ_TARGETS="fuzz_a fuzz_b"  a subset
# Seeds: fuzz/corpus/<name>/ (name with or without the fuzz_ prefix) are read, never
# written; new inputs go to build-fuzz/corpus/<name>/. Dictionary: fuzz/dict/<name>.dict.
# Crashes/leaks/timeouts are written to build-fuzz/artifacts/<name>/ and fail the run.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BDIR="$ROOT/build-fuzz"
PAR="${FUZZ_PARALLEL:-$(nproc)}"

if ! compgen -G "fuzz/targets/fuzz_*.c" >/dev/null; then
  echo "fuzz: no fuzz targets (fuzz/targets/fuzz_*.c)"
  echo "fuzz: 0 passed, 0 failed"
  exit 0
fi
command -v clang >/dev/null || { echo "fuzz: clang not found (scripts/install-deps.sh installs it)" >&2; exit 1; }
t0=$(date +%s)
CC=clang cmake -S . -B "$BDIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGR_FUZZ=ON >/dev/null
if [[ -n "${FUZZ_TARGETS:-}" ]]; then
  read -r -a targets <<<"$FUZZ_TARGETS"
  cmake --build "$BDIR" -j "$(nproc)" --target "${targets[@]}" >/dev/null
else
  cmake --build "$BDIR" -j "$(nproc)" --target fuzz_all >/dev/null
  targets=()
  for b in "$BDIR"/fuzz_*; do [[ -f "$b" && -x "$b" ]] && targets+=("$(basename "$b")"); done
fi
n=${#targets[@]}
if [[ -n "${FUZZ_BUDGET:-}" ]]; then
  SECS=$(( FUZZ_BUDGET * PAR / (n > 0 ? n : 1) )); ((SECS >= 3)) || SECS=3
else
  SECS="${1:-${FUZZ_SECONDS:-10}}"
fi
echo "fuzz: built in $(( $(date +%s) - t0 ))s; $n targets x ${SECS}s, $PAR at a time"

run_one() { # run_one NAME -> exit status; output in $BDIR/NAME.log
  local name="$1" short="${1#fuzz_}" d
  local work="$BDIR/corpus/$name" art="$BDIR/artifacts/$name"
  mkdir -p "$work" "$art"
  local dirs=("$work")
  for d in "fuzz/corpus/$name" "fuzz/corpus/$short"; do [[ -d "$d" ]] && dirs+=("$d"); done
  local opts=(-max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$art/")
  for d in "fuzz/dict/$name.dict" "fuzz/dict/$short.dict"; do [[ -f "$d" ]] && { opts+=(-dict="$d"); break; }; done
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    timeout -k 10 $((SECS + 120)) "$BDIR/$name" "${opts[@]}" "${dirs[@]}" >"$BDIR/$name.log" 2>&1
}

passed=0; failed=0; failed_names=()
declare -A pid_of=()
finish() { # finish NAME PID
  local name="$1" pid="$2" runs
  if wait "$pid"; then
    runs=$(grep -Eo '^stat::number_of_executed_units: *[0-9]+' "$BDIR/$name.log" | grep -Eo '[0-9]+$' || echo '?')
    echo "ok   - $name ($runs runs)"
    passed=$((passed + 1))
  else
    echo "FAIL - $name (log $BDIR/$name.log, artifacts $BDIR/artifacts/$name)"
    grep -E 'ERROR: |SUMMARY: |runtime error' "$BDIR/$name.log" | head -n 5 || true
    failed=$((failed + 1)); failed_names+=("$name")
  fi
}
running=()
for name in "${targets[@]}"; do
  if [[ ! -x "$BDIR/$name" ]]; then echo "FAIL - $name: not built"; failed=$((failed + 1)); continue; fi
  run_one "$name" &
  pid_of[$name]=$!
  running+=("$name")
  if ((${#running[@]} >= PAR)); then
    finish "${running[0]}" "${pid_of[${running[0]}]}"
    running=("${running[@]:1}")
  fi
done
for name in "${running[@]}"; do finish "$name" "${pid_of[$name]}"; done

((failed == 0)) || echo "fuzz: failed targets: ${failed_names[*]}"
echo "fuzz: total $(( $(date +%s) - t0 ))s"
echo "fuzz: $passed passed, $failed failed"
((failed == 0))
