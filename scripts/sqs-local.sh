#!/usr/bin/env bash
# A local SQS-compatible server for the webhooks' delivery queue (`lorekeep sqs`: goaws, in
# memory), started and stopped like DynamoDB Local and the local S3:
#   sqs-local.sh start PORT   start in the background
#   sqs-local.sh stop PORT
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
  local port=$1
  mkdir -p "$root/.local/bin"
  local bin="$root/.local/bin/lorekeep-sqs-$port"
  (cd "$root" && go build -o "$bin" ./cmd/lorekeep)
  "$bin" sqs --addr "$(join_host_port "$host" "$port")" >"$root/.local/sqs-$port.log" 2>&1 &
  echo $! >"$root/.local/sqs-$port.pid"
  for _ in $(seq 1 150); do
    if (exec 3<>"/dev/tcp/$probe/$port") 2>/dev/null; then
      echo "SQS (lorekeep sqs) on http://$(join_host_port "$probe" "$port") (listening on $host)" >&2
      return 0
    fi
    if ! kill -0 "$(cat "$root/.local/sqs-$port.pid")" 2>/dev/null; then
      cat "$root/.local/sqs-$port.log" >&2
      echo "lorekeep sqs failed to start" >&2
      return 1
    fi
    sleep 0.2
  done
  echo "lorekeep sqs did not open port $port in 30s" >&2
  return 1
}

stop() {
  local pidfile="$root/.local/sqs-$1.pid"
  if [ -f "$pidfile" ]; then
    kill "$(cat "$pidfile")" 2>/dev/null || true
    rm -f "$pidfile"
  fi
  rm -f "$root/.local/bin/lorekeep-sqs-$1"
}

case "${1:-}" in
  start) start "${2:?port}" ;;
  stop) stop "${2:?port}" ;;
  *) echo "usage: $0 start PORT | stop PORT" >&2; exit 2 ;;
esac
