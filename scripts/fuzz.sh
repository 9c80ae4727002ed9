#!/usr/bin/env bash
# make fuzz: runs every Go fuzz target of the repository (every `func FuzzXxx(f *testing.F)` in a
# _test.go file of any package, found here, so a new target needs no change to this script) for
# FUZZTIME each (default 20s), against one DynamoDB Local that this script starts and stops (the
# targets that drive the HTTP API need it). Fails if any target fails; a failing input is kept
# by Go in the package's testdata/fuzz/<FuzzName>/, so that `make test` replays it from then on.
#   FUZZTIME          time per target (go test -fuzztime: 20s, 1m, or 5000x)
#   FUZZMINIMIZETIME  time to minimise a failing or new input (default 10s)
#   FUZZ_RUN          a regular expression: only the targets whose name matches
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-20s}
minimize=${FUZZMINIMIZETIME:-10s}
only=${FUZZ_RUN:-.}

targets=()
while read -r dir pkg; do
  [ -n "$dir" ] || continue
  shopt -s nullglob
  files=("$dir"/*_test.go)
  shopt -u nullglob
  [ ${#files[@]} -gt 0 ] || continue
  for name in $(sed -nE 's/^func (Fuzz[A-Za-z0-9_]*)\(\w+ \*testing\.F\).*/\1/p' "${files[@]}" | sort -u); do
    if [[ $name =~ $only ]]; then targets+=("$pkg $name"); fi
  done
done < <(go list -f '{{.Dir}} {{.ImportPath}}' ./...)
if [ ${#targets[@]} -eq 0 ]; then
  echo "fuzz: no Fuzz targets found" >&2
  exit 1
fi

port=$(scripts/free-port.sh)
scripts/dynamodb-local.sh start "$port"
trap 'scripts/dynamodb-local.sh stop "$port"' EXIT
export LOREKEEP_TEST_DYNAMODB="http://127.0.0.1:$port"

failed=()
for t in "${targets[@]}"; do
  read -r pkg name <<<"$t"
  echo "== $name ($pkg), $fuzztime"
  if ! go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" -fuzzminimizetime "$minimize" "$pkg"; then
    failed+=("$name ($pkg)")
  fi
done
echo "fuzz: ${#targets[@]} targets, ${#failed[@]} failed"
for f in "${failed[@]}"; do echo "FAIL $f"; done
[ ${#failed[@]} -eq 0 ]
