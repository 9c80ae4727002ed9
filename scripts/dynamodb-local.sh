#!/usr/bin/env bash
# DynamoDB Local for development and tests: AWS's own jar, shipped inside the npm package
# amplify-dynamodb-simulator (fetched with `npm pack`, so none of its JavaScript dependencies).
#   dynamodb-local.sh install                 Java (from apt, if missing) and the jar
#   dynamodb-local.sh start PORT [DATA_DIR]   start in the background (in memory without DATA_DIR)
#   dynamodb-local.sh stop PORT
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
pkg_version=2.9.30
dir="$root/.local/dynamodb"
emulator="$dir/package/emulator"

install() {
  if ! command -v java >/dev/null 2>&1; then
    echo "installing Java (default-jre-headless)" >&2
    sudo_cmd=""
    [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq default-jre-headless >&2
  fi
  if [ ! -f "$emulator/DynamoDBLocal.jar" ]; then
    echo "installing DynamoDB Local (amplify-dynamodb-simulator@$pkg_version)" >&2
    mkdir -p "$dir"
    tarball=$(cd "$dir" && npm pack --silent "amplify-dynamodb-simulator@$pkg_version" 2>/dev/null | tail -n 1)
    tar -xzf "$dir/$tarball" -C "$dir"
    rm -f "$dir/$tarball"
  fi
  test -f "$emulator/DynamoDBLocal.jar"
}

start() {
  local port=$1 data=${2:-}
  install
  local args=(-port "$port" -disableTelemetry)
  if [ -n "$data" ]; then
    mkdir -p "$data"
    args+=(-sharedDb -dbPath "$data")
  else
    args+=(-inMemory -sharedDb)
  fi
  mkdir -p "$root/.local"
  (cd "$emulator" && exec java -Xmx1g -Djava.library.path=./DynamoDBLocal_lib -jar DynamoDBLocal.jar "${args[@]}") \
    >"$root/.local/dynamodb-$port.log" 2>&1 &
  echo $! >"$root/.local/dynamodb-$port.pid"
  for _ in $(seq 1 150); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "DynamoDB Local on http://127.0.0.1:$port" >&2
      return 0
    fi
    if ! kill -0 "$(cat "$root/.local/dynamodb-$port.pid")" 2>/dev/null; then
      cat "$root/.local/dynamodb-$port.log" >&2
      echo "DynamoDB Local failed to start" >&2
      return 1
    fi
    sleep 0.2
  done
  echo "DynamoDB Local did not open port $port in 30s" >&2
  return 1
}

stop() {
  local pidfile="$root/.local/dynamodb-$1.pid"
  [ -f "$pidfile" ] || return 0
  kill "$(cat "$pidfile")" 2>/dev/null || true
  rm -f "$pidfile"
}

case "${1:-}" in
  install) install ;;
  start) start "${2:?port}" "${3:-}" ;;
  stop) stop "${2:?port}" ;;
  *) echo "usage: $0 install | start PORT [DATA_DIR] | stop PORT" >&2; exit 2 ;;
esac
