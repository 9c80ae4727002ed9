#!/usr/bin/env bash
# The docs page's renderer: Redoc's standalone bundle and its licence, vendored under
# shared/apidoc/docs, which the binaries serving the public routes embed (the meta function on
# AWS, lorekeep serve locally): the page fetches nothing from elsewhere. This script fetches a
# release from the npm registry to update them.
#   docs.sh vendor    replace the vendored bundle with REDOC_VERSION's (default below)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
version=${REDOC_VERSION:-2.5.4}
dir="$root/shared/apidoc/docs"
case "${1:-}" in
  vendor)
    echo "vendoring Redoc $version into $dir" >&2
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    tarball=$(cd "$tmp" && npm pack --silent "redoc@$version" 2>/dev/null | tail -n 1)
    tar -xzf "$tmp/$tarball" -C "$tmp" package/bundles/redoc.standalone.js package/LICENSE
    cp "$tmp/package/bundles/redoc.standalone.js" "$dir/redoc.standalone.js"
    cp "$tmp/package/LICENSE" "$dir/REDOC-LICENSE"
    ;;
  *) echo "usage: $0 vendor" >&2; exit 2 ;;
esac
