// Command scale measures how Sake for Go, mcp-go and go-sdk cost as the
// work grows: registering 10 to 4,000 tools, listing and calling them, and
// tools/call with arguments of 100 B to 1 MiB and a nested argument, in
// both protocol eras. Each library's servers run in a process of their own
// (this binary re-run with -serve); this process is the load generator:
// one client at a time over loopback HTTP, the runs interleaved (for each
// repetition every row once, each server in turn). What is counted is the
// server process's CPU time per request, so the client's own cost is in
// no figure. It prints the medians and the ratios from that one run.
//
//	go run ./scale                   # 300 ms per measurement, 3 repetitions
//	go run ./scale -d 1s -reps 5
//	go run ./scale -counts 10,100 -sizes 100,10240
//	go run ./scale -rows args -cpuprofile /tmp/scale.pprof  # one profile per server process
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

func main() {
	dur := flag.Duration("d", 300*time.Millisecond, "how long each measurement runs")
	reps := flag.Int("reps", 3, "repetitions (medians are reported)")
	countsFlag := flag.String("counts", "10,100,1000,4000", "tool counts")
	sizesFlag := flag.String("sizes", "100,10240,102400,1048576", "argument sizes in bytes")
	rowsFlag := flag.String("rows", "all", "which rows: all, or a comma list of register, list, call, args, nested")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of each server process to `FILE`.NAME")
	nslices := flag.Int("slices", 4, "each measurement is cut into this many slices, the servers taking turns")
	clients := flag.Int("c", 4, "concurrent clients per measurement (registration: one)")
	procs := flag.Int("procs", 0, "GOMAXPROCS of the server processes (0: the Go default)")
	serveName := flag.String("serve", "", "run as the server process of this library (used by the load generator)")
	flag.Parse()
	counts, err := ints(*countsFlag)
	if err == nil && *serveName != "" {
		err = serve(*serveName, counts, *cpuprofile)
	} else if err == nil {
		var sizes []int
		if sizes, err = ints(*sizesFlag); err == nil {
			err = run(counts, sizes, strings.Split(*rowsFlag, ","), *countsFlag, *cpuprofile, *dur, *reps, *clients, *procs, *nslices)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "scale:", err)
		os.Exit(1)
	}
}

func ints(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("bad number %q in %q", f, s)
		}
		out = append(out, n)
	}
	return out, nil
}

// row is one line of the table: a measurement made for every peer.
type row struct {
	name    string
	timing  bool                                            // a duration per operation (lower is better), not a rate
	prepare func(p int) (op func() (int, error), err error) // per peer index; op returns how many operations it did
	results [][]float64                                     // per peer
}

func run(counts, sizes []int, kinds []string, countsFlag, cpuprofile string, d time.Duration, reps, clients, procs, nslices int) error {
	servers := make([]*server, len(peers))
	defer func() {
		for _, s := range servers {
			if s != nil {
				s.stop()
			}
		}
	}()
	for i, p := range peers {
		s, err := startServer(p.name, countsFlag, cpuprofile, procs)
		if err != nil {
			return err
		}
		servers[i] = s
	}
	want := func(kind string) bool { return slices.Contains(kinds, "all") || slices.Contains(kinds, kind) }
	smallest := slices.Min(counts)
	var rows []*row
	if want("register") {
		for _, n := range counts {
			rows = append(rows, &row{name: fmt.Sprintf("register %d tools", n), timing: true,
				prepare: func(p int) (func() (int, error), error) {
					cmd := "reg " + strconv.Itoa(n)
					return func() (int, error) {
						a, err := servers[p].ask(cmd)
						if err != nil {
							return 0, err
						}
						k, err := strconv.Atoi(a)
						if err != nil || k < 1 {
							return 0, fmt.Errorf("%s: %s", cmd, a)
						}
						return k, nil
					}, nil
				}})
		}
	}
	for _, n := range counts {
		if want("list") {
			rows = append(rows, &row{name: fmt.Sprintf("tools/list, %d tools", n),
				prepare: func(p int) (func() (int, error), error) {
					c, err := connect(servers[p].urls[n].Legacy, false)
					if err != nil {
						return nil, err
					}
					return one(func() error { return c.listAll(n + 2) }), nil
				}})
		}
		if want("call") {
			rows = append(rows, &row{name: fmt.Sprintf("tools/call, %d tools", n),
				prepare: func(p int) (func() (int, error), error) {
					c, err := connect(servers[p].urls[n].Legacy, false)
					if err != nil {
						return nil, err
					}
					name := toolName(n / 2)
					return one(func() error { return c.call(name, `{"text":"hi"}`, "hi") }), nil
				}})
		}
	}
	for _, modern := range []bool{false, true} {
		era := "2025-11-25"
		if modern {
			era = "2026-07-28"
		}
		for _, size := range sizes {
			if !want("args") {
				break
			}
			text := strings.Repeat("x", size)
			args := `{"text":"` + text + `"}`
			rows = append(rows, &row{name: fmt.Sprintf("tools/call %s, %s argument", era, bytesName(size)),
				prepare: func(p int) (func() (int, error), error) {
					u := servers[p].urls[smallest]
					c, err := connect(pick(u.Legacy, u.Modern, modern), modern)
					if err != nil {
						return nil, err
					}
					return one(func() error { return c.call("echo", args, text) }), nil
				}})
		}
		if want("nested") {
			rows = append(rows, &row{name: fmt.Sprintf("tools/call %s, nested argument", era),
				prepare: func(p int) (func() (int, error), error) {
					u := servers[p].urls[smallest]
					c, err := connect(pick(u.Legacy, u.Modern, modern), modern)
					if err != nil {
						return nil, err
					}
					return one(func() error { return c.call("order", orderJSON, orderAnswer) }), nil
				}})
		}
	}
	if len(rows) == 0 {
		return fmt.Errorf("no rows selected by %q", strings.Join(kinds, ","))
	}

	// ops[row][peer] holds one operation per client, each with its own
	// connection (registration: one, as it is not a request).
	work := make([][][]func() (int, error), len(rows))
	for r, rw := range rows {
		rw.results = make([][]float64, len(peers))
		work[r] = make([][]func() (int, error), len(peers))
		k := clients
		if rw.timing {
			k = 1
		}
		for p := range peers {
			for range k {
				op, err := rw.prepare(p)
				if err == nil {
					_, err = op() // a probe: the answer must be right before it is timed
				}
				if err != nil {
					return fmt.Errorf("%s, %s: %v", rw.name, peers[p].name, err)
				}
				work[r][p] = append(work[r][p], op)
			}
		}
	}
	if nslices < 1 {
		nslices = 1
	}
	fmt.Fprintf(os.Stderr, "%d rows x %d servers x %d repetitions of %v in %d slices, %d clients\n", len(rows), len(peers), reps, d, nslices, clients)
	for rep := range reps {
		for r, rw := range rows {
			// Each server's d is cut into slices taken in turn, so that a
			// burst of load from the machine's other work falls on all.
			ops, cpu := make([]int, len(peers)), make([]float64, len(peers))
			for range nslices {
				for p := range peers {
					n, used, err := measure(servers[p], work[r][p], d/time.Duration(nslices))
					if err != nil {
						return fmt.Errorf("%s, %s: %v", rw.name, peers[p].name, err)
					}
					ops[p] += n
					cpu[p] += used
				}
			}
			for p := range peers {
				v := float64(ops[p]) / cpu[p] // operations per CPU second
				if rw.timing {
					v = cpu[p] / float64(ops[p]) // CPU seconds per operation
				}
				rw.results[p] = append(rw.results[p], v)
			}
		}
		fmt.Fprintf(os.Stderr, "repetition %d of %d done\n", rep+1, reps)
	}
	report(rows, d, reps, clients, nslices)
	return nil
}

