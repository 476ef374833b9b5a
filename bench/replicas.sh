#!/usr/bin/env bash
# Replicas on PostgreSQL against one process: the sake echo server alone,
# the same process behind the round-robin proxy (the proxy's own cost),
# one replica behind a round-robin proxy, and two replicas behind it, over
# HTTP in both eras, for tools/call echo and for a task polled to its end
# (echo_task), interleaved in one run. Starts a throwaway cluster
# (scripts/postgres.sh) unless SAKE_POSTGRES_URL is set, with
# pg_stat_statements loaded: the statements the replicas run during each
# measured window are counted, per operation and per request (a cluster of
# your own must preload pg_stat_statements for that).
#
#   bench/replicas.sh                 # 16 clients, 5 s per run, 3 repetitions
#   DUR=2s REPS=1 bench/replicas.sh   # a quick check
set -euo pipefail
cd "$(dirname "$0")"
DUR=${DUR:-5s}
CONC=${CONC:-16}
REPS=${REPS:-3}
if [ -z "${SAKE_POSTGRES_URL:-}" ]; then
  eval "$(SAKE_POSTGRES_OPTS="-c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.max=1000" ../scripts/postgres.sh start)"
  trap '../scripts/postgres.sh stop' EXIT
fi
export SAKE_POSTGRES_URL
mkdir -p .bin
echo "building into bench/.bin ..." >&2
go build -o .bin/sake ./servers/sake
go build -o .bin/replicas ./servers/replicas
go build -o .bin/load ./load
.bin/load -bin .bin -c "$CONC" -d "$DUR" -reps "$REPS" -servers sake,sake-proxy,sake-1r,sake-2r -paths http-legacy,http-modern,http-legacy-tasks,http-modern-tasks |
  tee "results-replicas-$(date +%Y%m%d-%H%M%S).txt"
