#!/usr/bin/env bash
# The docs page's renderer: Redoc's standalone bundle from the npm registry, kept on disk under
# .local/docs so that `lorekeep serve` serves /docs offline. Never part of a Lambda binary.
#   docs.sh install    fetch it if missing (prints the directory)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
version=2.5.4
dir="$root/.local/docs"
case "${1:-install}" in
  install)
    if [ ! -f "$dir/redoc-$version.standalone.js" ]; then
      echo "installing Redoc $version for /docs" >&2
      tmp=$(mktemp -d)
      trap 'rm -rf "$tmp"' EXIT
      tarball=$(cd "$tmp" && npm pack --silent "redoc@$version" 2>/dev/null | tail -n 1)
      tar -xzf "$tmp/$tarball" -C "$tmp" package/bundles/redoc.standalone.js package/LICENSE
      mkdir -p "$dir"
      cp "$tmp/package/bundles/redoc.standalone.js" "$dir/redoc-$version.standalone.js"
      cp "$tmp/package/LICENSE" "$dir/REDOC-LICENSE"
    fi
    ln -sf "redoc-$version.standalone.js" "$dir/redoc.standalone.js"
    echo "$dir"
    ;;
  *) echo "usage: $0 install" >&2; exit 2 ;;
esac
