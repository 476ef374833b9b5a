#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests: initdb in a temporary
# folder as an unprivileged user, on a free loopback port.
#
#   eval "$(scripts/postgres.sh start)"   # exports SAKE_POSTGRES_URL and SAKE_POSTGRES_DIR
#   go test ./...                         # the PostgreSQL tests run instead of skipping
#   scripts/postgres.sh stop              # stops the cluster and removes its folder
#
# SAKE_POSTGRES_OPTS adds server settings, e.g.
# "-c shared_preload_libraries=pg_stat_statements" (bench/replicas.sh).
#
# PostgreSQL comes from Debian's packages when it is missing. Only the
# export lines go to standard output; progress goes to standard error.
set -euo pipefail

as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

bindir() {
  ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1
}

start() {
  if [ -z "$(bindir)" ]; then
    echo "PostgreSQL is missing: installing Debian's postgresql" >&2
    SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq postgresql >/dev/null
  fi
  local bin dir port
  bin=$(bindir)
  dir=$(mktemp -d /tmp/sake-postgres.XXXXXX)
  chmod 755 "$dir"
  if [ "$(id -u)" = 0 ]; then chown postgres: "$dir"; fi
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
  as_owner "$bin/initdb" -D "$dir/data" -U sake --auth=trust -E UTF8 --no-locale >"$dir/initdb.log" 2>&1 ||
    { cat "$dir/initdb.log" >&2; exit 1; }
  as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
    -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300 ${SAKE_POSTGRES_OPTS:-}" \
    start >&2 || { cat "$dir/server.log" >&2; exit 1; }
  as_owner "$bin/createdb" -h 127.0.0.1 -p "$port" -U sake sake
  echo "PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$port, data in $dir" >&2
  echo "export SAKE_POSTGRES_URL='postgres://sake@127.0.0.1:$port/sake?sslmode=disable'"
  echo "export SAKE_POSTGRES_DIR='$dir'"
}

stop() {
  local dir=${SAKE_POSTGRES_DIR:-}
  [ -n "$dir" ] && [ -d "$dir/data" ] || { echo "no cluster to stop (SAKE_POSTGRES_DIR unset)" >&2; return 0; }
  as_owner "$(bindir)/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}

case "${1:-start}" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
