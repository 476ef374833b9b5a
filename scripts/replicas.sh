#!/usr/bin/env bash
# Two replicas of examples/everything on one PostgreSQL database, behind a
# round-robin proxy with no stickiness, and the official conformance suite
# run through the proxy's one URL. The replicas get the same flags and
# nothing else: what they share comes from the database.
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
db="replicas_$$"
psql -q "$SAKE_POSTGRES_URL" -c "CREATE DATABASE $db"
dburl="${SAKE_POSTGRES_URL%%\?*}"
dburl="${dburl%/*}/$db?${SAKE_POSTGRES_URL#*\?}"

go build -o "$cache/bin/everything" ./examples/everything
go build -o "$cache/bin/roundrobin" ./scripts/roundrobin
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
wait_port() {
  for _ in $(seq 1 200); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  echo "nothing listens on port $1"; return 1
}
backends=""
for i in 1 2; do
  port=$(free_port)
  "$cache/bin/everything" -http "127.0.0.1:$port" -postgres "$dburl" 2>"$cache/replica-$i.log" &
  pids+=($!)
  wait_port "$port"
  backends="$backends${backends:+,}http://127.0.0.1:$port"
done
port=$(free_port)
"$cache/bin/roundrobin" -listen "127.0.0.1:$port" -to "$backends" 2>"$cache/roundrobin.log" &
pids+=($!)
wait_port "$port"
echo "== two replicas behind http://127.0.0.1:$port/mcp ($backends)"
status=0
SAKE_CONFORMANCE_URL="http://127.0.0.1:$port/mcp" scripts/conformance.sh || status=$?
if [ "$status" -ne 0 ]; then
  echo "== the proxy's and the replicas' logs (last lines)"
  for f in "$cache/roundrobin.log" "$cache/replica-1.log" "$cache/replica-2.log"; do
    echo "-- $f"; tail -20 "$f" || true
  done
fi
exit "$status"
