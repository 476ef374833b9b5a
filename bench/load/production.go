package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// The production path: servers/production with the middleware stack of
// examples/production ("prod"), and the same binary with -bare
// ("prod-bare"). bench/production.sh runs the two, interleaved.
var (
	productionServer = serverSpec{name: "prod", label: "production", bin: "production",
		args: func(p pathSpec, addr string) []string {
			return append(plainArgs(p, addr), "-access-log", productionAccessLog())
		},
		note: func(pathSpec) string {
			return "examples/production's stack: rate limit, MaskErrors, cache, ToolLimits, ResultCap, access log as JSON lines to a file"
		}}
	productionBareServer = serverSpec{name: "prod-bare", label: "production -bare", bin: "production",
		args: func(p pathSpec, addr string) []string { return append(plainArgs(p, addr), "-bare") },
		note: func(pathSpec) string { return "the same binary and tool without middleware" }}
)

// productionAccessLog is the file the production server writes its access
// log to, truncated at each start.
func productionAccessLog() string {
	return filepath.Join(os.TempDir(), "sake-bench-production-access.log")
}

// printProductionRatios prints prod's throughput over prod-bare's, per
// path, when both ran: the ratio of the medians and, with several
// repetitions, the median of the per-repetition ratios.
func printProductionRatios(sums []summary, results map[string][]runResult, paths []pathSpec, o options) {
	ran := func(name string) bool {
		return slices.ContainsFunc(sums, func(s summary) bool { return s.cfg.srv.name == name && s.measuredAnything })
	}
	if !ran(productionServer.name) || !ran(productionBareServer.name) {
		return
	}
	rps := func(srv, path string) float64 {
		for _, s := range sums {
			if s.cfg.srv.name == srv && s.cfg.path.name == path && s.measuredAnything {
				return s.rps
			}
		}
		return 0
	}
	fmt.Print("| production/bare (target ≥ 0.90) |")
	for _, p := range paths {
		a, b := rps(productionServer.name, p.name), rps(productionBareServer.name, p.name)
		if a == 0 || b == 0 {
			fmt.Print(" n/a |")
			continue
		}
		fmt.Printf(" %.2f |", a/b)
	}
	fmt.Println()
	// Throughput swings with whatever else the machine runs; the server's
	// own CPU time per call is steadier: bare ÷ production is the share of
	// the bare server's throughput a server bound by its CPU keeps.
	cpu := func(srv, path string) float64 {
		for _, s := range sums {
			if s.cfg.srv.name == srv && s.cfg.path.name == path {
				return float64(s.cpuPerCall)
			}
		}
		return 0
	}
	fmt.Print("| production/bare by server CPU per call (bare ÷ production) |")
	for _, p := range paths {
		a, b := cpu(productionServer.name, p.name), cpu(productionBareServer.name, p.name)
		if a == 0 || b == 0 {
			fmt.Print(" n/a |")
			continue
		}
		fmt.Printf(" %.2f |", b/a)
	}
	fmt.Println()
	if o.reps < 2 {
		return
	}
	fmt.Print("| production/bare, median of per-repetition ratios |")
	for _, p := range paths {
		if r, n := pairedRatio(results, productionServer.name, productionBareServer.name, p.name); n > 0 {
			fmt.Printf(" %.2f |", r)
		} else {
			fmt.Print(" n/a |")
		}
	}
	fmt.Println()
}
