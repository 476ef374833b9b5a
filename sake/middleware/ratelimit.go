package middleware

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// Limit is one rate limit: a token bucket per subject, holding up to Burst
// requests and refilled with Rate requests every Per.
type Limit struct {
	// Name names the limit in the error a refused request gets
	// (data.limit) and in the bucket's key: limits sharing a store
	// across replicas must be named alike. Default: "tools:" and the
	// tools joined by commas, the methods joined by commas, or
	// "requests".
	Name string
	// Rate is how many requests a subject may make every Per. It must be
	// positive.
	Rate int
	// Per is the period of Rate (default one second).
	Per time.Duration
	// Burst is how many requests a subject may make at once after a
	// quiet spell (default Rate).
	Burst int
	// Tools, when set, limits only tools/call of these tools; they share
	// one bucket (a tool group). Give each tool a Limit of its own to
	// limit them separately.
	Tools []string
	// Methods, when set, limits only requests of these methods
	// ("tools/call", "resources/read", ...). With neither Tools nor
	// Methods the limit counts every request, of either era.
	Methods []string
	// Key decides whose bucket a request draws on (default SubjectOf:
	// per person, machine client or remote address; Everyone for one
	// bucket for the whole server).
	Key KeyFunc
}

// RateLimiter holds several Limits at once: a request takes a token from
// the bucket of every limit that counts it, or from none when one of them
// is empty.
type RateLimiter struct {
	limits []limit
	cfg    config
	failed atomic.Bool // the store's last call failed (logged once)
}

const maxLimits = 64

type limit struct {
	name    string
	rate    Rate
	tools   map[string]bool
	methods map[string]bool
	few     []string // the methods, when they are few: compared, not hashed
	group   []string // the tools, when they are few: compared, not hashed
	key     KeyFunc
}

// NewRateLimiter returns a limiter of the limits, with the options
// Store, MaxKeys, FailOpen, Clock and Logger. It fails when a limit has
// no positive Rate, two limits have the same Name, or there are more than
// 64 limits.
func NewRateLimiter(limits []Limit, opts ...Option) (*RateLimiter, error) {
	if len(limits) > maxLimits {
		return nil, fmt.Errorf("middleware: %d limits; a RateLimiter holds at most %d (use several limiters)", len(limits), maxLimits)
	}
	l := &RateLimiter{cfg: newConfig(opts)}
	if l.cfg.store == nil {
		l.cfg.store = NewMemoryBuckets(l.cfg.maxKeys)
		if !l.cfg.clockSet {
			l.cfg.now = monotonicClock()
		}
	}
	seen := map[string]bool{}
	for i, in := range limits {
		if in.Rate <= 0 {
			return nil, fmt.Errorf("middleware: limit %d (%q) needs a positive Rate", i, in.Name)
		}
		per, burst := in.Per, in.Burst
		if per <= 0 {
			per = time.Second
		}
		if burst <= 0 {
			burst = in.Rate
		}
		interval := per / time.Duration(in.Rate)
		if interval <= 0 {
			return nil, fmt.Errorf("middleware: limit %d (%q) allows more than one request per nanosecond; lower Rate or raise Per", i, in.Name)
		}
		x := limit{name: in.Name, rate: Rate{Interval: interval, Burst: burst}, key: in.Key}
		if len(in.Tools) > 0 {
			x.tools = set(in.Tools)
			if len(in.Tools) <= 4 {
				x.group = append([]string(nil), in.Tools...)
			}
		}
		if len(in.Methods) > 0 {
			x.methods = set(in.Methods)
			if len(in.Methods) <= 4 {
				x.few = append([]string(nil), in.Methods...)
			}
		}
		if x.name == "" {
			switch {
			case len(in.Tools) > 0:
				x.name = "tools:" + strings.Join(in.Tools, ",")
			case len(in.Methods) > 0:
				x.name = strings.Join(in.Methods, ",")
			default:
				x.name = "requests"
			}
		}
		if seen[x.name] {
			return nil, fmt.Errorf("middleware: two limits are named %q; give each Limit a distinct Name", x.name)
		}
		seen[x.name] = true
		l.limits = append(l.limits, x)
	}
	return l, nil
}

