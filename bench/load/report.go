package main

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// summary is the medians of one configuration over its runs.
type summary struct {
	cfg              config
	runs, measured   int
	rps              float64 // median
	rpsMin, rpsMax   float64
	p50, p99         time.Duration // medians
	rssMaxKiB        int64
	cpuPerCall       time.Duration // median of the runs that measured it
	errs             int64
	na               []string // distinct reasons of runs that could not be measured
	measuredAnything bool
}

// summarize reduces the runs of every configuration to medians.
func summarize(cfgs []config, results map[string][]runResult) []summary {
	var out []summary
	for _, c := range cfgs {
		s := summary{cfg: c}
		var rps []float64
		var p50, p99, cpu []time.Duration
		for _, r := range results[c.String()] {
			s.runs++
			if r.na != "" {
				if !slices.Contains(s.na, r.na) {
					s.na = append(s.na, r.na)
				}
				continue
			}
			s.measured++
			rps = append(rps, r.rps)
			p50 = append(p50, r.p50)
			p99 = append(p99, r.p99)
			s.rssMaxKiB = max(s.rssMaxKiB, r.rssKiB)
			if r.cpuPerCall > 0 {
				cpu = append(cpu, r.cpuPerCall)
			}
			s.errs += r.errs
		}
		if s.measured > 0 {
			s.measuredAnything = true
			s.rps = median(rps)
			s.rpsMin, s.rpsMax = slices.Min(rps), slices.Max(rps)
			s.p50 = median(p50)
			s.p99 = median(p99)
		}
		if len(cpu) > 0 {
			s.cpuPerCall = median(cpu)
		}
		out = append(out, s)
	}
	return out
}

