#!/usr/bin/env bash
# A local S3-compatible server for the images (`lorekeep s3`: gofakes3 over files), started and
# stopped like DynamoDB Local:
#   s3-local.sh start PORT [DATA_DIR]   start in the background (a temporary directory without DATA_DIR)
#   s3-local.sh stop PORT
# It listens on LOREKEEP_BIND_HOST (default 127.0.0.1, this machine only); 0.0.0.0 lets a
# container reach it through Docker's bridge on Linux (README, "Trying the functions with sam local").
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
host=${LOREKEEP_BIND_HOST:-127.0.0.1}
# The address to reach it at from this machine (every interface includes loopback).
case "$host" in 0.0.0.0 | "::" | "") probe=127.0.0.1 ;; *) probe=$host ;; esac

# join_host_port HOST PORT: host:port, an IPv6 host in brackets.
join_host_port() {
  case "$1" in *:*) echo "[$1]:$2" ;; *) echo "$1:$2" ;; esac
}

start() {
  local port=$1 data=${2:-}
  mkdir -p "$root/.local/bin"
  if [ -z "$data" ]; then
    data=$(mktemp -d "${TMPDIR:-/tmp}/lorekeep-s3-$port.XXXXXX")
    echo "$data" >"$root/.local/s3-$port.tmp"
  fi
  local bin="$root/.local/bin/lorekeep-s3-$port"
  (cd "$root" && go build -o "$bin" ./cmd/lorekeep)
  "$bin" s3 --addr "$(join_host_port "$host" "$port")" --dir "$data" >"$root/.local/s3-$port.log" 2>&1 &
  echo $! >"$root/.local/s3-$port.pid"
  for _ in $(seq 1 150); do
    if (exec 3<>"/dev/tcp/$probe/$port") 2>/dev/null; then
      echo "S3 (lorekeep s3) on http://$(join_host_port "$probe" "$port") (listening on $host), data in $data" >&2
      return 0
    fi
    if ! kill -0 "$(cat "$root/.local/s3-$port.pid")" 2>/dev/null; then
      cat "$root/.local/s3-$port.log" >&2
      echo "lorekeep s3 failed to start" >&2
      return 1
    fi
    sleep 0.2
  done
  echo "lorekeep s3 did not open port $port in 30s" >&2
  return 1
}

stop() {
  local pidfile="$root/.local/s3-$1.pid" tmpfile="$root/.local/s3-$1.tmp"
  if [ -f "$pidfile" ]; then
    kill "$(cat "$pidfile")" 2>/dev/null || true
    rm -f "$pidfile"
  fi
  if [ -f "$tmpfile" ]; then
    rm -rf "$(cat "$tmpfile")"
    rm -f "$tmpfile"
  fi
  rm -f "$root/.local/bin/lorekeep-s3-$1"
}

case "${1:-}" in
  start) start "${2:?port}" "${3:-}" ;;
  stop) stop "${2:?port}" ;;
  *) echo "usage: $0 start PORT [DATA_DIR] | stop PORT" >&2; exit 2 ;;
esac
