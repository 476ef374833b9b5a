package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	otelapi "go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/auth"
	"github.com/sakemcp/sake-go/sake/gateway"
	"github.com/sakemcp/sake-go/sake/gateway/pgsignins"
	"github.com/sakemcp/sake-go/sake/gateway/usertokens"
	"github.com/sakemcp/sake-go/sake/gateway/usertokens/pgusertokens"
	sakeotel "github.com/sakemcp/sake-go/sake/otel"
	"github.com/sakemcp/sake-go/sake/pgreplica"
	"github.com/sakemcp/sake-go/sake/plug"
	"github.com/sakemcp/sake-go/sake/proxy"
	"github.com/sakemcp/sake-go/sake/stdio"
)

const gatewayUsage = `usage: sake gateway [-config mcp.json] [-http ADDR | -stdio] [flags]

Gateway serves the servers of an mcpServers file (the JSON Claude
Desktop, Cursor and VS Code read) as one MCP server: each entry is
started (command) or connected (url), mounted under its key (tool
github_search, resource github+repo://x) and brought back with backoff
when it dies, while the others go on serving.

With -http it serves Streamable HTTP (both protocol eras) at -path, and
the probes /healthz (200 while the process serves) and /readyz (200 when
every entry marked "required": true is connected, else 503), each with a
JSON body per entry: state, last error, restarts, last round-trip time,
calls, errors. With -tls-cert and -tls-key it serves HTTPS. Without
-http (or with -stdio) it serves stdin and stdout, for a client that
starts it as a command.

The file is watched: an edit (or SIGHUP) applies only the entries that
changed; setting "disabled": true stops an entry, removing it starts
nothing new. A file that does not parse or validate is refused, logged
and shown in the probes' "configError"; the gateway serves the previous
one.

With "pin": true (top-level, or per entry), each tool's definition (name,
description, schemas) is pinned in the lock file beside the
configuration (mcp.json's is mcp.lock.json; commit it): a tool whose
definition later changes is withheld until approved with

	sake gateway approve [-config mcp.json] [server[/tool]]

With an "auth" section ({"issuer", "audience", "jwksUri", "scopes"}, or
"introspection": {"clientId", "clientSecret"} for opaque tokens) the HTTP
endpoint accepts only access tokens of that issuer for that audience and serves its protected-resource metadata; an entry's "access"
rule ({"scopes", "subjects", "clients", "claims", "tools"}) shows and
lets call its components only to the callers it names.

An HTTP entry with "oauth": {"perUser": true} (optionally "clientId",
"clientSecret", "issuer", "scopes") is called as each caller in turn:
the first time a caller uses it (or its sign_in tool), they are asked,
through URL elicitation, to sign in there with their own account. Their
token is kept sealed with the key in $SAKE_GATEWAY_TOKEN_KEY (32 bytes in
base64: openssl rand -base64 32), in memory or, with -postgres, in the
replicas' database, with the sign-ins in progress (a sign-in's callback
may land on any replica); it is refreshed, and forgotten by the entry's
sign_out tool. A per-user entry needs -http, -public-url (the sign-ins
come back to its /oauth/callback) and an "auth" section.

With -postgres, several gateways on one database serve as one behind a
balancer without sticky sessions: a session begun on one replica goes on
on another, also once the replica it began on is killed (only the calls
in flight there fail). Each replica holds its own connections to the
servers and its own children.

When OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_METRICS_ENDPOINT)
is set, metrics are exported over OTLP/HTTP: per entry
sake.gateway.calls, .errors, .call.duration, .restarts, and the server's
own MCP metrics.

Examples:

	sake gateway -config mcp.json -http :8080
	sake gateway -config mcp.json -http :8443 -tls-cert cert.pem -tls-key key.pem -log-format json
	sake gateway -config mcp.json -stdio
	SAKE_GATEWAY_TOKEN_KEY=$(openssl rand -base64 32) sake gateway -config mcp.json -http :8080 -public-url https://mcp.example.com
`

