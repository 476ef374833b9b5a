// Command load is the benchmark's load generator. For every configuration
// (an echo server × a path) it starts the server binary as a subprocess,
// waits until it answers one verified call, drives it with concurrent
// clients issuing tools/call echo for a fixed duration, and reports
// requests per second, latency percentiles and the server's peak RSS.
//
// Paths:
//
//	http-legacy   each client runs initialize + notifications/initialized once,
//	              then POSTs tools/call with Mcp-Session-Id and
//	              MCP-Protocol-Version: 2025-11-25
//	http-modern   no handshake; every POST carries params._meta
//	              (protocolVersion 2026-07-28, clientCapabilities, clientInfo) and
//	              the MCP-Protocol-Version, Mcp-Method and Mcp-Name headers
//	stdio-legacy  one server process; one initialize, then the clients share
//	              its stdin/stdout, their ids demultiplexed by a reader goroutine
//	stdio-modern  the same without initialize, every request with _meta
//	http-legacy-tasks  (not run unless asked) each client calls echo_task as a
//	              task (params.task), polls tasks/get at once until it is
//	              completed, then reads tasks/result: one operation
//	http-modern-tasks  the same in 2026-07-28 (the tasks extension declared;
//	              the result comes with the completed tasks/get)
//
// Only verified results count: a JSON-RPC result (SSE bodies are parsed)
// whose content[0].text equals the text sent. Anything else is an error.
// Runs are interleaved: for each repetition, every configuration once, in a
// fixed order. The summary gives medians per configuration and the ratios
// sake/mcp-go, sake/go-sdk and modern/legacy. Machines are noisy: compare
// numbers only within one invocation.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
)

// pathSpec is one way of reaching a server: a transport and a protocol era.
type pathSpec struct {
	name   string // http-legacy, http-modern, stdio-legacy, stdio-modern
	http   bool   // Streamable HTTP; otherwise stdio
	modern bool   // 2026-07-28 requests; otherwise the 2025-11-25 handshake
	tasks  bool   // the tasks workload (echo_task polled to its end)
}

var allPaths = []pathSpec{
	{"http-legacy", true, false, false},
	{"http-modern", true, true, false},
	{"stdio-legacy", false, false, false},
	{"stdio-modern", false, true, false},
	{"http-legacy-tasks", true, false, true},
	{"http-modern-tasks", true, true, true},
}

// serverSpec is one echo server binary and how to start it for a path.
type serverSpec struct {
	name  string // short name used on the command line: sake, gosdk, mcpgo
	label string // name shown in the ratios: sake, go-sdk, mcp-go
	// args returns the command-line arguments for path p; addr is the
	// 127.0.0.1:port to listen on for HTTP paths.
	args func(p pathSpec, addr string) []string
	// note explains a non-default setup for path p, or is "".
	note func(p pathSpec) string
	// bin is the binary's name when it is not name.
	bin string
	// httpOnly servers have no stdio path.
	httpOnly bool
	// tasks servers offer the echo_task tool of the tasks workload.
	tasks bool
}

// binary is the file name of the server's binary.
func (s serverSpec) binary() string {
	if s.bin != "" {
		return s.bin
	}
	return s.name
}

// replicaArgs starts n sake replicas on $SAKE_POSTGRES_URL behind a
// round-robin proxy (servers/replicas).
func replicaArgs(n string) func(p pathSpec, addr string) []string {
	return func(_ pathSpec, addr string) []string { return []string{"-http", addr, "-n", n} }
}

func plainArgs(p pathSpec, addr string) []string {
	if p.http {
		return []string{"-http", addr}
	}
	return nil
}

func noNote(pathSpec) string { return "" }

// gatewayArgs starts servers/gateway in mode.
func gatewayArgs(mode string) func(p pathSpec, addr string) []string {
	return func(p pathSpec, addr string) []string { return append([]string{"-mode", mode}, plainArgs(p, addr)...) }
}

