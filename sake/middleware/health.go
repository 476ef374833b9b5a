package middleware

import (
	"context"
	"log/slog"
	"net/http"
	"path"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultCheckTimeout bounds one readiness check by default.
const DefaultCheckTimeout = 2 * time.Second

// Health answers the health probes of an orchestrator or load balancer,
// to mount beside the MCP endpoint:
//
//	health := middleware.NewHealth()
//	health.AddCheck("database", pool.Ping)
//	mux.Handle("/healthz", health)
//	mux.Handle("/readyz", health)
//
// /healthz (any path not ending in /readyz) answers 200 while the
// process serves HTTP at all. /readyz answers 200 when the server is not
// shutting down and every readiness check passes, else 503; the body
// names what failed (the check's name, never its error, which is logged).
// Both answer GET and HEAD only.
type Health struct {
	shutdown atomic.Bool
	timeout  time.Duration
	logger   *slog.Logger

	mu     sync.Mutex
	checks []check
}

type check struct {
	name    string
	fn      func(context.Context) error
	failing *atomic.Bool // logged once per failure, until it passes
}

// NewHealth returns the probes, with the options Logger and CheckTimeout.
func NewHealth(opts ...Option) *Health {
	c := newConfig(opts)
	t := c.checkTimeout
	if t <= 0 {
		t = DefaultCheckTimeout
	}
	return &Health{timeout: t, logger: c.logger}
}

// CheckTimeout bounds each readiness check of a Health (default
// DefaultCheckTimeout, 2 seconds): a check still running then fails.
func CheckTimeout(d time.Duration) Option { return func(c *config) { c.checkTimeout = d } }

// AddCheck adds a readiness check, such as a database ping: /readyz fails
// while fn returns an error.
func (h *Health) AddCheck(name string, fn func(ctx context.Context) error) {
	h.mu.Lock()
	h.checks = append(h.checks, check{name: name, fn: fn, failing: new(atomic.Bool)})
	h.mu.Unlock()
}

// Shutdown marks the server as shutting down: from now on /readyz answers
// 503, so that a load balancer sends no new requests while the ones
// under way finish. Call it before http.Server.Shutdown.
func (h *Health) Shutdown() { h.shutdown.Store(true) }

// ShuttingDown reports whether Shutdown was called.
func (h *Health) ShuttingDown() bool { return h.shutdown.Load() }

// ServeHTTP answers /readyz for a path ending in /readyz, /healthz for
// any other.
func (h *Health) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if path.Base(r.URL.Path) == "readyz" {
		h.ready(w, r)
		return
	}
	h.live(w, r)
}

// Live returns the handler of /healthz.
func (h *Health) Live() http.Handler { return http.HandlerFunc(h.live) }

// Ready returns the handler of /readyz.
func (h *Health) Ready() http.Handler { return http.HandlerFunc(h.ready) }

func (h *Health) live(w http.ResponseWriter, r *http.Request) {
	if !probeMethod(w, r) {
		return
	}
	writeProbe(w, r, http.StatusOK, `{"status":"ok"}`)
}

func (h *Health) ready(w http.ResponseWriter, r *http.Request) {
	if !probeMethod(w, r) {
		return
	}
	if h.shutdown.Load() {
		writeProbe(w, r, http.StatusServiceUnavailable, `{"status":"unavailable","reason":"shutting down"}`)
		return
	}
	h.mu.Lock()
	checks := h.checks
	h.mu.Unlock()
	for _, c := range checks {
		ctx, cancel := context.WithTimeout(r.Context(), h.timeout)
		err := c.fn(ctx)
		cancel()
		if err != nil {
			if !c.failing.Swap(true) {
				h.logger.Warn("middleware: readiness check failed; /readyz answers 503 until it passes", "check", c.name, "err", err)
			}
			writeProbe(w, r, http.StatusServiceUnavailable, `{"status":"unavailable","reason":"check failed","check":`+quote(c.name)+`}`)
			return
		}
		if c.failing.Swap(false) {
			h.logger.Info("middleware: readiness check passes again", "check", c.name)
		}
	}
	writeProbe(w, r, http.StatusOK, `{"status":"ok"}`)
}

func probeMethod(w http.ResponseWriter, r *http.Request) bool {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return true
	}
	w.Header().Set("Allow", "GET, HEAD")
	http.Error(w, "method not allowed: health probes answer GET and HEAD", http.StatusMethodNotAllowed)
	return false
}

func writeProbe(w http.ResponseWriter, r *http.Request, status int, body string) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write([]byte(body + "\n"))
	}
}

// quote renders s as a JSON string.
func quote(s string) string {
	b := make([]byte, 0, len(s)+2)
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20:
			const hex = "0123456789abcdef"
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
		default:
			b = append(b, c)
		}
	}
	return string(append(b, '"'))
}
