#!/usr/bin/env bash
# make test: every test against one in-memory DynamoDB Local that this script starts and stops.
set -euo pipefail
cd "$(dirname "$0")/.."
port=$(scripts/free-port.sh)
scripts/dynamodb-local.sh start "$port"
trap 'scripts/dynamodb-local.sh stop "$port"' EXIT
export LOREKEEP_TEST_DYNAMODB="http://127.0.0.1:$port"
go vet ./...
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './.local/*'))
if [ -n "$unformatted" ]; then echo "gofmt needed: $unformatted" >&2; exit 1; fi
go test -count=1 "${@:-./...}"
