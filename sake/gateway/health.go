package gateway

import (
	"context"
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/sakemcp/sake-go/sake"
)

// Hooks are told what the gateway does, for metrics (sake/otel's
// GatewayMetrics records them as OpenTelemetry instruments) or logs.
// Each hook runs on the goroutine of what it reports and must be quick.
type Hooks struct {
	// Call is told of every request routed to a remote (tools/call,
	// prompts/get, resources/read, completion/complete), once answered.
	Call func(CallEvent)
	// Restarted is told each time a remote connects again after the
	// first time.
	Restarted func(server string)
	// Reloaded is told the outcome of each reload (nil when applied).
	Reloaded func(err error)
}

// CallEvent is one request a remote answered.
type CallEvent struct {
	// Server is the entry's key, Method the JSON-RPC method.
	Server, Method string
	// Duration is how long the gateway took to answer, the remote's time
	// included.
	Duration time.Duration
	// Failed says the answer was an error: a protocol error or a tool's
	// error result.
	Failed bool
}

// Observe sets the hooks that are told what the gateway does.
func Observe(h Hooks) Option { return func(o *options) { o.hooks = h } }

func (h Hooks) restarted(server string) {
	if h.Restarted != nil {
		h.Restarted(server)
	}
}

// remoteStats are the counters of one remote.
type remoteStats struct {
	calls, errors atomic.Int64
	roundTrip     atomic.Int64 // of the last ping, in nanoseconds
}

// status is what Status reports of r.
func (r *remote) status() Status {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := Status{Key: r.key, Namespace: r.ns, Connected: r.up, Err: r.lastErr, Restarts: r.restarts,
		Required: r.entry.Required, RoundTrip: time.Duration(r.stats.roundTrip.Load()),
		Calls: r.stats.calls.Load(), Errors: r.stats.errors.Load()}
	for name, why := range r.leftOut {
		s.LeftOut = append(s.LeftOut, name+": "+why)
	}
	sort.Strings(s.LeftOut)
	return s
}

// leaveOut records that a component of r is not served, and why ("" to
// say it is served again).
func (r *remote) leaveOut(component, why string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if why == "" {
		delete(r.leftOut, component)
		return
	}
	if r.leftOut == nil {
		r.leftOut = map[string]string{}
	}
	r.leftOut[component] = why
}

// route is the remote that serves a request's component, nil when none
// does (a method that names none, or a component of the gateway's own).
func (g *Gateway) route(req *sake.Request) *remote {
	var name, sep string
	switch req.Method {
	case "tools/call", "prompts/get":
		name, sep = req.Params.Name, "_"
	case "resources/read":
		name, sep = req.Params.URI, "+"
	case "completion/complete":
		if ref := req.Params.Ref; ref != nil {
			if ref.Name != "" {
				name, sep = ref.Name, "_"
			} else {
				name, sep = ref.URI, "+"
			}
		}
	default:
		return nil
	}
	if name == "" {
		return nil
	}
	table := g.routes.Load()
	if table == nil {
		return nil
	}
	if ns, _, ok := strings.Cut(name, sep); ok {
		if r := table.byNS[ns]; r != nil {
			return r
		}
	}
	if len(table.merged) == 0 {
		return nil
	}
	kind := "tool:"
	switch {
	case sep == "+":
		kind = "uri:"
	case req.Method == "prompts/get" || (req.Params.Ref != nil && req.Params.Ref.Type == "ref/prompt"):
		kind = "prompt:"
	}
	if key, ok := g.claims.owner(kind + name); ok {
		return table.merged[key]
	}
	return nil
}

// routeTable finds a remote by namespace, or a merged one by key.
type routeTable struct {
	byNS   map[string]*remote
	merged map[string]*remote
}

// reroute rebuilds the route table from g.remotes; g.mu is held.
func (g *Gateway) reroute() {
	t := &routeTable{byNS: map[string]*remote{}, merged: map[string]*remote{}}
	for _, r := range g.remotes {
		if r.ns == "" {
			t.merged[r.key] = r
		} else {
			t.byNS[r.ns] = r
		}
	}
	g.routes.Store(t)
}