// median returns the median of v (the mean of the middle two for an even
// count); v is sorted in place.
func median[T float64 | time.Duration](v []T) T {
	slices.Sort(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

// pairedRatio returns the median over the repetitions of a's rps divided
// by b's in the same repetition, on path, and how many repetitions had
// both. Runs of one path and repetition follow each other, so this ratio
// is less swayed than the ratio of medians by a load that drifts between
// repetitions.
func pairedRatio(results map[string][]runResult, a, b, path string) (float64, int) {
	ra, rb := results[a+" "+path], results[b+" "+path]
	var v []float64
	for i := range min(len(ra), len(rb)) {
		if ra[i].na == "" && rb[i].na == "" && rb[i].rps > 0 {
			v = append(v, ra[i].rps/rb[i].rps)
		}
	}
	if len(v) == 0 {
		return 0, 0
	}
	return median(v), len(v)
}

// printSummary prints the table of medians and the ratios.
func printSummary(sums []summary, cfgs []config, results map[string][]runResult, o options) {
	fmt.Printf("\n## Medians over %d repetition(s): %d clients, %s per run\n\n", o.reps, o.conc, o.dur)
	fmt.Println("| config | runs | rps median (min–max) | p50 ms | p99 ms | peak RSS MiB | errors | note |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	for _, s := range sums {
		note := s.cfg.srv.note(s.cfg.path)
		if len(s.na) > 0 {
			note = joinNote(note, "n/a: "+strings.Join(s.na, "; "))
		}
		note = strings.ReplaceAll(note, "|", "\\|")
		if !s.measuredAnything {
			fmt.Printf("| %s | %d/%d | n/a | n/a | n/a | n/a | – | %s |\n", s.cfg, s.measured, s.runs, note)
			continue
		}
		fmt.Printf("| %s | %d/%d | %.0f (%.0f–%.0f) | %.3f | %.3f | %.1f | %d | %s |\n",
			s.cfg, s.measured, s.runs, s.rps, s.rpsMin, s.rpsMax, ms(s.p50), ms(s.p99),
			float64(s.rssMaxKiB)/1024, s.errs, note)
	}

	rps := func(srv, path string) float64 {
		for _, s := range sums {
			if s.cfg.srv.name == srv && s.cfg.path.name == path && s.measuredAnything {
				return s.rps
			}
		}
		return 0
	}
	ratio := func(a, b float64) string {
		if a == 0 || b == 0 {
			return "n/a"
		}
		return fmt.Sprintf("%.2f", a/b)
	}

	var paths []pathSpec // the paths of this run, in their fixed order
	for _, p := range allPaths {
		if slices.ContainsFunc(cfgs, func(c config) bool { return c.path.name == p.name }) {
			paths = append(paths, p)
		}
	}
	fmt.Println("\n## Ratios of median rps (higher favours the first name)")
	fmt.Println()
	printTableHead("ratio", paths)
	for _, peer := range []string{"bare", "mcpgo", "gosdk"} {
		if !slices.ContainsFunc(sums, func(s summary) bool { return s.cfg.srv.name == peer }) {
			continue // not in this run
		}
		fmt.Printf("| sake/%s |", labelOf(peer))
		for _, p := range paths {
			fmt.Printf(" %s |", ratio(rps("sake", p.name), rps(peer, p.name)))
		}
		fmt.Println()
	}
	if slices.ContainsFunc(sums, func(s summary) bool { return s.cfg.srv.name == "bare" }) && o.reps > 1 {
		fmt.Print("| sake/bare, median of per-repetition ratios |")
		for _, p := range paths {
			if r, n := pairedRatio(results, "sake", "bare", p.name); n > 0 {
				fmt.Printf(" %.2f |", r)
			} else {
				fmt.Print(" n/a |")
			}
		}
		fmt.Println()
	}

	for _, r := range [][2]string{{"sake-2r", "sake-1r"}, {"sake-1r", "sake-proxy"}, {"sake-2r", "sake-proxy"},
		{"sake-proxy", "sake"}, {"sake-2r", "sake"}, {"sake-1r", "sake"},
		{"revproxy", "sake"}, {"gw-url", "revproxy"}, {"gw-url", "sake"}, {"gw-stdio", "sake"},
		{"relay", "sake"}, {"gw-stdio", "relay"}} {
		if !slices.ContainsFunc(sums, func(s summary) bool { return s.cfg.srv.name == r[0] && s.measuredAnything }) {
			continue
		}
		fmt.Printf("| %s/%s |", r[0], r[1])
		for _, p := range paths {
			fmt.Printf(" %s |", ratio(rps(r[0], p.name), rps(r[1], p.name)))
		}
		fmt.Println()
	}

	printProductionRatios(sums, results, paths, o)
	printCPU(sums, paths)

	fmt.Println()
	fmt.Println("| modern/legacy | http | stdio |")
	fmt.Println("|---|---|---|")
	for _, srv := range allServers {
		name := srv.label
		if srv.name == "gosdk" {
			name += " (http: stateless vs stateful handler)"
		}
		fmt.Printf("| %s | %s | %s |\n", name,
			ratio(rps(srv.name, "http-modern"), rps(srv.name, "http-legacy")),
			ratio(rps(srv.name, "stdio-modern"), rps(srv.name, "stdio-legacy")))
	}
	fmt.Println("\nThe machine is shared and noisy: compare numbers only within this output.")
}

func labelOf(name string) string {
	for _, s := range allServers {
		if s.name == name {
			return s.label
		}
	}
	return name
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// printCPU prints the servers' CPU time per verified call (medians), and
// peer/sake ratios of it: above 1, sake spends less per call.
func printCPU(sums []summary, paths []pathSpec) {
	cpu := func(srv, path string) time.Duration {
		for _, s := range sums {
			if s.cfg.srv.name == srv && s.cfg.path.name == path {
				return s.cpuPerCall
			}
		}
		return 0
	}
	var servers []serverSpec
	for _, srv := range allServers {
		if slices.ContainsFunc(sums, func(s summary) bool { return s.cfg.srv.name == srv.name && s.cpuPerCall > 0 }) {
			servers = append(servers, srv)
		}
	}
	if len(servers) == 0 {
		return
	}
	fmt.Println("\n## Server CPU time per verified call, µs (median; the server process only)")
	fmt.Println()
	printTableHead("server", paths)
	for _, srv := range servers {
		fmt.Printf("| %s |", srv.label)
		for _, p := range paths {
			if c := cpu(srv.name, p.name); c > 0 {
				fmt.Printf(" %.1f |", float64(c)/float64(time.Microsecond))
			} else {
				fmt.Print(" n/a |")
			}
		}
		fmt.Println()
	}
	for _, srv := range servers {
		if srv.name == "sake" {
			continue
		}
		fmt.Printf("| %s/sake (above 1: sake spends less) |", srv.label)
		for _, p := range paths {
			a, b := cpu(srv.name, p.name), cpu("sake", p.name)
			if a > 0 && b > 0 {
				fmt.Printf(" %.2f |", float64(a)/float64(b))
			} else {
				fmt.Print(" n/a |")
			}
		}
		fmt.Println()
	}
}

// printTableHead prints the header of a table with a column per path.
func printTableHead(first string, paths []pathSpec) {
	fmt.Printf("| %s |", first)
	for _, p := range paths {
		fmt.Printf(" %s |", p.name)
	}
	fmt.Print("\n|---|")
	for range paths {
		fmt.Print("---|")
	}
	fmt.Println()
}