// monotonicClock is time.Now for a MemoryBuckets, which only subtracts
// the times it is given: a time as far from a fixed start as the
// monotonic clock says, read at half the cost of time.Now. Its wall clock
// does not follow the system's changes, so a shared store, which compares
// the wall clocks of replicas, gets time.Now.
func monotonicClock() func() time.Time {
	start := time.Now()
	return func() time.Time { return start.Add(time.Since(start)) }
}

func set(names []string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// counts reports whether the limit counts req.
func (x *limit) counts(req *sake.Request) bool {
	switch {
	case x.few != nil:
		if !slices.Contains(x.few, req.Method) {
			return false
		}
	case x.methods != nil && !x.methods[req.Method]:
		return false
	}
	switch {
	case x.group != nil:
		return req.Method == "tools/call" && slices.Contains(x.group, req.Params.Name)
	case x.tools != nil:
		return req.Method == "tools/call" && x.tools[req.Params.Name]
	}
	return true
}

// Middleware returns the limiter as sake middleware: a request over a
// limit is answered with sake.RateLimited (CodeRateLimited, the delay in
// data.retryAfterMs; over HTTP 429 with Retry-After) and does not run.
// It looks at the request only, never at a result, so install it with
// sake.UseObserving: then a tool result left encoded, a proxy's or a
// gateway's, still goes into the reply as the remote wrote it.
//
//	srv := sake.MustNew(impl, sake.UseObserving(rl.Middleware()))
func (l *RateLimiter) Middleware() sake.Middleware {
	return func(next sake.Handler) sake.Handler {
		return func(ctx context.Context, req *sake.Request) (any, error) {
			if err := l.Allow(ctx, req); err != nil {
				return nil, err
			}
			return next(ctx, req)
		}
	}
}

// Allow takes req's tokens, or returns the error to answer it with: a
// *sake.Error of CodeRateLimited when a limit refuses it, of
// CodeServerBusy when the store failed and the limiter fails closed.
func (l *RateLimiter) Allow(ctx context.Context, req *sake.Request) error {
	var now time.Time
	var subject Subject
	haveSubject := false
	var taken uint64 // the limits a token was taken from
	for i := range l.limits {
		x := &l.limits[i]
		if !x.counts(req) {
			continue
		}
		if now.IsZero() {
			now = l.cfg.now()
		}
		var who Subject
		if x.key != nil {
			who = x.key(req)
		} else {
			if !haveSubject {
				subject, haveSubject = SubjectOf(req), true
			}
			who = subject
		}
		wait, err := l.cfg.store.Take(ctx, BucketKey{Limit: x.name, Subject: who}, x.rate, now)
		if err != nil {
			l.storeFailed(err)
			if l.cfg.failOpen {
				continue
			}
			l.giveBack(ctx, req, taken, now)
			return storeDown
		}
		l.storeWorks()
		if wait > 0 {
			l.giveBack(ctx, req, taken, now)
			return sake.RateLimited(x.name, wait)
		}
		taken |= 1 << i
	}
	return nil
}

// storeDown answers a request when the store fails and the limiter fails
// closed.
var storeDown = &sake.Error{Code: sake.CodeServerBusy, Message: "Server busy: the rate limit store cannot be reached; retry after the delay in data.retryAfterMs",
	Data: &protocol.RetryData{RetryAfterMs: 1000}}

// giveBack returns the tokens req took from the limits in taken.
func (l *RateLimiter) giveBack(ctx context.Context, req *sake.Request, taken uint64, now time.Time) {
	for i := range l.limits {
		x := &l.limits[i]
		if taken&(1<<i) == 0 {
			continue
		}
		who := SubjectOf(req)
		if x.key != nil {
			who = x.key(req)
		}
		if err := l.cfg.store.Return(ctx, BucketKey{Limit: x.name, Subject: who}, x.rate, now); err != nil {
			l.storeFailed(err)
		}
	}
}

func (l *RateLimiter) storeFailed(err error) {
	if !l.failed.Swap(true) {
		how := "refusing requests until it recovers"
		if l.cfg.failOpen {
			how = "letting requests through unlimited until it recovers"
		}
		l.cfg.logger.Error("middleware: the rate limit store failed; "+how, "err", err)
	}
}

func (l *RateLimiter) storeWorks() {
	if l.failed.Load() && l.failed.Swap(false) {
		l.cfg.logger.Info("middleware: the rate limit store works again")
	}
}

// ErrRateLimited matches (with errors.Is) the error of a request a
// RateLimiter refused.
var ErrRateLimited error = &sake.Error{Code: sake.CodeRateLimited}
