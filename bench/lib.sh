# shellcheck shell=bash
# Helpers shared by bench/run.sh and bench/clients.sh (sourced after tests/lib.sh and gr_init).

# bench_results_init: start $GR_TMP/results.txt (RES) with the run's date, load and machine.
bench_results_init() {
  RES="$GR_TMP/results.txt"
  : >"$RES"
  put date "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  put loadavg_start "$(cut -d' ' -f1 /proc/loadavg)"
  put machine "$(nproc)cpu-$(awk '/MemTotal/ {printf "%.0fGiB", $2/1048576}' /proc/meminfo)-$(uname -r)"
}
put() { echo "$1 $2" >>"$RES"; }
say() { log "$*"; }
calc() { awk "BEGIN {printf \"%.3f\", $1}"; }
# Stop the time-limit watchdog of tests/lib.sh (and its sleep) before gr_finish: a bench that
# ended in time must not be killed by it.
bench_stop_watchdog() {
  [[ -n "${GR_WATCHDOG_PID:-}" ]] || return 0
  local kids k
  kids="$(pgrep -P "$GR_WATCHDOG_PID" 2>/dev/null || true)"
  kill "$GR_WATCHDOG_PID" 2>/dev/null
  wait "$GR_WATCHDOG_PID" 2>/dev/null
  for k in $kids; do kill "$k" 2>/dev/null; done
  GR_WATCHDOG_PID=""
}

# bench_kcat_input FILE N SIZE: N lines of SIZE random alphanumeric bytes (+ newline) for
# kcat -P -l, the same bytes in every run (fixed seed, 257 distinct lines).
bench_kcat_input() {
  say "preparing $2 x $3 B lines for kcat -P"
  python3 - "$1" "$2" "$3" <<'PY'
import string, sys, random
path, n, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rnd = random.Random(42)
alpha = string.ascii_letters + string.digits
pool = ["".join(rnd.choice(alpha) for _ in range(size)).encode() + b"\n" for _ in range(257)]
with open(path, "wb", buffering=1 << 20) as f:
    for i in range(n):
        f.write(pool[i % 257])
PY
  (( $(stat -c %s "$1") == $2 * ($3 + 1) )) || die "kcat input file has the wrong size"
}

last_offset() { # last_offset TOPIC: offset of the last record in partition 0 (-1 if none)
  local o
  o="$(gr_timeout 60 kcat -C -b "$BOOTSTRAP" -t "$1" -p 0 -o -1 -e -q -f '%o\n' 2>/dev/null | tail -n1)"
  echo "${o:--1}"
}

# bench_parse_bootstrap "$@": the options every broker-driving bench script takes.
#   --bootstrap-server H:P (or BENCH_BOOTSTRAP=H:P): measure that broker or cluster (gregord,
#   Apache Kafka, several brokers: H:P,H:P) instead of starting one; BENCH_EXTERNAL gets it.
#   --name NAME (or BENCH_NAME, default "external"): the name its results carry.
# Without it BENCH_EXTERNAL is empty and the script starts its own brokers.
bench_parse_bootstrap() {
  BENCH_EXTERNAL="${BENCH_BOOTSTRAP:-}"
  BENCH_NAME="${BENCH_NAME:-external}"
  while (($#)); do
    case "$1" in
      --bootstrap-server) [[ $# -ge 2 ]] || { echo "--bootstrap-server needs H:P" >&2; exit 2; }; BENCH_EXTERNAL="$2"; shift ;;
      --bootstrap-server=*) BENCH_EXTERNAL="${1#*=}" ;;
      --name) [[ $# -ge 2 ]] || { echo "--name needs a value" >&2; exit 2; }; BENCH_NAME="$2"; shift ;;
      -h|--help) sed -n '2,/^set -/p' "$0" | sed '$d'; exit 0 ;;
      *) echo "unknown argument: $1 (--bootstrap-server H:P, --name NAME)" >&2; exit 2 ;;
    esac
    shift
  done
}

# bench_start_broker NAME [key=value ...]: gregord (--override key=value), kafka (server.properties
# lines) or, for any other name, the external broker BENCH_EXTERNAL; sets BOOTSTRAP and BPID
# (empty for an external broker: no CPU or RSS figures then). bench_stop_broker NAME stops it.
bench_start_broker() {
  local b="$1" kv ov=(); shift
  case "$b" in
    gregord)
      for kv in "$@"; do ov+=(--override "$kv"); done
      start_gregord "${ov[@]}"; BPID="$GR_GREGORD_PID" ;;
    kafka) start_ref_kafka "$@"; BPID="$(cat "$GR_REF_DIR/kafka.pid")" ;;
    *) [[ -n "${BENCH_EXTERNAL:-}" ]] || die "no broker named $b (gregord, kafka, or --bootstrap-server H:P)"
       BOOTSTRAP="$BENCH_EXTERNAL"; BPID="" ;;
  esac
}
bench_stop_broker() {
  case "$1" in
    gregord) stop_gregord; rm -rf "$GR_DATA_DIR" ;;
    kafka) stop_ref_kafka; rm -rf "$GR_REF_DIR/data" ;;
  esac
}
# bench_cpu_ticks PID: utime+stime of PID in clock ticks (0 without a PID)
bench_cpu_ticks() {
  [[ -n "${1:-}" ]] || { echo 0; return; }
  sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | awk '{print $12 + $13}'
}
# bench_no_external REASON "$@": for the benchmarks that need brokers they start themselves
# (gregord's /metrics, its RSS, its build options, TLS listeners with their own certificates):
# --bootstrap-server / BENCH_BOOTSTRAP is refused with REASON (exit 2), so that no one takes a
# run against another broker for a measurement of it.
bench_no_external() {
  local why="$1"; shift
  bench_parse_bootstrap "$@"
  [[ -z "$BENCH_EXTERNAL" ]] && return 0
  echo "$(basename "$0"): cannot measure an already running broker ($BENCH_EXTERNAL): $why" >&2
  exit 2
}