var allServers = []serverSpec{
	{name: "sake", label: "sake", args: plainArgs, note: noNote, tasks: true},
	{
		name:  "gosdk",
		label: "go-sdk",
		args: func(p pathSpec, addr string) []string {
			a := plainArgs(p, addr)
			if p.http && p.modern {
				a = append(a, "-stateless")
			}
			return a
		},
		note: func(p pathSpec) string {
			switch {
			case p.http && p.modern:
				return "stateless handler (go-sdk serves 2026-07-28 over HTTP only when Stateless)"
			case p.http:
				return "default stateful handler (sessions)"
			}
			return ""
		},
	},
	{name: "mcpgo", label: "mcp-go", args: plainArgs, note: noNote},
	{name: "sake-proxy", label: "sake-proxy", bin: "replicas", httpOnly: true, tasks: true, args: func(_ pathSpec, addr string) []string {
		return []string{"-http", addr, "-n", "1", "-no-database"}
	}, note: func(pathSpec) string {
		return "one process, no database, behind the same round-robin proxy as the replicas"
	}},
	{name: "sake-1r", label: "sake-1r", bin: "replicas", httpOnly: true, tasks: true, args: replicaArgs("1"), note: func(pathSpec) string {
		return "one replica on PostgreSQL behind a round-robin proxy"
	}},
	{name: "sake-2r", label: "sake-2r", bin: "replicas", httpOnly: true, tasks: true, args: replicaArgs("2"), note: func(pathSpec) string {
		return "two replicas on PostgreSQL behind a round-robin proxy"
	}},
	// The gateway harness (bench/gateway.sh): one hop in front of the sake
	// echo server, started by servers/gateway.
	{name: "revproxy", label: "revproxy", bin: "gateway", httpOnly: true, args: gatewayArgs("revproxy"), note: func(pathSpec) string {
		return "httputil.ReverseProxy (pooled) in front of sake over HTTP: the reference hop"
	}},
	{name: "gw-url", label: "gw-url", bin: "gateway", args: gatewayArgs("url"), note: func(pathSpec) string {
		return "sake/gateway, a url entry to sake over HTTP"
	}},
	{name: "gw-stdio", label: "gw-stdio", bin: "gateway", args: gatewayArgs("stdio"), note: func(pathSpec) string {
		return "sake/gateway, sake as its stdio child"
	}},
	{name: "relay", label: "relay", bin: "gateway", args: gatewayArgs("relay"), note: func(pathSpec) string {
		return "a line relay in front of sake as a stdio child, ids rewritten: the ceiling of a stdio hop"
	}},
	{name: "bare", label: "bare", args: plainArgs, note: func(pathSpec) string {
		return "the ceiling: encoding/json and net/http or a line reader, no framework"
	}},
	productionServer, productionBareServer,
}

// config is one server × path combination.
type config struct {
	srv  serverSpec
	path pathSpec
}

func (c config) String() string { return c.srv.name + " " + c.path.name }

// options are the command-line settings of one invocation.
type options struct {
	binDir        string
	conc          int
	dur           time.Duration
	reps          int
	profile       string
	profileAlways bool
	pg            *pgStats // counts the replicas' statements
}

func main() {
	var o options
	var servers, paths string
	flag.StringVar(&o.binDir, "bin", ".bin", "directory holding the server binaries sake, gosdk and mcpgo")
	flag.IntVar(&o.conc, "c", 16, "concurrent clients per run")
	flag.DurationVar(&o.dur, "d", 5*time.Second, "measured duration of one run")
	flag.IntVar(&o.reps, "reps", 3, "repetitions of the whole set of configurations")
	flag.StringVar(&servers, "servers", "sake,gosdk,mcpgo,bare", "comma-separated servers to run")
	flag.StringVar(&paths, "paths", "http-legacy,http-modern,stdio-legacy,stdio-modern", "comma-separated paths to run (also http-legacy-tasks, http-modern-tasks)")
	flag.StringVar(&o.profile, "profile", "", "after the runs, if sake's http-modern rps is below 1.5× mcp-go's, run it once more with -cpuprofile `FILE`")
	flag.BoolVar(&o.profileAlways, "profile-always", false, "with -profile, take the profile whatever the ratio")
	flag.Parse()
	if o.conc < 1 || o.dur <= 0 || o.reps < 1 {
		fmt.Fprintln(os.Stderr, "load: -c, -d and -reps must be positive")
		os.Exit(2)
	}
	cfgs, err := selectConfigs(servers, paths)
	if err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(2)
	}
	for _, c := range cfgs {
		if _, err := os.Stat(binPath(o.binDir, c.srv.binary())); err != nil {
			fmt.Fprintln(os.Stderr, "load:", err)
			os.Exit(2)
		}
	}

	o.pg = &pgStats{note: "no replica on PostgreSQL in this run"}
	if slices.ContainsFunc(cfgs, func(c config) bool { return c.srv.name == "sake-1r" || c.srv.name == "sake-2r" }) {
		o.pg = newPGStats(envPGStats())
	}
	printHeader(o)
	results := make(map[string][]runResult)
	for rep := 1; rep <= o.reps; rep++ {
		for _, c := range cfgs {
			r := runConfig(c, o, nil)
			r.rep = rep
			fmt.Println(r.line(o.reps))
			results[c.String()] = append(results[c.String()], r)
		}
	}
	sums := summarize(cfgs, results)
	printSummary(sums, cfgs, results, o)
	if o.pg.note != "no replica on PostgreSQL in this run" {
		printStatements(o.pg, cfgs, results)
	}

	if o.profile != "" {
		maybeProfile(sums, o)
	}
}

