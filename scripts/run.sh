#!/usr/bin/env bash
# make run: DynamoDB Local (data kept in .local/data, or LOREKEEP_DATA_DIR), the table, a demo campaign and token, and
# every family served on 127.0.0.1:3000 with the same handlers as the Lambdas.
set -euo pipefail
cd "$(dirname "$0")/.."
port=${DYNAMODB_LOCAL_PORT:-8000}
addr=${ADDR:-127.0.0.1:3000}
data=${LOREKEEP_DATA_DIR:-$PWD/.local/data}
cleanup=()
trap 'for c in "${cleanup[@]}"; do $c; done' EXIT
if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
  scripts/dynamodb-local.sh start "$port" "$data"
  cleanup+=("scripts/dynamodb-local.sh stop $port")
fi
export DYNAMODB_ENDPOINT="http://127.0.0.1:$port" TABLE_NAME=${TABLE_NAME:-lorekeep}
# Images: a local S3-compatible server (lorekeep s3), its files beside DynamoDB Local's data;
# readers fetch the pictures from it directly (CloudFront's part on AWS). It listens on
# LOREKEEP_BIND_HOST (default 127.0.0.1; 0.0.0.0 for sam local's containers on Linux).
s3port=${S3_LOCAL_PORT:-9000}
bind=${LOREKEEP_BIND_HOST:-127.0.0.1}
case "$bind" in 0.0.0.0 | "::") near=127.0.0.1 ;; *) near=$bind ;; esac
if ! (exec 3<>"/dev/tcp/$near/$s3port") 2>/dev/null; then
  LOREKEEP_BIND_HOST=$bind scripts/s3-local.sh start "$s3port" "$data/s3"
  cleanup+=("scripts/s3-local.sh stop $s3port")
fi
export S3_ENDPOINT="http://$near:$s3port" IMAGE_BUCKET=${IMAGE_BUCKET:-lorekeep-images}
# Webhooks' delivery queue: a local SQS-compatible server (lorekeep sqs, in memory), on
# LOREKEEP_BIND_HOST too; serve makes the queue (the table's name and -webhooks.fifo).
sqsport=${SQS_LOCAL_PORT:-9324}
if ! (exec 3<>"/dev/tcp/$near/$sqsport") 2>/dev/null; then
  LOREKEEP_BIND_HOST=$bind scripts/sqs-local.sh start "$sqsport"
  cleanup+=("scripts/sqs-local.sh stop $sqsport")
fi
export SQS_ENDPOINT="http://$near:$sqsport"
export IMAGE_BASE_URL="$S3_ENDPOINT/$IMAGE_BUCKET"
# Webhooks to http:// and to this machine (a receiver on 127.0.0.1): local use only.
export WEBHOOKS_ALLOW_HTTP=${WEBHOOKS_ALLOW_HTTP:-1} WEBHOOKS_ALLOW_LOOPBACK=${WEBHOOKS_ALLOW_LOOPBACK:-1}
go build -o .local/bin/lorekeep ./cmd/lorekeep
demo=$(.local/bin/lorekeep demo)
cid=$(echo "$demo" | sed -E 's/.*"campaign_id":([0-9]+).*/\1/')
token=$(echo "$demo" | sed -E 's/.*"token":"([^"]+)".*/\1/')
cat <<MSG

Lorekeep is serving on http://$addr
  campaign id: $cid
  token:       $token

Docs:        http://$addr/docs  (OpenAPI: http://$addr/api/1.0/openapi.json)

Try:
  curl -s -H "Authorization: Bearer $token" http://$addr/api/1.0/campaigns/$cid/locations

Administer this server's data from another shell (see README, "Administration"):
  export DYNAMODB_ENDPOINT=$DYNAMODB_ENDPOINT TABLE_NAME=$TABLE_NAME
  .local/bin/lorekeep member add --campaign $cid --user bard --role member

MSG
.local/bin/lorekeep serve --addr "$addr"
