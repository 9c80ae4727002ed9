#!/usr/bin/env bash
# make local-invoke: `sam local invoke` of every sample event in events/ without Docker. Each
# function is built for this machine by its Makefile target and run under the official Lambda
# Runtime Interface Emulator with env.json's variables, pointed at the DynamoDB Local and the
# local S3 and the local SQS started here (deploy's TestLocalInvoke; `make test` runs it too). One line per
# event, then "N passed, M failed"; the exit status is non-zero when any failed.
set -euo pipefail
cd "$(dirname "$0")/.."
port=$(scripts/free-port.sh)
s3port=$(scripts/free-port.sh)
sqsport=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/lorekeep-invoke.XXXXXX")
trap 'scripts/dynamodb-local.sh stop "$port"; scripts/s3-local.sh stop "$s3port"; scripts/sqs-local.sh stop "$sqsport"; rm -rf "$tmp"' EXIT
scripts/dynamodb-local.sh start "$port"
LOREKEEP_BIND_HOST=127.0.0.1 scripts/s3-local.sh start "$s3port"
sqsport=$(scripts/free-port.sh) # once the local S3 holds its port
LOREKEEP_BIND_HOST=127.0.0.1 scripts/sqs-local.sh start "$sqsport"
export LOREKEEP_TEST_DYNAMODB="http://127.0.0.1:$port" LOREKEEP_TEST_S3="http://127.0.0.1:$s3port" LOREKEEP_TEST_SQS="http://127.0.0.1:$sqsport"
# The test binary run directly prints the lines as they come (go test would buffer them).
go test -c -o "$tmp/deploy.test" ./deploy/
(cd deploy && "$tmp/deploy.test" -test.count=1 -test.run '^TestLocalInvoke$' "$@")