// gatewayFlags are the settings of sake gateway.
type gatewayFlags struct {
	config, addr, path, origins, hosts, logFormat, logLevel, tlsCert, tlsKey string
	postgres, probes, publicURL                                              string
	stdio, watch                                                             bool
	readHeaderTimeout, idleTimeout, shutdownTimeout                          time.Duration
	callTimeout, startTimeout, healthEvery                                   time.Duration
	maxInFlight                                                              int
}

func runGateway(ctx context.Context, e *env, args []string) error {
	if len(args) > 0 && args[0] == "approve" {
		return runGatewayApprove(e, args[1:])
	}
	fs := newFlags(e, "gateway", gatewayUsage)
	var f gatewayFlags
	fs.StringVar(&f.config, "config", "mcp.json", "the mcpServers configuration `file`")
	fs.StringVar(&f.addr, "http", "", "serve Streamable HTTP on this `address` (host:port)")
	fs.BoolVar(&f.stdio, "stdio", false, "serve stdin and stdout (the default without -http)")
	fs.StringVar(&f.path, "path", "/mcp", "the MCP endpoint's `path` with -http")
	fs.StringVar(&f.origins, "allowed-origins", "", "comma-separated `origins` (https://app.example.com) a browser may call from; default: the request's own host, and loopback origins on a loopback address")
	fs.StringVar(&f.hosts, "allowed-hosts", "", "comma-separated Host header `values` accepted (DNS-rebinding protection); default: loopback names on a loopback address, any elsewhere")
	fs.StringVar(&f.logFormat, "log-format", "text", "log records as `text` or json, on stderr")
	fs.StringVar(&f.logLevel, "log-level", "info", "the least `level` logged: debug, info, warn, error")
	fs.StringVar(&f.tlsCert, "tls-cert", "", "serve HTTPS with this certificate `file` (PEM, with -tls-key)")
	fs.StringVar(&f.tlsKey, "tls-key", "", "the private key `file` of -tls-cert (PEM)")
	fs.StringVar(&f.postgres, "postgres", "", "join the gateway replicas on this PostgreSQL `URL`: sessions, tasks, broadcasts and the signing secret are shared, so a balancer needs no sticky sessions")
	fs.StringVar(&f.publicURL, "public-url", "", "the gateway's own `URL` as browsers reach it (https://mcp.example.com): the per-user servers' sign-ins come back to it at "+gateway.CallbackPath)
	fs.StringVar(&f.probes, "probes", "", "serve /healthz and /readyz on this `address` instead of the -http one (to keep them off a public port)")
	fs.BoolVar(&f.watch, "watch", true, "reload the configuration when the file changes")
	fs.DurationVar(&f.readHeaderTimeout, "read-header-timeout", 10*time.Second, "how long a client may take to send a request's headers")
	fs.DurationVar(&f.idleTimeout, "idle-timeout", 2*time.Minute, "how long an idle keep-alive connection is kept")
	fs.DurationVar(&f.shutdownTimeout, "shutdown-timeout", 10*time.Second, "how long requests in flight may finish after SIGINT or SIGTERM")
	fs.DurationVar(&f.callTimeout, "call-timeout", proxy.DefaultCallTimeout, "how long a call may wait for its remote server")
	fs.DurationVar(&f.startTimeout, "start-timeout", gateway.DefaultStartTimeout, "how long to wait for the first connections before serving (the rest keep trying)")
	fs.DurationVar(&f.healthEvery, "health-check", gateway.DefaultHealthCheck, "how often each connected server is pinged")
	fs.IntVar(&f.maxInFlight, "max-in-flight", proxy.DefaultMaxInFlight, "the calls sent to one remote server at once; more are refused")
	if err := parse(fs, e, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	if f.stdio && f.addr != "" {
		return usagef("-stdio and -http exclude each other")
	}
	if (f.tlsCert == "") != (f.tlsKey == "") {
		return usagef("-tls-cert and -tls-key go together")
	}
	if f.tlsCert != "" && f.addr == "" {
		return usagef("-tls-cert is for -http")
	}
	if f.probes != "" && f.addr == "" {
		return usagef("-probes is for -http")
	}
	if !strings.HasPrefix(f.path, "/") || f.path == "/healthz" || f.path == "/readyz" {
		return usagef("-path %q must start with / and not be /healthz or /readyz", f.path)
	}
	logger, err := newGatewayLogger(e.stderr, f.logFormat, f.logLevel)
	if err != nil {
		return err
	}
	if f.tlsCert != "" {
		// Checked before any server is started.
		if _, err := tls.LoadX509KeyPair(f.tlsCert, f.tlsKey); err != nil {
			return fmt.Errorf("-tls-cert and -tls-key: %w", err)
		}
	}
	return serveGateway(ctx, e, f, logger)
}

// newGatewayLogger is the logger of -log-format and -log-level.
func newGatewayLogger(w io.Writer, format, level string) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, usagef("-log-level %q: debug, info, warn or error", level)
	}
	hopts := &slog.HandlerOptions{Level: lv}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, hopts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, hopts)), nil
	}
	return nil, usagef("-log-format %q: text or json", format)
}

