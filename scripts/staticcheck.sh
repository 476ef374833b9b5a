#!/usr/bin/env bash
# Installs staticcheck (a pinned release, from the Go module proxy) if it
# is missing, then runs it on the whole module. Usage: scripts/staticcheck.sh
set -euo pipefail
cd "$(dirname "$0")/.."
version=2026.2.2   # the release name; its module version is below
module_version=v0.8.2
bin="$(go env GOPATH)/bin/staticcheck"
if ! [ -x "$bin" ] || ! "$bin" -version 2>/dev/null | grep -q "$version"; then
  go install "honnef.co/go/tools/cmd/staticcheck@$module_version"
fi
"$bin" ./...
