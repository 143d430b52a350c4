#!/usr/bin/env bash
# bench/plots.sh: PNG and SVG plots of the benchmark results (the end of `make bench`).
#   bash bench/plots.sh [RESULTS_DIR [OUT_DIR]]
# RESULTS_DIR defaults to $GR_BUILD_DIR/bench-results (latest.json, clients.json, capacity.json,
# metrics_cost.json: whichever exist), OUT_DIR to $GR_BUILD_DIR/bench-plots.
# matplotlib and its dependencies, pinned in bench/requirements.txt, go into their own venv
# (BENCH_PLOT_VENV, default ~/.cache/gregor/bench-venv-pyX.Y-<hash of requirements>), created on
# first use with the ordinary pip client; the test venv is not touched. BENCH_PLOT_FORMATS="png"
# writes PNG only (docs/images: bash bench/plots.sh docs/images/data docs/images).
set -euo pipefail
SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${GR_BUILD_DIR:-$SRC/build}"
RESULTS="${1:-$BUILD/bench-results}"
OUT="${2:-$BUILD/bench-plots}"
REQ="$SRC/bench/requirements.txt"
h="$(sha256sum "$REQ" | cut -c1-12)"
pyv="$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
VENV="${BENCH_PLOT_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/gregor/bench-venv-py$pyv-$h}"
if ! "$VENV/bin/python" -c 'import matplotlib' 2>/dev/null; then
  echo "plots: creating $VENV (pip install -r bench/requirements.txt)" >&2
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check -r "$REQ"
fi
mkdir -p "$OUT"
exec "$VENV/bin/python" "$SRC/bench/plot.py" "$RESULTS" "$OUT"
