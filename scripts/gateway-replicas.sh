#!/usr/bin/env bash
# Two `sake gateway` replicas on one PostgreSQL database, behind a
# round-robin proxy with no stickiness, in front of examples/everything
# (Streamable HTTP, merged) and examples/quickstart (stdio, "qs"), and the
# official conformance suite run through the proxy's one URL. Each replica
# holds its own connection to everything and its own quickstart child;
# what they share (sessions, tasks, broadcasts, the signing secret) comes
# from the database. examples/everything alone passes every run, so any
# failure is a difference the replicated gateway makes.
#
# Uses SAKE_POSTGRES_URL when set, else starts a throwaway cluster
# (scripts/postgres.sh). SAKE_CONFORMANCE_REVISIONS picks the revisions.
set -euo pipefail
cd "$(dirname "$0")/.."
cache="${SAKE_CACHE:-$PWD/.cache}"
mkdir -p "$cache/bin"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  if [ -n "${own_cluster:-}" ]; then scripts/postgres.sh stop; fi
}
trap cleanup EXIT
if [ -z "${SAKE_POSTGRES_URL:-}" ]; then
  eval "$(scripts/postgres.sh start)"
  own_cluster=1
fi
db="gateway_replicas_$$"
psql -q "$SAKE_POSTGRES_URL" -c "CREATE DATABASE $db"
dburl="${SAKE_POSTGRES_URL%%\?*}"
dburl="${dburl%/*}/$db?${SAKE_POSTGRES_URL#*\?}"

go build -o "$cache/bin/everything" ./examples/everything
go build -o "$cache/bin/quickstart" ./examples/quickstart
go build -o "$cache/bin/sake" ./cmd/sake
go build -o "$cache/bin/roundrobin" ./scripts/roundrobin
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
wait_port() {
  for _ in $(seq 1 200); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  echo "nothing listens on port $1"; return 1
}
everything_port=$(free_port)
"$cache/bin/everything" -http "127.0.0.1:$everything_port" 2>"$cache/gateway-replicas-everything.log" &
pids+=($!)
wait_port "$everything_port"
config="$cache/gateway-replicas.json"
cat >"$config" <<JSON
{
  "mcpServers": {
    "everything": { "url": "http://127.0.0.1:$everything_port/mcp", "namespace": "", "required": true },
    "qs": { "command": "$cache/bin/quickstart" }
  }
}
JSON
backends=""
for i in 1 2; do
  port=$(free_port)
  "$cache/bin/sake" gateway -config "$config" -http "127.0.0.1:$port" -postgres "$dburl" -watch=false 2>"$cache/gateway-replica-$i.log" &
  pids+=($!)
  wait_port "$port"
  backends="$backends${backends:+,}http://127.0.0.1:$port"
done
port=$(free_port)
"$cache/bin/roundrobin" -listen "127.0.0.1:$port" -to "$backends" 2>"$cache/gateway-roundrobin.log" &
pids+=($!)
wait_port "$port"
url="http://127.0.0.1:$port/mcp"
echo "== two sake gateway replicas behind $url ($backends)"
greeting=$("$cache/bin/sake" call "$url" qs_greet '{"name":"Rui"}')
if ! echo "$greeting" | grep -q 'Rui'; then
  echo "qs_greet through the replicas answered: $greeting"; exit 1
fi
status=0
SAKE_CONFORMANCE_URL="$url" scripts/conformance.sh || status=$?
if [ "$status" -ne 0 ]; then
  echo "== the proxy's and the replicas' logs (last lines)"
  for f in "$cache/gateway-roundrobin.log" "$cache/gateway-replica-1.log" "$cache/gateway-replica-2.log"; do
    echo "-- $f"; tail -20 "$f" || true
  done
fi
exit "$status"