// serveGateway runs the gateway until ctx ends.
func serveGateway(ctx context.Context, e *env, f gatewayFlags, logger *slog.Logger) error {
	cfg, err := gateway.LoadConfig(f.config)
	if err != nil {
		return err
	}
	hooks, serverOpts, shutdownMetrics, err := gatewayTelemetry(ctx, e)
	if err != nil {
		return err
	}
	defer shutdownMetrics()
	var pool *pgxpool.Pool
	if f.postgres != "" {
		replica, p, err := joinGatewayReplicas(ctx, f.postgres, logger)
		pool = p
		if err != nil {
			return err
		}
		// Closed after the gateway, then the pool (deferred calls run
		// last first).
		defer pool.Close()
		defer replica.Close(context.Background()) //nolint:errcheck // tasks still running are failed and logged
		serverOpts = append(serverOpts, replica.Options()...)
	}
	serverOpts = append(serverOpts, sake.Name("sake-gateway", "1.0.0"))
	gopts := []gateway.Option{gateway.Logger(logger), gateway.LockFile(gateway.LockPath(f.config)), gateway.ServerOptions(serverOpts...),
		gateway.ProxyOptions(proxy.CallTimeout(f.callTimeout), proxy.MaxInFlight(f.maxInFlight)),
		gateway.StartTimeout(f.startTimeout), gateway.HealthCheck(f.healthEvery), gateway.Observe(hooks)}
	perUser, err := gatewayUserTokens(ctx, e, cfg, f, pool, logger)
	if err != nil {
		return err
	}
	gopts = append(gopts, perUser...)
	g, err := gateway.New(ctx, cfg, gopts...)
	if err != nil {
		return err
	}
	defer g.Close()
	for _, s := range g.Status() {
		logger.Info("remote server", "server", s.Key, "namespace", s.Namespace, "connected", s.Connected, "required", s.Required)
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	if f.watch {
		go func() {
			if err := g.WatchConfig(ctx, f.config); err != nil {
				logger.Error("the configuration is not watched; send SIGHUP to reload it", "err", err)
			}
		}()
	}
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-hup:
				logger.Info("SIGHUP: reloading the configuration", "file", f.config)
				_ = g.ReloadFile(f.config)
			}
		}
	}()
	if f.addr == "" {
		if cfg.Auth != nil {
			logger.Warn(`"auth" is for -http: over stdio no caller has a token, so only what access rules let in without one is served`)
		}
		return stdio.Serve(ctx, g.Server(), e.stdin, e.stdout, stdio.Logger(logger))
	}
	return serveGatewayHTTP(ctx, g, cfg.Auth, f, logger)
}

