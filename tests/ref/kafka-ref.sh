#!/usr/bin/env bash
# Reference Apache Kafka (4.4.0, KRaft, one combined broker+controller node on 127.0.0.1).
# The behaviour gregord must match. Jars come from Maven Central through tests/ref/pom.xml.
#
#   tests/ref/kafka-ref.sh setup                 resolve the jars (idempotent, ~10 s first time)
#   tests/ref/kafka-ref.sh start <dir> <port> [key=value ...]
#        format <dir>/data with a random cluster id (4.4.0's default features: share.version=2;
#        KAFKA_REF_FEATURES="share.version=1 ..." passes --feature to the format), start the
#        broker in the background listening on 127.0.0.1:<port>, wait until it serves,
#        write <dir>/kafka.pid. Extra key=value pairs are appended to server.properties
#        (a later line wins; @CONTROLLER_PORT@ stands for the controller listener's port).
#        Logs: <dir>/server.log (log4j), <dir>/stdout.log.
#   tests/ref/kafka-ref.sh stop <dir>            SIGTERM the PID in <dir>/kafka.pid, wait, SIGKILL after 30 s
#   tests/ref/kafka-ref.sh kill9 <dir>           SIGKILL, wait
#   tests/ref/kafka-ref.sh restart <dir>         start again on the same data and ports (no format)
#   tests/ref/kafka-ref.sh tool <dir> <class> [args...]   run a Kafka tool class with the same classpath
#
# Environment: KAFKA_REF_HEAP (default -Xmx512m), KAFKA_REF_START_TIMEOUT (s, default 120),
#              KAFKA_REF_REQUEST_LOG=1 (every request logged to <dir>/requests.log),
#              JAVA (default: java on PATH).
set -euo pipefail

REF_HOME="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
LIB="$REF_HOME/target/lib"
JAVA="${JAVA:-java}"
HEAP="${KAFKA_REF_HEAP:--Xmx512m -Xms128m}"
START_TIMEOUT="${KAFKA_REF_START_TIMEOUT:-120}"

die() { echo "kafka-ref: $*" >&2; exit 1; }

setup() {
  if [[ -f "$LIB/.stamp" && "$LIB/.stamp" -nt "$REF_HOME/pom.xml" ]]; then return 0; fi
  command -v mvn >/dev/null || die "mvn not found (scripts/install-deps.sh installs it)"
  rm -rf "$LIB"
  (cd "$REF_HOME" && timeout 600 mvn -B -q -Dstyle.color=never dependency:copy-dependencies) \
    || die "maven could not resolve tests/ref/pom.xml"
  touch "$LIB/.stamp"
}

