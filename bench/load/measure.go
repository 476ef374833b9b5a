package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// caller issues one verified tools/call and returns its latency, or the
// reason the call did not count.
type caller interface {
	call(ctx context.Context) (time.Duration, error)
}

// errStop marks an error after which a client cannot go on (the server
// closed its output or refused the connection): the client stops instead
// of counting the same failure in a tight loop.
var errStop = errors.New("client stopped")

// stopErr wraps err so that measure stops the client that got it.
func stopErr(err error) error { return fmt.Errorf("%w: %w", errStop, err) }

// runResult is the outcome of one run of one configuration.
type runResult struct {
	cfg      config
	rep      int
	na       string // why the configuration could not be measured, or ""
	ok       int64  // verified results
	errs     int64  // calls that failed (and clients whose setup failed)
	elapsed  time.Duration
	rps      float64
	p50, p99 time.Duration
	rssKiB   int64
	// cpuPerCall is the server process's CPU time (user and system) over
	// the measured window per verified result: unlike rps, it hardly
	// depends on what else the machine runs.
	cpuPerCall time.Duration
	polls      int64 // tasks/get requests of the tasks workload
	// statements is how many the database ran during the window (when
	// counted: pg_stat_statements).
	statements int64
	counted    bool
	tally      *errTally
}

// measure runs the callers concurrently for dur (each stops issuing calls
// once dur has passed; ctx bounds the calls in flight) and fills r.
func measure(ctx context.Context, callers []caller, dur time.Duration, r *runResult) {
	// A preallocated latency slice per client: room for 60k rps overall.
	perClient := int(dur.Seconds()*60000)/len(callers) + 1024
	lats := make([][]time.Duration, len(callers))
	for i := range lats {
		lats[i] = make([]time.Duration, 0, perClient)
	}
	errs := make([]int64, len(callers))
	if r.tally == nil {
		r.tally = newErrTally()
	}
	var wg sync.WaitGroup
	start := time.Now()
	end := start.Add(dur)
	for i, c := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil && time.Now().Before(end) {
				d, err := c.call(ctx)
				if err != nil {
					errs[i]++
					r.tally.add(err)
					if errors.Is(err, errStop) {
						return
					}
					continue
				}
				lats[i] = append(lats[i], d)
			}
		}()
	}
	wg.Wait()
	r.elapsed = time.Since(start)
	all := slices.Concat(lats...)
	slices.Sort(all)
	r.ok = int64(len(all))
	for _, e := range errs {
		r.errs += e
	}
	r.rps = float64(r.ok) / r.elapsed.Seconds()
	r.p50 = percentile(all, 0.50)
	r.p99 = percentile(all, 0.99)
}

// percentile returns the q-quantile of sorted (nearest rank), or 0.
func percentile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.5) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// errTally counts errors by message, keeping the first few distinct ones
// verbatim so a report can say exactly what came back.
type errTally struct {
	mu     sync.Mutex
	counts map[string]int64
	order  []string
	other  int64
}

const maxDistinctErrors = 6

func newErrTally() *errTally { return &errTally{counts: make(map[string]int64)} }

func (t *errTally) add(err error) {
	msg := err.Error()
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.counts[msg]; ok {
		t.counts[msg]++
		return
	}
	if len(t.order) >= maxDistinctErrors {
		t.other++
		return
	}
	t.order = append(t.order, msg)
	t.counts[msg] = 1
}

// lines returns one line per distinct error: "N × message".
func (t *errTally) lines() []string {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []string
	for _, m := range t.order {
		out = append(out, fmt.Sprintf("%d × %s", t.counts[m], m))
	}
	if t.other > 0 {
		out = append(out, fmt.Sprintf("%d × (other messages)", t.other))
	}
	return out
}

// line formats r as one line of the per-run log; reps 0 marks an extra run.
func (r runResult) line(reps int) string {
	tag := "extra  "
	if reps > 0 {
		tag = fmt.Sprintf("rep %d/%d", r.rep, reps)
	}
	head := fmt.Sprintf("%s  %-6s %-13s", tag, r.cfg.srv.name, r.cfg.path.name)
	var b strings.Builder
	if r.na != "" {
		fmt.Fprintf(&b, "%s  n/a: %s", head, r.na)
	} else {
		fmt.Fprintf(&b, "%s  rps %8.0f  p50 %7.3fms  p99 %7.3fms  rss %5.1fMiB  ok %7d  err %d",
			head, r.rps, ms(r.p50), ms(r.p99), float64(r.rssKiB)/1024, r.ok, r.errs)
		if r.cpuPerCall > 0 {
			fmt.Fprintf(&b, "  cpu %.1fµs/call", float64(r.cpuPerCall)/float64(time.Microsecond))
		}
		if r.cfg.path.tasks && r.ok > 0 {
			fmt.Fprintf(&b, "  tasks/get per task %.2f", float64(r.polls)/float64(r.ok))
		}
		if r.counted && r.ok > 0 {
			fmt.Fprintf(&b, "  db %.3f stmt/op", float64(r.statements)/float64(r.ok))
		}
	}
	for _, l := range r.tally.lines() {
		b.WriteString("\n      error: " + l)
	}
	return b.String()
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
