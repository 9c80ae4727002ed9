#!/usr/bin/env bash
# make sizes: builds every Lambda as `sam build` does (linux/arm64, stripped) and prints its size
# against the budget (10 MB = 10,000,000 bytes, SIZE_BUDGET to change). Exits 1 if one is over.
set -euo pipefail
cd "$(dirname "$0")/.."
budget=${SIZE_BUDGET:-10000000}
make -s build >/dev/null
status=0
printf '%-26s %12s  %s\n' function bytes verdict
for dir in .aws-sam/build/*/; do
  f=$(basename "$dir")
  [ -f "$dir/bootstrap" ] || continue
  size=$(stat -c %s "$dir/bootstrap")
  verdict=ok
  if [ "$size" -gt "$budget" ]; then verdict="OVER by $((size - budget))"; status=1; fi
  printf '%-26s %12s  %s\n' "$f" "$size" "$verdict"
done
exit $status