// gatewayAuthorization makes the endpoint a resource server that accepts
// the tokens of a's issuer, and serves its protected-resource metadata.
func gatewayAuthorization(ctx context.Context, a *gateway.Auth, mux *http.ServeMux) (plug.Option, error) {
	meta := &auth.ResourceMetadata{Resource: a.Audience, AuthorizationServers: []string{a.Issuer}, ScopesSupported: a.Scopes}
	mux.Handle(auth.WellKnownPath(a.Audience), meta.Handler())
	if in := a.Introspection; in != nil {
		endpoint := in.Endpoint
		if endpoint == "" {
			md, err := auth.Discover(ctx, a.Issuer, nil)
			if err != nil {
				return nil, fmt.Errorf(`"auth": the issuer's metadata cannot be read (set "introspection"."endpoint" to skip it): %w`, err)
			}
			if endpoint = md.IntrospectionEndpoint; endpoint == "" {
				return nil, fmt.Errorf(`"auth": the issuer %s publishes no introspection_endpoint; set "introspection"."endpoint"`, a.Issuer)
			}
		}
		v := &auth.Introspector{Endpoint: endpoint, ClientID: in.ClientID, ClientSecret: in.ClientSecret,
			Audience: []string{a.Audience}, Issuer: a.Issuer, CacheTTL: introspectionCache}
		return plug.Authorization(v, auth.MetadataURL(a.Audience), a.Scopes...), nil
	}
	jwks := a.JWKSURI
	if jwks == "" {
		md, err := auth.Discover(ctx, a.Issuer, nil)
		if err != nil {
			return nil, fmt.Errorf(`"auth": the issuer's metadata cannot be read (set "jwksUri" to skip it): %w`, err)
		}
		if jwks = md.JWKSURI; jwks == "" {
			return nil, fmt.Errorf(`"auth": the issuer %s publishes no jwks_uri; set "jwksUri"`, a.Issuer)
		}
	}
	v, err := auth.NewJWTVerifier(auth.JWTConfig{Issuer: a.Issuer, Audience: []string{a.Audience}, Keys: auth.NewJWKS(jwks, nil)})
	if err != nil {
		return nil, fmt.Errorf(`"auth": %w`, err)
	}
	return plug.Authorization(v, auth.MetadataURL(a.Audience), a.Scopes...), nil
}

// introspectionCache is how long an active introspection answer is
// reused (never past the token's exp).
const introspectionCache = 30 * time.Second

// serveGatewayHTTP serves the gateway, its probes and TLS when asked.
func serveGatewayHTTP(ctx context.Context, g *gateway.Gateway, a *gateway.Auth, f gatewayFlags, logger *slog.Logger) error {
	var popts []plug.Option
	popts = append(popts, plug.Logger(logger))
	if f.origins != "" {
		popts = append(popts, plug.AllowedOrigins(strings.Split(f.origins, ",")...))
	}
	if f.hosts != "" {
		popts = append(popts, plug.AllowedHosts(strings.Split(f.hosts, ",")...))
	}
	mux := http.NewServeMux()
	if a != nil {
		authz, err := gatewayAuthorization(ctx, a, mux)
		if err != nil {
			return err
		}
		popts = append(popts, authz)
	}
	ph := plug.New(g.Server(), popts...)
	defer ph.Close()
	mux.Handle(f.path, ph)
	if f.publicURL != "" {
		mux.Handle(gateway.CallbackPath, g.SignInHandler())
	}
	probes := mux
	if f.probes != "" {
		probes = http.NewServeMux()
	}
	probes.Handle("GET /healthz", g.HealthHandler())
	probes.Handle("GET /readyz", g.ReadyHandler())
	if f.probes != "" {
		pln, err := net.Listen("tcp", f.probes)
		if err != nil {
			return fmt.Errorf("-probes: %w", err)
		}
		ps := &http.Server{Handler: probes, ReadHeaderTimeout: f.readHeaderTimeout, IdleTimeout: f.idleTimeout, MaxHeaderBytes: 64 << 10}
		go func() { _ = ps.Serve(pln) }()
		defer ps.Close()
		logger.Info("serving the probes", "healthz", "http://"+pln.Addr().String()+"/healthz")
	}
	// No WriteTimeout: it would cut the SSE streams that last (calls are
	// bounded by -call-timeout).
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: f.readHeaderTimeout, IdleTimeout: f.idleTimeout,
		MaxHeaderBytes: 64 << 10, ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn)}
	scheme := "http"
	if f.tlsCert != "" {
		cert, err := tls.LoadX509KeyPair(f.tlsCert, f.tlsKey)
		if err != nil {
			return fmt.Errorf("-tls-cert and -tls-key: %w", err)
		}
		hs.TLSConfig = &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{cert}}
		scheme = "https"
	}
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return err
	}
	errc := make(chan error, 1)
	go func() {
		if hs.TLSConfig != nil {
			errc <- hs.ServeTLS(ln, "", "") // HTTP/2 offered, as ListenAndServeTLS does
			return
		}
		errc <- hs.Serve(ln)
	}()
	logger.Info("serving", "url", scheme+"://"+ln.Addr().String()+f.path, "healthz", scheme+"://"+ln.Addr().String()+"/healthz")
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	logger.Info("shutting down", "timeout", f.shutdownTimeout)
	sctx, cancel := context.WithTimeout(context.Background(), f.shutdownTimeout)
	defer cancel()
	err = hs.Shutdown(sctx)
	if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}

