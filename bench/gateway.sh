#!/usr/bin/env bash
# The gateway benchmark: the sake echo server directly, behind
# httputil.ReverseProxy (the reference hop), behind a line relay to it as
# a stdio child (the ceiling of a stdio hop), and through sake/gateway as
# a url entry and as a stdio child, in both eras, all in one interleaved
# run; then the same at one client for the added latency (p50, p99).
# Writes everything to bench/results-gateway-<date>-<time>.txt.
#
#   bench/gateway.sh                    # 8 clients, 5 s per run, 3 repetitions
#   DUR=3s REPS=1 bench/gateway.sh      # a quick check
#   PROFILE=1 bench/gateway.sh          # also a CPU profile of the gateway on each path
set -euo pipefail
cd "$(dirname "$0")"

DUR=${DUR:-5s}
CONC=${CONC:-8}
REPS=${REPS:-3}
PROFILE=${PROFILE:-}
SERVERS=sake,revproxy,relay,gw-url,gw-stdio
PATHS=http-legacy,http-modern,stdio-legacy,stdio-modern

mkdir -p .bin
echo "building into bench/.bin ..." >&2
go build -o .bin/sake ./servers/sake
go build -o .bin/gateway ./servers/gateway
go build -o .bin/load ./load

stamp=$(date +%Y%m%d-%H%M%S)
out="results-gateway-$stamp.txt"
tw=".bin/timewait-$stamp.txt"
: >"$tw"
{
	echo "# throughput: $CONC clients"
	GATEWAY_BENCH_TIMEWAIT="$tw" .bin/load -bin .bin -servers "$SERVERS" -paths "$PATHS" -c "$CONC" -d "$DUR" -reps "$REPS"
	echo
	echo "## Upstream sockets left in TIME-WAIT when each front stopped (connections not reused)"
	echo
	sed 's/^/    /' "$tw"
	echo
	echo "# added latency: one client, sequential calls"
	.bin/load -bin .bin -servers "$SERVERS" -paths "$PATHS" -c 1 -d "$DUR" -reps "$REPS"
} | tee "$out"

if [ -n "$PROFILE" ]; then
	for mode in url stdio; do
		for path in http-legacy http-modern; do
			prof=".bin/gateway-$mode-$path-$stamp.pprof"
			echo "profiling gw-$mode $path ..." >&2
			# One more run with the front's CPU profile (not in the tables).
			GATEWAY_BENCH_PROFILE="$prof" .bin/load -bin .bin -servers "gw-$mode" -paths "$path" -c "$CONC" -d "$DUR" -reps 1 >/dev/null || true
			if [ -s "$prof" ]; then
				{
					echo
					echo "## CPU profile of gw-$mode on $path (go tool pprof -top -cum)"
					echo
					go tool pprof -top -cum -nodecount=30 .bin/gateway "$prof" 2>&1
				} | tee -a "$out"
			fi
		done
	done
fi
echo "results written to bench/$out" >&2
