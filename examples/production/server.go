package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/middleware"
	"github.com/sakemcp/sake-go/sake/middleware/pgbuckets"
	sakeotel "github.com/sakemcp/sake-go/sake/otel"
	"github.com/sakemcp/sake-go/sake/pgbroker"
	"github.com/sakemcp/sake-go/sake/plug"
)

// Catalog is the example's tools: a product search and a report that
// takes a while.
type Catalog struct{}

// SearchArgs are the arguments of search.
type SearchArgs struct {
	Query string `json:"query" jsonschema:"description=what to look for\\, for example 'kettle'"`
}

// Search finds products whose name contains the query.
func (Catalog) Search(ctx *sake.Context, a SearchArgs) (string, error) {
	var found []string
	for _, p := range products {
		if strings.Contains(p, strings.ToLower(a.Query)) {
			found = append(found, p)
		}
	}
	if len(found) == 0 {
		return "No product matches " + a.Query + ".", nil
	}
	return strings.Join(found, "\n"), nil
}

// ReportArgs are the arguments of report.
type ReportArgs struct {
	Seconds int `json:"seconds" jsonschema:"description=how long the report takes to build"`
}

// Report builds a report, which takes as long as asked; it stops when its
// context ends (the request is cancelled or the tool's timeout passes).
func (Catalog) Report(ctx *sake.Context, a ReportArgs) (string, error) {
	t := time.NewTimer(time.Duration(a.Seconds) * time.Second)
	defer t.Stop()
	select {
	case <-t.C:
		return fmt.Sprintf("Report ready after %ds.", a.Seconds), nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// Declare marks search read-only: it changes nothing, so its results may
// be kept by the cache.
func (Catalog) Declare(d *sake.Declarations) { d.Tool("Search").ReadOnly() }

var products = []string{"electric kettle", "tea kettle", "teapot", "coffee grinder", "milk frother"}

// config is what the flags set.
type config struct {
	RateLimit   int           // tools/call per second per caller; 0 for none
	AccessLog   bool          // one JSON line per request on Log
	NoCache     bool          // do not keep the results of read-only tools
	ToolTimeout time.Duration // per call
	MaxResult   int           // bytes of a tool result
	Log         io.Writer     // where logs go (stderr)
	Clock       func() time.Time
	// Postgres, when set, keeps the rate limits' buckets in PostgreSQL,
	// shared by every replica on the database, carries list changes and
	// resource updates between the replicas (so that each one's cache
	// drops what another made stale), and /readyz pings it.
	Postgres *pgxpool.Pool
	// OTel points the instrumentation at providers of its own (-otlp);
	// without it the global providers are used.
	OTel []sakeotel.Option
}

// app is the server, wired for production.
type app struct {
	srv     *sake.Server
	mcp     *plug.Handler
	health  *middleware.Health
	handler http.Handler
	logger  *slog.Logger
	sink    *middleware.JSONSink // where every log line goes, buffered
}

// newApp builds the server: rate limits first (a refused call costs
// nothing), then error masking, the cache (a kept result holds no slot),
// concurrency and timeouts, and the result cap nearest the tools; the
// access log and telemetry observe everything.
func newApp(cfg config) (*app, error) {
	// One buffered sink for every line, so the access log's lines cost
	// a request no write and no slog formatting.
	sink := middleware.NewJSONSink(cfg.Log, nil)
	logger := slog.New(sakeotel.LogHandler(sink))
	clock := cfg.Clock
	if clock == nil {
		clock = time.Now
	}
	var mws []sake.Middleware
	// The rate limiter looks at requests only: it is installed with
	// UseObserving, first, so that a refused request costs nothing.
	var observing []sake.Middleware
	if cfg.RateLimit > 0 {
		rlOpts := []middleware.Option{middleware.Clock(clock), middleware.Logger(logger)}
		if cfg.Postgres != nil {
			store, err := pgbuckets.New(context.Background(), cfg.Postgres)
			if err != nil {
				return nil, err
			}
			rlOpts = append(rlOpts, middleware.Store(store))
		}
		rl, err := middleware.NewRateLimiter([]middleware.Limit{
			{Name: "calls", Rate: cfg.RateLimit, Methods: []string{"tools/call"}},
		}, rlOpts...)
		if err != nil {
			return nil, err
		}
		observing = append(observing, rl.Middleware())
	}
	limits, err := middleware.ToolLimits(middleware.ToolLimit{Timeout: cfg.ToolTimeout, MaxConcurrent: 64, MaxPerSubject: 4, Queue: 64})
	if err != nil {
		return nil, err
	}
	// MaskErrors sits outside the timeouts, whose answer is the server's
	// own, and inside the rate limits.
	mws = append(mws, middleware.MaskErrors(logger))
	if !cfg.NoCache {
		cache, err := middleware.Cache{TTL: time.Minute, Clock: clock}.Middleware()
		if err != nil {
			return nil, err
		}
		mws = append(mws, cache)
	}
	mws = append(mws, limits, middleware.ResultCap{MaxBytes: cfg.MaxResult}.Middleware())
	tel := sakeotel.New(cfg.OTel...) // by default the global providers: no-ops until the program installs some
	opts := []sake.Option{sake.Name("production", "1.0.0"), sake.Logger(logger),
		sake.UseObserving(observing...), sake.Use(mws...), tel.Option(),
		sake.Instructions("Searches a product catalog and builds reports.")}
	if cfg.Postgres != nil {
		opts = append(opts, sake.Broker(pgbroker.New(cfg.Postgres, replicaID(), logger)))
	}
	if cfg.AccessLog {
		// The sink itself, not the telemetry wrapper: the access log
		// writes its records straight into it.
		opts = append(opts, middleware.AccessLog{Logger: slog.New(sink), Clock: clock}.Option())
	}
	srv, err := sake.New(Catalog{}, opts...)
	if err != nil {
		return nil, err
	}
	a := &app{srv: srv, mcp: plug.New(srv, plug.Logger(logger)), health: middleware.NewHealth(middleware.Logger(logger)), logger: logger, sink: sink}
	if cfg.Postgres != nil {
		a.health.AddCheck("postgres", cfg.Postgres.Ping)
	}
	r := chi.NewRouter()
	r.Handle("/mcp", tel.Handler(a.mcp))
	r.Handle("/healthz", a.health.Live())
	r.Handle("/readyz", a.health.Ready())
	a.handler = r
	return a, nil
}

// shutdown stops the server gracefully: /readyz answers 503 at once, so
// the load balancer stops sending; after drain, the MCP server stops
// (listen streams end, legacy sessions close) and waits for the calls
// under way, then the HTTP server closes its connections.
func (a *app) shutdown(ctx context.Context, hs *http.Server, drain time.Duration) error {
	a.health.Shutdown()
	if drain > 0 {
		t := time.NewTimer(drain)
		select {
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
	}
	err := a.srv.Shutdown(ctx)
	a.mcp.Close()
	if hs != nil {
		if herr := hs.Shutdown(ctx); herr != nil && err == nil {
			err = herr
		}
	}
	_ = a.sink.Close() // the last lines
	return err
}

// replicaID names this process among the replicas on one database.
func replicaID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