// observe is the gateway server's Request hook that counts each remote's
// calls and errors and tells the hooks. It is installed with
// sake.ObserveOutcome: it reads of a result only isError, so a remote's
// tool result still goes into the reply as the remote wrote it, and a
// call forwarded to a stdio child holds no goroutine while it runs.
func (g *Gateway) observe(ctx context.Context, req *sake.Request) (context.Context, func(sake.RequestDone)) {
	r := g.route(req)
	if r == nil {
		return ctx, nil
	}
	start, method := time.Now(), req.Method
	return ctx, func(d sake.RequestDone) {
		if req.ProtocolVersion == "" {
			return // refused before it reached the entry (its version is set once it is valid)
		}
		failed := d.Error != nil || d.ToolError
		r.stats.calls.Add(1)
		if failed {
			r.stats.errors.Add(1)
		}
		if h := g.o.hooks.Call; h != nil {
			h(CallEvent{Server: r.key, Method: method, Duration: time.Since(start), Failed: failed})
		}
	}
}

// Ready reports whether every entry marked "required" is connected.
func (g *Gateway) Ready() bool {
	for _, s := range g.Status() {
		if s.Required && !s.Connected {
			return false
		}
	}
	return true
}

// healthBody is the JSON of the health endpoints.
type healthBody struct {
	Ready bool `json:"ready"`
	// ConfigError is why the last reload was refused.
	ConfigError string         `json:"configError,omitempty"`
	Servers     []serverHealth `json:"servers"`
}

type serverHealth struct {
	Key       string   `json:"key"`
	Namespace string   `json:"namespace"`
	State     string   `json:"state"` // up, connecting, down
	Required  bool     `json:"required,omitempty"`
	LastError string   `json:"lastError,omitempty"`
	Restarts  int      `json:"restarts"`
	RoundTrip float64  `json:"lastRoundTripMs"`
	Calls     int64    `json:"calls"`
	Errors    int64    `json:"errors"`
	LeftOut   []string `json:"leftOut,omitempty"`
}

// health is the body of the health endpoints, every error redacted.
func (g *Gateway) health() healthBody {
	g.mu.RLock()
	entries := make([]Entry, 0, len(g.remotes))
	for _, r := range g.remotes {
		entries = append(entries, r.entry)
	}
	g.mu.RUnlock()
	hide := redactor(entries...)
	b := healthBody{Ready: true, Servers: []serverHealth{}}
	if err := g.ReloadError(); err != nil {
		b.ConfigError = hide(err.Error())
	}
	for _, s := range g.Status() {
		h := serverHealth{Key: s.Key, Namespace: s.Namespace, Required: s.Required, Restarts: s.Restarts,
			RoundTrip: float64(s.RoundTrip) / float64(time.Millisecond), Calls: s.Calls, Errors: s.Errors, LeftOut: s.LeftOut}
		switch {
		case s.Connected:
			h.State = "up"
		case s.Err != nil:
			h.State = "down"
		default:
			h.State = "connecting"
		}
		if s.Err != nil {
			h.LastError = hide(s.Err.Error())
		}
		if s.Required && !s.Connected {
			b.Ready = false
		}
		b.Servers = append(b.Servers, h)
	}
	return b
}

// HealthHandler answers a liveness probe (mount it at /healthz): 200
// while the process serves, with a JSON body per entry (state, last
// error with its secrets hidden, restarts, last round-trip time, calls,
// errors, components left out) and the error of a refused reload.
func (g *Gateway) HealthHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		writeHealth(w, http.StatusOK, g.health())
	})
}

// ReadyHandler answers a readiness probe (mount it at /readyz): 200
// when every entry marked "required" is connected, else 503, with the
// body of HealthHandler.
func (g *Gateway) ReadyHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		b := g.health()
		code := http.StatusOK
		if !b.Ready {
			code = http.StatusServiceUnavailable
		}
		writeHealth(w, code, b)
	})
}

func writeHealth(w http.ResponseWriter, code int, b healthBody) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(b)
}

// redactor hides the secrets of the entries in a text (see secretsOf).
func redactor(entries ...Entry) func(string) string {
	var secrets []string
	for _, e := range entries {
		secrets = append(secrets, secretsOf(e)...)
	}
	if len(secrets) == 0 {
		return func(s string) string { return s }
	}
	sort.Slice(secrets, func(i, j int) bool { return len(secrets[i]) > len(secrets[j]) })
	pairs := make([]string, 0, 2*len(secrets))
	for _, s := range secrets {
		pairs = append(pairs, s, redacted)
	}
	return strings.NewReplacer(pairs...).Replace
}

// owner is the remote that holds name, if one does.
func (c *claims) owner(name string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	key, ok := c.owners[name]
	return key, ok
}
