#!/usr/bin/env bash
# Runs sake/auth/server/upstream against an OpenID provider written
# elsewhere (the module in sake/auth/server/upstream/interop): the example
# provider of github.com/zitadel/oidc/v3, started in the tests, with the
# person's sign-in there and the consent at Sake driven by headless
# Chromium (scripts/chromium.sh), and examples/oauth started with
# -oidc-issuer at it. Prints the failures and the counts, and appends
# "passed failed" to $SAKE_CONFORMANCE_COUNTS when it is set.
# Usage: scripts/upstream-interop.sh
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
cache="${SAKE_CACHE:-$root/.cache}"
mkdir -p "$cache"
export GOFLAGS="${GOFLAGS:-} -buildvcs=false"

cd sake/auth/server/upstream/interop
go vet ./...
sc="$(go env GOPATH)/bin/staticcheck"
if [ -x "$sc" ]; then "$sc" ./...; fi
log="$cache/upstream-interop.txt"
set +e
go test -race -count=1 -v ./... >"$log" 2>&1
status=$?
set -e
grep -E '^(ok|FAIL|panic:)|^\s+--- FAIL|^\s+\S+_test\.go:[0-9]+:' "$log" || true
passed=$(grep -cE '^\s*--- PASS' "$log" || true)
failed=$(grep -cE '^\s*--- FAIL' "$log" || true)
skipped=$(grep -cE '^\s*--- SKIP' "$log" || true)
echo "upstream interop: $passed ok, $failed failing, $skipped skipped (log in $log)"
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
if [ -n "${SAKE_CONFORMANCE_COUNTS:-}" ]; then echo "$passed $failed" >>"$SAKE_CONFORMANCE_COUNTS"; fi
exit $status
