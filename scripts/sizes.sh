#!/usr/bin/env bash
# make sizes: builds every Lambda as `sam build` does (linux/arm64, stripped) and prints its
# bootstrap's size, raw and zipped (what sam deploy uploads), against Lambda's own limits (250 MB
# unzipped, 50 MB zipped). A function's size is otherwise a cold-start matter: `make bench`'s
# BenchmarkColdStart measures that (DESIGN 6). Exits 1 if one is over a limit.
set -euo pipefail
cd "$(dirname "$0")/.."
make -s build >/dev/null
status=0
printf '%-26s %12s %12s  %s\n' function bytes zipped verdict
for dir in .aws-sam/build/*/; do
  f=$(basename "$dir")
  [ -f "$dir/bootstrap" ] || continue
  size=$(stat -c %s "$dir/bootstrap")
  zipped=$(gzip -6 -c "$dir/bootstrap" | wc -c)
  verdict=ok
  if [ "$size" -gt $((250 << 20)) ] || [ "$zipped" -gt $((50 << 20)) ]; then verdict="over Lambda's limits"; status=1; fi
  printf '%-26s %12s %12s  %s\n' "$f" "$size" "$zipped" "$verdict"
done
exit $status