// gatewayTelemetry exports metrics over OTLP/HTTP when the standard
// environment names an endpoint, and returns the gateway's hooks and
// server options that feed them (none otherwise).
func gatewayTelemetry(ctx context.Context, e *env) (gateway.Hooks, []sake.Option, func(), error) {
	if e.getenv("OTEL_EXPORTER_OTLP_ENDPOINT") == "" && e.getenv("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT") == "" {
		return gateway.Hooks{}, nil, func() {}, nil
	}
	exp, err := otlpmetrichttp.New(ctx)
	if err != nil {
		return gateway.Hooks{}, nil, nil, fmt.Errorf("the OTLP metrics exporter: %w", err)
	}
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp)))
	otelapi.SetMeterProvider(mp)
	shutdown := func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = mp.Shutdown(sctx)
	}
	return sakeotel.GatewayHooks(sakeotel.MeterProvider(mp)), []sake.Option{sakeotel.Instrument(sakeotel.MeterProvider(mp))}, shutdown, nil
}

const gatewayApproveUsage = `usage: sake gateway approve [-config mcp.json] [server[/tool]]

Approve serves again the tools a gateway withheld because their
definition changed since it was pinned: it records their new definition
in the lock file beside the configuration (mcp.json's is mcp.lock.json).
Without an argument it approves every withheld tool; with server, those
of that entry; with server/tool, that one (the tool's name on its
server). A running gateway watching the file serves them at once (else
send it SIGHUP). Review the lock file's diff before committing it.
`

func runGatewayApprove(e *env, args []string) error {
	fs := newFlags(e, "gateway approve", gatewayApproveUsage)
	config := fs.String("config", "mcp.json", "the mcpServers configuration `file` whose lock file is changed")
	if err := parse(fs, e, args); err != nil {
		return err
	}
	if fs.NArg() > 1 {
		return usagef("approve takes at most one server or server/tool")
	}
	server, tool, _ := strings.Cut(fs.Arg(0), "/")
	lock := gateway.LockPath(*config)
	done, err := gateway.Approve(lock, server, tool)
	if err != nil {
		return err
	}
	if len(done) == 0 {
		fmt.Fprintf(e.stderr, "sake gateway approve: nothing withheld matches %q in %s\n", fs.Arg(0), lock)
		return errSilentFail
	}
	for _, d := range done {
		fmt.Fprintf(e.stdout, "approved %s\n", d)
	}
	return nil
}

