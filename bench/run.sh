#!/usr/bin/env bash
# Builds the three echo servers (sake, go-sdk, mcp-go) and the load
# generator into bench/.bin/, runs the benchmark, and writes its output to
# bench/results-<date>.txt as well as stdout.
#
#   bench/run.sh                      # 16 clients, 5 s per run, 3 repetitions
#   DUR=3s REPS=1 bench/run.sh        # a quick check
#   CONC=8 DUR=10s REPS=5 bench/run.sh
#   PROFILE=always bench/run.sh       # always take the sake http-modern CPU profile
#   SERVERS=sake,bare bench/run.sh    # only sake and its ceiling
#
# When sake's median http-modern rps is below 1.5x mcp-go's, one more sake
# http-modern run is made with -cpuprofile, and the top of `go tool pprof`
# is appended to the results.
set -euo pipefail
cd "$(dirname "$0")"

DUR=${DUR:-5s}
CONC=${CONC:-16}
REPS=${REPS:-3}
PROFILE=${PROFILE:-auto}
SERVERS=${SERVERS:-sake,gosdk,mcpgo,bare}

mkdir -p .bin
echo "building into bench/.bin ..." >&2
go build -o .bin/sake ./servers/sake
go build -o .bin/gosdk ./servers/gosdk
go build -o .bin/mcpgo ./servers/mcpgo
go build -o .bin/bare ./servers/bare
go build -o .bin/load ./load

stamp=$(date +%Y%m%d-%H%M%S)
out="results-$stamp.txt"
prof=".bin/sake-http-modern-$stamp.pprof"
always=()
if [ "$PROFILE" = "always" ]; then
	always=(-profile-always)
fi

.bin/load -bin .bin -servers "$SERVERS" -c "$CONC" -d "$DUR" -reps "$REPS" -profile "$prof" "${always[@]}" | tee "$out"

if [ -s "$prof" ]; then
	{
		echo
		echo "## CPU profile of sake on http-modern (go tool pprof -top, flat)"
		echo
		go tool pprof -top -nodecount=25 .bin/sake "$prof" 2>&1
		echo
		echo "## The same, by cumulative time (-cum)"
		echo
		go tool pprof -top -cum -nodecount=25 .bin/sake "$prof" 2>&1
	} | tee -a "$out"
fi
echo "results written to bench/$out" >&2
