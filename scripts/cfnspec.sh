#!/usr/bin/env bash
# CloudFormation's resource specification (AWS's published CloudFormation and SAM resource
# types), from the npm package that ships it, kept under .local/cfnspec for the template test
# (deploy/cfnspec_test.go). Only the JSON file is kept.
#   cfnspec.sh install    fetch it if missing (prints the file's path)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
version=2.72.1
dir="$root/.local/cfnspec"
file="$dir/specification-$version.json"
case "${1:-install}" in
  install)
    if [ ! -f "$file" ]; then
      echo "installing CloudFormation's resource specification (@aws-cdk/cfnspec $version)" >&2
      tmp=$(mktemp -d)
      trap 'rm -rf "$tmp"' EXIT
      tarball=$(cd "$tmp" && npm pack --silent "@aws-cdk/cfnspec@$version" 2>/dev/null | tail -n 1)
      tar -xzf "$tmp/$tarball" -C "$tmp" package/spec/specification.json package/LICENSE
      mkdir -p "$dir"
      cp "$tmp/package/LICENSE" "$dir/LICENSE"
      cp "$tmp/package/spec/specification.json" "$file.tmp"
      mv "$file.tmp" "$file"
    fi
    echo "$file"
    ;;
  *) echo "usage: $0 install" >&2; exit 2 ;;
esac