// selectConfigs returns the configurations to run in their fixed order:
// paths in the order of allPaths, servers in the order of allServers.
func selectConfigs(servers, paths string) ([]config, error) {
	want := func(list, name string) bool {
		for _, s := range strings.Split(list, ",") {
			if strings.TrimSpace(s) == name {
				return true
			}
		}
		return false
	}
	var cfgs []config
	for _, p := range allPaths {
		if !want(paths, p.name) {
			continue
		}
		for _, s := range allServers {
			if want(servers, s.name) && (p.http || !s.httpOnly) && (!p.tasks || s.tasks) {
				cfgs = append(cfgs, config{s, p})
			}
		}
	}
	if len(cfgs) == 0 {
		return nil, fmt.Errorf("no configuration selected by -servers %q -paths %q", servers, paths)
	}
	return cfgs, nil
}

func binPath(dir, name string) string { return filepath.Join(dir, name) }

// maybeProfile runs sake on http-modern once more with a CPU profile when
// its median rps is below 1.5× mcp-go's (or always, with -profile-always).
func maybeProfile(sums []summary, o options) {
	var sake, mcpgo float64
	for _, s := range sums {
		if s.cfg.path.name != "http-modern" {
			continue
		}
		switch s.cfg.srv.name {
		case "sake":
			sake = s.rps
		case "mcpgo":
			mcpgo = s.rps
		}
	}
	if !o.profileAlways && (sake == 0 || mcpgo == 0 || sake >= 1.5*mcpgo) {
		fmt.Printf("\nprofile: not taken (sake http-modern %.0f rps vs 1.5 × mcp-go %.0f rps)\n", sake, 1.5*mcpgo)
		return
	}
	prof, err := filepath.Abs(o.profile)
	if err != nil {
		fmt.Println("profile:", err)
		return
	}
	if sake < 1.5*mcpgo {
		fmt.Printf("\nprofile: sake http-modern %.0f rps < 1.5 × mcp-go %.0f rps; profiling one more run (not in the table)\n", sake, mcpgo)
	} else {
		fmt.Printf("\nprofile: -profile-always; profiling one more sake http-modern run (not in the table)\n")
	}
	c := config{allServers[0], allPaths[1]}
	r := runConfig(c, o, []string{"-cpuprofile", prof})
	fmt.Println(r.line(0))
	if _, err := os.Stat(prof); err != nil {
		fmt.Println("profile: no profile written:", err)
		return
	}
	fmt.Println("profile: written to", prof)
}

// printHeader prints what the numbers below were measured on.
func printHeader(o options) {
	kernel, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	fmt.Printf("# MCP echo load benchmark, %s\n", time.Now().Format(time.RFC3339))
	fmt.Printf("# %s, %d CPUs, Linux %s, loopback only\n", runtime.Version(), runtime.NumCPU(), strings.TrimSpace(string(kernel)))
	fmt.Printf("# %d clients, %s per run, %d repetitions, configurations interleaved\n", o.conc, o.dur, o.reps)
	fmt.Println("# counted: tools/call echo results whose content[0].text equals the text sent")
	fmt.Println("# gosdk http-legacy: default stateful handler; gosdk http-modern: a separate -stateless instance")
	fmt.Println("#   (go-sdk answers 2026-07-28 over HTTP only with StreamableHTTPOptions.Stateless)")
	fmt.Println("# sake and mcpgo: one process per run serves whichever era the requests use")
	fmt.Println()
}

// runConfig runs one configuration once: starts its server (with extra
// arguments appended), measures, and stops it. It never takes longer than
// the duration plus 10 seconds.
func runConfig(c config, o options, extra []string) runResult {
	ctx, cancel := context.WithTimeout(context.Background(), o.dur+8*time.Second)
	defer cancel()
	r := runResult{cfg: c}
	var err error
	if c.path.http {
		err = runHTTP(ctx, c, o, extra, &r)
	} else {
		err = runStdio(ctx, c, o, extra, &r)
	}
	if err != nil {
		r.na = err.Error()
	}
	return r
}
