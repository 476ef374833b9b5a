#!/usr/bin/env bash
# The production path: the echo server with the middleware stack of
# examples/production (rate limit, MaskErrors, the cache, ToolLimits,
# ResultCap, and the access log writing JSON lines through a JSONSink)
# against the same binary without middleware (-bare), on every path (HTTP
# and stdio, both eras), interleaved in one run. The target is a ratio of
# at least 0.90 on each path.
#
#   bench/production.sh                    # 8 clients, 5 s per run, 3 repetitions
#   DUR=2s REPS=2 bench/production.sh      # a quick check
#
# Where the time goes: go test -run x -bench 'Budget$' -cpuprofile cpu.out
# ./sake/middleware/ (the stack in process), or .bin/production -http ADDR
# -cpuprofile FILE under load.
set -euo pipefail
cd "$(dirname "$0")"
DUR=${DUR:-5s}
CONC=${CONC:-8}
REPS=${REPS:-3}
PATHS=${PATHS:-http-legacy,http-modern,stdio-legacy,stdio-modern}
mkdir -p .bin
echo "building into bench/.bin ..." >&2
go build -o .bin/production ./servers/production
go build -o .bin/load ./load
stamp=$(date +%Y%m%d-%H%M%S)
out="results-production-$stamp.txt"
.bin/load -bin .bin -c "$CONC" -d "$DUR" -reps "$REPS" -servers prod-bare,prod -paths "$PATHS" | tee "$out"
echo "results written to bench/$out" >&2
