#!/usr/bin/env bash
# coldbuild.sh: how long a first build takes from a clone. For each package
# (./examples/quickstart by default), it prints how many packages outside
# the standard library it links and how long `go build` takes from an
# empty build cache (GOCACHE=$(mktemp -d)), with the modules already
# downloaded, so that only compiling is measured (the standard library
# included, as on a first build).
#
#	bench/coldbuild.sh                       # the quickstart
#	bench/coldbuild.sh ./examples/quickstart ./sake/stdio
#	RUNS=3 bench/coldbuild.sh                # each cold build three times
#
# The figure in the README was measured with this script. The machine's
# other load counts: the load average is printed, and the CPU time (user
# and system, all processes of the build) is given beside the wall time,
# since it moves less with the load.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$#" -gt 0 ] || set -- ./examples/quickstart
runs=${RUNS:-1}
go mod download
echo "# $(go version), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for pkg in "$@"; do
  deps=$(go list -deps -f '{{if not .Standard}}{{.ImportPath}}{{end}}' "$pkg" | wc -l)
  for _ in $(seq "$runs"); do
    cache=$(mktemp -d)
    times=$( { TIMEFORMAT='%R %U %S'; time GOCACHE=$cache GOFLAGS="${GOFLAGS:-} -buildvcs=false" go build -o /dev/null "$pkg"; } 2>&1 )
    rm -rf "$cache"
    read -r real user sys <<<"$(tail -1 <<<"$times")"
    printf '%s: %d packages outside the standard library, cold build %.1f s (CPU %.1f s)\n' \
      "$pkg" "$deps" "$real" "$(echo "$user + $sys" | bc)"
  done
done