// joinGatewayReplicas connects to the database and joins the replicas on
// it.
func joinGatewayReplicas(ctx context.Context, url string, logger *slog.Logger) (*pgreplica.Replica, *pgxpool.Pool, error) {
	pool, err := pgxpool.New(context.WithoutCancel(ctx), url)
	if err != nil {
		return nil, nil, fmt.Errorf("-postgres: %w", err)
	}
	octx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	replica, err := pgreplica.Open(octx, pool, pgreplica.Logger(logger))
	if err != nil {
		pool.Close()
		return nil, nil, fmt.Errorf("-postgres: cannot join the replicas: %w", err)
	}
	return replica, pool, nil
}

// userTokenIdle is how long sake gateway keeps the tokens of a user it
// has not seen, in PostgreSQL (-postgres): 90 days; swept every hour.
const userTokenIdle = 90 * 24 * time.Hour

// gatewayUserTokens are the options of the per-user entries ("oauth":
// {"perUser": true}): the vault of the callers' tokens, sealed with the
// key in $SAKE_GATEWAY_TOKEN_KEY and kept in memory, or in the replicas'
// database with -postgres (pool), and -public-url. They are needed when
// an entry is per-user, or -public-url is given (a reload may add one). A
// per-user entry needs -http, -public-url and an "auth" section: its
// callers must be known by their subject.
func gatewayUserTokens(ctx context.Context, e *env, cfg *gateway.Config, f gatewayFlags, pool *pgxpool.Pool, logger *slog.Logger) ([]gateway.Option, error) {
	var perUser []string
	for k, entry := range cfg.Servers {
		if entry.OAuth != nil && entry.OAuth.PerUser {
			perUser = append(perUser, k)
		}
	}
	if len(perUser) == 0 && f.publicURL == "" {
		return nil, nil
	}
	if len(perUser) > 0 {
		switch {
		case f.addr == "":
			return nil, fmt.Errorf(`%q signs each caller in ("perUser"): serve -http, with -public-url`, perUser[0])
		case f.publicURL == "":
			return nil, fmt.Errorf(`%q signs each caller in ("perUser"): give -public-url, the gateway's URL as browsers reach it`, perUser[0])
		case cfg.Auth == nil:
			return nil, fmt.Errorf(`%q signs each caller in ("perUser"): add an "auth" section, so that callers are known by their subject`, perUser[0])
		}
	}
	if !strings.HasPrefix(f.publicURL, "https://") && !strings.HasPrefix(f.publicURL, "http://") {
		return nil, usagef("-public-url %q is not an http:// or https:// URL", f.publicURL)
	}
	keys, err := usertokens.ParseKeys(e.getenv(gateway.TokenKeyEnv))
	if err != nil {
		return nil, fmt.Errorf("$%s: %w", gateway.TokenKeyEnv, err)
	}
	backend := usertokens.Memory(0, 0)
	var shared []gateway.Option
	if pool != nil {
		// The sign-ins in progress too: a callback landing on another
		// replica than the one that began the sign-in completes it.
		signIns, err := pgsignins.New(ctx, pool)
		if err != nil {
			return nil, fmt.Errorf("-postgres: the sign-ins in progress: %w", err)
		}
		shared = append(shared, gateway.PendingSignIns(signIns))
		store, err := pgusertokens.New(ctx, pool)
		if err != nil {
			return nil, fmt.Errorf("-postgres: the users' tokens: %w", err)
		}
		go func() {
			t := time.NewTicker(time.Hour)
			defer t.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-t.C:
				}
				if _, err := store.Sweep(ctx, userTokenIdle); err != nil && ctx.Err() == nil {
					logger.Warn("the tokens of users not seen for 90 days were not swept", "err", err)
				}
			}
		}()
		backend = store
	}
	vault, err := usertokens.New(backend, keys...)
	if err != nil {
		return nil, err
	}
	return append(shared, gateway.UserTokens(vault), gateway.PublicURL(f.publicURL)), nil
}