// one adapts a request to an operation that counts one.
func one(f func() error) func() (int, error) {
	return func() (int, error) { return 1, f() }
}

func pick(legacy, modern string, isModern bool) string {
	if isModern {
		return modern
	}
	return legacy
}

func bytesName(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}

// measure runs the ops concurrently, each in a loop, for about d of wall
// time (each at least once), and returns how many operations were done and
// the server process's CPU seconds they took. CPU time (user and system:
// the library, net/http and garbage collection) rather than wall time,
// because on a shared machine the wall clock measures the neighbours too;
// the server's alone, because the client's cost is no library's.
func measure(s *server, ops []func() (int, error), d time.Duration) (int, float64, error) {
	// The previous run's garbage is not this one's cost.
	if _, err := s.ask("gc"); err != nil {
		return 0, 0, err
	}
	cpu0, err := s.cpu()
	if err != nil {
		return 0, 0, err
	}
	start := time.Now()
	counts := make([]int, len(ops))
	errs := make([]error, len(ops))
	var wg sync.WaitGroup
	for i, op := range ops {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k, err := op()
				if err != nil {
					errs[i] = err
					return
				}
				counts[i] += k
				if time.Since(start) >= d {
					return
				}
			}
		}()
	}
	wg.Wait()
	cpu1, err := s.cpu()
	if err = errors.Join(append(errs, err)...); err != nil {
		return 0, 0, err
	}
	n := 0
	for _, c := range counts {
		n += c
	}
	return n, (cpu1 - cpu0).Seconds(), nil
}

// roundDuration formats seconds with three significant digits.
func roundDuration(sec float64) string {
	d := time.Duration(sec * float64(time.Second))
	for r := time.Nanosecond; r < time.Second; r *= 10 {
		if d < 1000*r {
			return d.Round(r).String()
		}
	}
	return d.Round(time.Millisecond).String()
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func report(rows []*row, d time.Duration, reps, clients, slices int) {
	fmt.Printf("Scaling, %d clients over loopback HTTP, %v per measurement in %d slices, medians of %d interleaved repetitions.\n", clients, d, slices, reps)
	fmt.Println("Rates: requests (or full listings) per CPU second of the server process (library, net/http, GC); the")
	fmt.Println("client runs in another process and is not counted. Registration: CPU time to build a server and add")
	fmt.Println("its tools. The floor is net/http with a canned answer, no library: the most any server could reach.")
	fmt.Println("Ratios above 1 mean Sake for Go did better.")
	fmt.Println()
	fmt.Print("| run |")
	for _, p := range peers {
		fmt.Printf(" %s |", p.name)
	}
	fmt.Print(" floor / sake |")
	for _, i := range compared {
		fmt.Printf(" sake / %s |", peers[i].name)
	}
	fmt.Println()
	fmt.Print("|---|")
	for range len(peers) + len(compared) + 1 {
		fmt.Print("---|")
	}
	fmt.Println()
	for _, rw := range rows {
		cost := make([]float64, len(peers)) // CPU seconds per operation
		fmt.Printf("| %s |", rw.name)
		for p := range peers {
			m := median(rw.results[p])
			if rw.timing {
				cost[p] = m
				fmt.Printf(" %s |", roundDuration(m))
			} else {
				cost[p] = 1 / m
				fmt.Printf(" %.0f |", m)
			}
		}
		if rw.timing {
			fmt.Print(" – |") // the floor registers nothing
		} else {
			fmt.Printf(" %.2f |", cost[0]/cost[floorIndex])
		}
		for _, i := range compared {
			fmt.Printf(" %.2f |", cost[i]/cost[0])
		}
		fmt.Println()
	}
}
