#!/usr/bin/env bash
# Runs the official MCP conformance suite through examples/proxy: the
# proxy starts examples/everything as its stdio server and serves it as
# Streamable HTTP, and scripts/conformance.sh runs every one of its runs
# (both revisions, scored and not scored, the tasks extension, the
# pending header and schema scenarios, the skills scenarios) against the
# proxy's URL. examples/everything alone passes all of them, so any
# failure here is a difference the proxy makes, and fails the script.
#
# SAKE_CONFORMANCE_REVISIONS and SAKE_CONFORMANCE_COUNTS pass through to
# scripts/conformance.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
cache="${SAKE_CACHE:-$PWD/.cache}"
mkdir -p "$cache/bin"
go build -o "$cache/bin/everything" ./examples/everything
go build -o "$cache/bin/proxy" ./examples/proxy
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()' 2>/dev/null || echo 3732)
"$cache/bin/proxy" -http "127.0.0.1:$port" -- "$cache/bin/everything" 2>"$cache/proxy.log" &
proxy=$!
trap 'kill $proxy 2>/dev/null || true; wait $proxy 2>/dev/null || true' EXIT
for _ in $(seq 1 200); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
  if ! kill -0 "$proxy" 2>/dev/null; then
    echo "the proxy exited; its log:"; cat "$cache/proxy.log"; exit 1
  fi
  sleep 0.1
done
echo "== examples/everything (stdio) behind examples/proxy at http://127.0.0.1:$port/mcp"
SAKE_CONFORMANCE_URL="http://127.0.0.1:$port/mcp" scripts/conformance.sh
