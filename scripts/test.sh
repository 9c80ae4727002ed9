#!/usr/bin/env bash
# make test: every test against one in-memory DynamoDB Local, one S3-compatible server (for
# the images, `lorekeep s3` over a temporary directory) and one SQS-compatible server (for the
# webhooks' delivery queue, `lorekeep sqs`) that this script starts and stops.
set -euo pipefail
cd "$(dirname "$0")/.."
port=$(scripts/free-port.sh)
scripts/dynamodb-local.sh start "$port"
s3port=$(scripts/free-port.sh)
sqsport=0
trap 'scripts/dynamodb-local.sh stop "$port"; scripts/s3-local.sh stop "$s3port"; scripts/sqs-local.sh stop "$sqsport"' EXIT
LOREKEEP_BIND_HOST=127.0.0.1 scripts/s3-local.sh start "$s3port"
sqsport=$(scripts/free-port.sh) # once the local S3 holds its port
LOREKEEP_BIND_HOST=127.0.0.1 scripts/sqs-local.sh start "$sqsport"
export LOREKEEP_TEST_DYNAMODB="http://127.0.0.1:$port" LOREKEEP_TEST_S3="http://127.0.0.1:$s3port" LOREKEEP_TEST_SQS="http://127.0.0.1:$sqsport"
# QUICK=1 (targeted runs while working on a branch) skips the module-wide checks below.
if [ -z "${QUICK:-}" ]; then
go vet ./...
# go.mod and go.sum say exactly what the code needs.
go mod tidy -diff
fi
# The docs page test renders /docs (Redoc, shipped in the binaries) in Debian's Chromium.
if ! command -v chromium >/dev/null 2>&1; then
  echo "installing Chromium (Debian's chromium) for the docs page test" >&2
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq chromium >&2
fi
# The MCP endpoint's test drives it with the TypeScript SDK's client (npm): Node.js from
# Debian when it is missing, the client's pinned packages (package-lock.json) when they are.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "installing Node.js (Debian's nodejs and npm) for the MCP TypeScript client test" >&2
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq nodejs npm >&2
fi
tsclient=shared/mcp/testdata/tsclient
if [ ! -f "$tsclient/node_modules/@modelcontextprotocol/sdk/package.json" ]; then
  echo "installing the MCP TypeScript SDK for its client test (npm ci in $tsclient)" >&2
  (cd "$tsclient" && npm ci --silent >&2)
fi
[ -n "${QUICK:-}" ] || unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './.local/*'))
if [ -n "${unformatted:-}" ]; then echo "gofmt needed: $unformatted" >&2; exit 1; fi
go test -count=1 "${@:-./...}"
