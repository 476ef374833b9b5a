#!/usr/bin/env bash
# Runs the official MCP conformance suite through examples/gateway: a
# configuration mounts examples/everything over Streamable HTTP under the
# empty namespace and examples/quickstart over stdio under "qs", and
# scripts/conformance.sh runs every one of its runs (both revisions,
# scored and not scored, the tasks extension, the header and schema
# scenarios, the skills scenarios) against the gateway's URL.
# examples/everything alone passes all of them, so any failure is a
# difference the gateway makes, and fails the script. Before the suite,
# the script checks that tools/list also offers qs_greet and that it
# answers.
#
# SAKE_CONFORMANCE_REVISIONS and SAKE_CONFORMANCE_COUNTS pass through to
# scripts/conformance.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
cache="${SAKE_CACHE:-$PWD/.cache}"
mkdir -p "$cache/bin"
go build -o "$cache/bin/everything" ./examples/everything
go build -o "$cache/bin/quickstart" ./examples/quickstart
go build -o "$cache/bin/gateway" ./examples/gateway
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()' 2>/dev/null || echo "$1"
}
await_port() { # port pid log
  for _ in $(seq 1 200); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
    if ! kill -0 "$2" 2>/dev/null; then echo "it exited; its log:"; cat "$3"; exit 1; fi
    sleep 0.1
  done
  echo "nothing listens on $1; the log:"; cat "$3"; exit 1
}
everything_port=$(free_port 3741)
"$cache/bin/everything" -http "127.0.0.1:$everything_port" 2>"$cache/gateway-everything.log" &
everything=$!
gateway=""
trap 'kill $everything $gateway 2>/dev/null || true; wait $everything $gateway 2>/dev/null || true' EXIT
await_port "$everything_port" "$everything" "$cache/gateway-everything.log"
config="$cache/gateway.json"
cat >"$config" <<JSON
{
  "mcpServers": {
    "everything": { "url": "http://127.0.0.1:$everything_port/mcp", "namespace": "" },
    "qs": { "command": "$cache/bin/quickstart" }
  }
}
JSON
gateway_port=$(free_port 3742)
"$cache/bin/gateway" -config "$config" -http "127.0.0.1:$gateway_port" 2>"$cache/gateway.log" &
gateway=$!
await_port "$gateway_port" "$gateway" "$cache/gateway.log"
url="http://127.0.0.1:$gateway_port/mcp"
echo "== examples/everything (HTTP, merged) and examples/quickstart (stdio, qs) behind examples/gateway at $url"
go build -o "$cache/bin/sake" ./cmd/sake
if ! "$cache/bin/sake" inspect "$url" >"$cache/gateway-inspect.txt" 2>&1 || ! grep -q 'qs_greet' "$cache/gateway-inspect.txt"; then
  echo "tools/list through the gateway does not offer qs_greet:"; cat "$cache/gateway-inspect.txt"; exit 1
fi
greeting=$("$cache/bin/sake" call "$url" qs_greet '{"name":"Rui"}')
if ! echo "$greeting" | grep -q 'Rui'; then
  echo "qs_greet through the gateway answered: $greeting"; exit 1
fi
echo "qs_greet through the gateway: $greeting"
SAKE_CONFORMANCE_URL="$url" scripts/conformance.sh