classpath() {
  [[ -f "$LIB/.stamp" ]] || setup
  echo "$LIB/*"
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

alive() { [[ -n "${1:-}" && -e "/proc/$1" ]] && ! grep -q '^[^ ]* ([^)]*) Z' "/proc/$1/stat" 2>/dev/null; }

random_cluster_id() {
  local id
  while :; do
    id="$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n')"
    [[ "$id" != -* ]] && { echo "$id"; return; }
  done
}

write_log4j() {
  local dir="$1"
  cat >"$dir/log4j2.properties" <<EOF
status = warn
appender.file.type = File
appender.file.name = FILE
appender.file.fileName = $dir/server.log
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
appender.console.type = Console
appender.console.name = STDOUT
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = [%d] %p %m (%c)%n
appender.console.filter.threshold.type = ThresholdFilter
appender.console.filter.threshold.level = error
rootLogger.level = info
rootLogger.appenderRef.file.ref = FILE
rootLogger.appenderRef.console.ref = STDOUT
logger.kafka.name = kafka
logger.kafka.level = info
logger.state.name = state.change.logger
logger.state.level = warn
EOF
  # KAFKA_REF_REQUEST_LOG=1: every completed request in <dir>/requests.log (kafka.request.logger at
  # DEBUG: its header names the API key and version), for tests that count requests by API.
  if [[ -n "${KAFKA_REF_REQUEST_LOG:-}" ]]; then
    cat >>"$dir/log4j2.properties" <<EOF
appender.requests.type = File
appender.requests.name = REQUESTS
appender.requests.fileName = $dir/requests.log
appender.requests.layout.type = PatternLayout
appender.requests.layout.pattern = %m%n
logger.request.name = kafka.request.logger
logger.request.level = debug
logger.request.additivity = false
logger.request.appenderRef.requests.ref = REQUESTS
EOF
  fi
}

jvm() { # jvm <dir> <main class> args...
  local dir="$1"; shift
  # shellcheck disable=SC2086
  "$JAVA" $HEAP -XX:+UseG1GC -XX:+ExitOnOutOfMemoryError -Djava.awt.headless=true \
    -Dlog4j2.configurationFile="$dir/log4j2.properties" -Dkafka.logs.dir="$dir" \
    -cp "$(classpath)" "$@"
}

launch() { # launch <dir>: start the formatted node, wait until it serves
  local dir="$1" port pid t0 deadline
  port="$(cat "$dir/port")"
  port_open "$port" && die "port $port already in use"
  t0=$(date +%s%N)
  : >"$dir/server.log"
  # setsid: the broker gets its own process group, never our terminal's signals.
  setsid "$JAVA" $HEAP -XX:+UseG1GC -XX:+ExitOnOutOfMemoryError -Djava.awt.headless=true \
    -Dlog4j2.configurationFile="$dir/log4j2.properties" -Dkafka.logs.dir="$dir" \
    -cp "$(classpath)" kafka.Kafka "$dir/server.properties" >"$dir/stdout.log" 2>&1 </dev/null &
  pid=$!
  echo "$pid" >"$dir/kafka.pid"
  deadline=$(( $(date +%s) + START_TIMEOUT ))
  while :; do
    if ! alive "$pid"; then
      tail -n 30 "$dir/stdout.log" "$dir/server.log" >&2 || true
      rm -f "$dir/kafka.pid"
      die "broker exited during start-up (logs in $dir)"
    fi
    if port_open "$port" && grep -q 'Kafka Server started' "$dir/server.log" 2>/dev/null; then
      break
    fi
    if (( $(date +%s) >= deadline )); then
      kill -9 "$pid" 2>/dev/null || true
      rm -f "$dir/kafka.pid"
      tail -n 30 "$dir/server.log" >&2 || true
      die "broker not serving on 127.0.0.1:$port after ${START_TIMEOUT}s (logs in $dir)"
    fi
    sleep 0.2
  done
  local ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  printf 'kafka-ref: pid %s serving 127.0.0.1:%s (started in %d.%03d s)\n' \
    "$pid" "$port" $((ms / 1000)) $((ms % 1000)) >&2
}

start() {
  local dir="${1:?usage: start <dir> <port> [key=value...]}" port="${2:?usage: start <dir> <port>}"
  shift 2
  setup
  mkdir -p "$dir"
  dir="$(cd "$dir" && pwd)"
  [[ -f "$dir/kafka.pid" ]] && alive "$(cat "$dir/kafka.pid")" && die "already running in $dir"
  local cport cid
  cport="$(free_port)"
  [[ "$cport" == "$port" ]] && cport="$(free_port)"
  cid="$(random_cluster_id)"
  rm -rf "$dir/data"
  echo "$port" >"$dir/port"
  echo "$cport" >"$dir/controller.port"
  echo "$cid" >"$dir/cluster.id"
  write_log4j "$dir"
  cat >"$dir/server.properties" <<EOF
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$cport
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$cport
advertised.listeners=PLAINTEXT://127.0.0.1:$port
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$dir/data
num.partitions=1
default.replication.factor=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
share.coordinator.state.topic.num.partitions=1
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=true
EOF
  # KAFKA_REF_SASL_PORT=N adds a SASL_PLAINTEXT listener on that port (test_sasl.sh; its
  # sasl.* settings come as key=value arguments). Brokers and the controller keep PLAINTEXT.
  if [[ -n "${KAFKA_REF_SASL_PORT:-}" ]]; then
    cat >>"$dir/server.properties" <<EOF
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$cport,SASL_PLAINTEXT://127.0.0.1:$KAFKA_REF_SASL_PORT
advertised.listeners=PLAINTEXT://127.0.0.1:$port,SASL_PLAINTEXT://127.0.0.1:$KAFKA_REF_SASL_PORT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT
EOF
  fi
  local kv
  # @CONTROLLER_PORT@ in an extra setting is the controller port chosen here (a listeners=
  # line that adds a listener must repeat the controller's).
  for kv in "$@"; do echo "${kv//@CONTROLLER_PORT@/$cport}" >>"$dir/server.properties"; done
  local out
  local feats=() f
  for f in ${KAFKA_REF_FEATURES:-}; do feats+=(--feature "$f"); done
  if ! out="$(jvm "$dir" kafka.tools.StorageTool format -t "$cid" -c "$dir/server.properties" \
        "${feats[@]}" 2>&1)"; then
    echo "$out" >&2
    die "kafka-storage format failed"
  fi
  launch "$dir"
}

restart() {
  local dir="${1:?usage: restart <dir>}"
  dir="$(cd "$dir" && pwd)"
  [[ -f "$dir/server.properties" ]] || die "$dir was never started"
  [[ -f "$dir/kafka.pid" ]] && alive "$(cat "$dir/kafka.pid")" && die "already running in $dir"
  launch "$dir"
}

stop() { # stop <dir> [signal]
  local dir="${1:?usage: stop <dir>}" sig="${2:-TERM}" pid i
  [[ -f "$dir/kafka.pid" ]] || return 0
  pid="$(cat "$dir/kafka.pid")"
  if alive "$pid"; then
    kill "-$sig" "$pid" 2>/dev/null || true
    for ((i = 0; i < 300; i++)); do alive "$pid" || break; sleep 0.1; done
    if alive "$pid"; then
      echo "kafka-ref: pid $pid still alive after 30 s, SIGKILL" >&2
      kill -9 "$pid" 2>/dev/null || true
      for ((i = 0; i < 100; i++)); do alive "$pid" || break; sleep 0.1; done
    fi
  fi
  rm -f "$dir/kafka.pid"
}

tool() {
  local dir="${1:?usage: tool <dir> <class> [args]}"; shift
  dir="$(cd "$dir" && pwd)"
  [[ -f "$dir/log4j2.properties" ]] || write_log4j "$dir"
  HEAP="-Xmx256m" jvm "$dir" "$@"
}

cmd="${1:-}"; shift || true
case "$cmd" in
  setup) setup ;;
  classpath) classpath ;;
  start) start "$@" ;;
  restart) restart "$@" ;;
  stop) stop "$@" ;;
  kill9) stop "${1:?usage: kill9 <dir>}" KILL ;;
  tool) tool "$@" ;;
  *) sed -n '2,17p' "$0" >&2; exit 2 ;;
esac
