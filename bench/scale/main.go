// Command scale measures how Sake for Go, mcp-go and go-sdk cost as the
// work grows: registering 10 to 4,000 tools, listing and calling them, and
// tools/call with arguments of 100 B to 1 MiB and a nested argument, in
// both protocol eras. Everything runs in one process over loopback HTTP
// (httptest), one client at a time, the runs interleaved: for each
// repetition every row once, each server in turn. It prints the medians
// and the ratios.
//
//	go run ./scale                   # 300 ms per measurement, 3 repetitions
//	go run ./scale -d 1s -reps 5
//	go run ./scale -counts 10,100 -sizes 100,10240
package main

import (
	"flag"
	"fmt"
	"net/http/httptest"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	dur := flag.Duration("d", 300*time.Millisecond, "how long each measurement runs")
	reps := flag.Int("reps", 3, "repetitions (medians are reported)")
	countsFlag := flag.String("counts", "10,100,1000,4000", "tool counts")
	sizesFlag := flag.String("sizes", "100,10240,102400,1048576", "argument sizes in bytes")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to `FILE`")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "scale:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	counts, err := ints(*countsFlag)
	if err == nil {
		var sizes []int
		if sizes, err = ints(*sizesFlag); err == nil {
			err = run(counts, sizes, *dur, *reps)
		}
	}
	if err != nil {
		pprof.StopCPUProfile()
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
	timing  bool                                     // a duration per operation (lower is better), not a rate
	prepare func(p int) (op func() error, err error) // per peer index
	results [][]float64                              // per peer
}

func run(counts, sizes []int, d time.Duration, reps int) error {
	// One server per peer and tool count, serving both eras.
	type served struct{ legacy, modern string }
	urls := make([]map[int]served, len(peers))
	maxN := slices.Max(counts)
	smallest := slices.Min(counts)
	for i, p := range peers {
		urls[i] = map[int]served{}
		for _, n := range counts {
			l, m := p.build(n)
			ls, ms := httptest.NewServer(l), httptest.NewServer(m)
			defer ls.Close()
			defer ms.Close()
			urls[i][n] = served{ls.URL, ms.URL}
		}
	}
	_ = maxN
	var rows []*row
	for _, n := range counts {
		rows = append(rows, &row{name: fmt.Sprintf("register %d tools", n), timing: true,
			prepare: func(p int) (func() error, error) {
				return func() error { peers[p].register(n); return nil }, nil
			}})
	}
	for _, n := range counts {
		rows = append(rows, &row{name: fmt.Sprintf("tools/list, %d tools", n),
			prepare: func(p int) (func() error, error) {
				c, err := connect(urls[p][n].legacy, false)
				if err != nil {
					return nil, err
				}
				return func() error { return c.listAll(n + 2) }, nil
			}})
		rows = append(rows, &row{name: fmt.Sprintf("tools/call, %d tools", n),
			prepare: func(p int) (func() error, error) {
				c, err := connect(urls[p][n].legacy, false)
				if err != nil {
					return nil, err
				}
				name := toolName(n / 2)
				return func() error { return c.call(name, `{"text":"hi"}`, "hi") }, nil
			}})
	}
	for _, modern := range []bool{false, true} {
		era := "2025-11-25"
		if modern {
			era = "2026-07-28"
		}
		for _, size := range sizes {
			text := strings.Repeat("x", size)
			args := `{"text":"` + text + `"}`
			rows = append(rows, &row{name: fmt.Sprintf("tools/call %s, %s argument", era, bytesName(size)),
				prepare: func(p int) (func() error, error) {
					u := urls[p][smallest]
					c, err := connect(pick(u.legacy, u.modern, modern), modern)
					if err != nil {
						return nil, err
					}
					return func() error { return c.call("echo", args, text) }, nil
				}})
		}
		rows = append(rows, &row{name: fmt.Sprintf("tools/call %s, nested argument", era),
			prepare: func(p int) (func() error, error) {
				u := urls[p][smallest]
				c, err := connect(pick(u.legacy, u.modern, modern), modern)
				if err != nil {
					return nil, err
				}
				return func() error { return c.call("order", orderJSON, orderAnswer) }, nil
			}})
	}

	ops := make([][]func() error, len(rows))
	for r, rw := range rows {
		rw.results = make([][]float64, len(peers))
		ops[r] = make([]func() error, len(peers))
		for p := range peers {
			op, err := rw.prepare(p)
			if err == nil {
				err = op() // a probe: the answer must be right before it is timed
			}
			if err != nil {
				return fmt.Errorf("%s, %s: %v", rw.name, peers[p].name, err)
			}
			ops[r][p] = op
		}
	}
	fmt.Fprintf(os.Stderr, "%d rows x %d servers x %d repetitions of %v\n", len(rows), len(peers), reps, d)
	for rep := range reps {
		for r, rw := range rows {
			for p := range peers {
				v, err := measure(ops[r][p], d, rw.timing)
				if err != nil {
					return fmt.Errorf("%s, %s: %v", rw.name, peers[p].name, err)
				}
				rw.results[p] = append(rw.results[p], v)
			}
		}
		fmt.Fprintf(os.Stderr, "repetition %d of %d done\n", rep+1, reps)
	}
	report(rows, d, reps)
	return nil
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

// measure runs op for about d of wall time (at least once) and returns
// operations per second of CPU time, or with timing, CPU seconds per
// operation. CPU time (user and system, of the whole process: the client,
// the server and their garbage collection) rather than wall time, because
// on a shared machine the wall clock measures the neighbours too.
func measure(op func() error, d time.Duration, timing bool) (float64, error) {
	runtime.GC() // the previous run's garbage is not this one's cost
	start, cpu0 := time.Now(), cpuTime()
	n := 0
	for {
		if err := op(); err != nil {
			return 0, err
		}
		n++
		if time.Since(start) >= d {
			used := (cpuTime() - cpu0).Seconds()
			if timing {
				return used / float64(n), nil
			}
			return float64(n) / used, nil
		}
	}
}

// cpuTime is the CPU time the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func report(rows []*row, d time.Duration, reps int) {
	fmt.Printf("Scaling, one client over loopback HTTP, %v per measurement, medians of %d interleaved repetitions.\n", d, reps)
	fmt.Println("Rates: requests (or full listings) per CPU second of the whole process (client, net/http, library).")
	fmt.Println("Registration: CPU time to build a server and add its tools. The floor is the client and net/http with a")
	fmt.Println("canned answer, included in every figure. Ratios above 1 mean Sake for Go did better.")
	fmt.Println()
	fmt.Print("| run |")
	for _, p := range peers {
		fmt.Printf(" %s |", p.name)
	}
	for _, i := range compared {
		fmt.Printf(" sake / %s |", peers[i].name)
	}
	fmt.Println()
	fmt.Print("|---|")
	for range len(peers) + len(compared) {
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
				fmt.Printf(" %s |", time.Duration(m*float64(time.Second)).Round(10*time.Microsecond))
			} else {
				cost[p] = 1 / m
				fmt.Printf(" %.0f |", m)
			}
		}
		for _, i := range compared {
			fmt.Printf(" %.2f |", cost[i]/cost[0])
		}
		fmt.Println()
	}
}
