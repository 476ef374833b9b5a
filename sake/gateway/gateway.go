package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os/exec"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/proxy"
	"github.com/sakemcp/sake-go/sake/tasks"
)

// Gateway is a sake server made of the servers of a configuration, each
// kept connected.
type Gateway struct {
	srv     *sake.Server
	o       options
	remotes []*remote
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	tasks   *tasks.Manager // the gateway's own, when the options bring none
	claims  claims         // the names two remotes could both bring

	// mu guards remotes, which a reload changes (see Apply).
	mu     sync.RWMutex
	ctx    context.Context // the remotes' parent
	reload reloadState
	routes atomic.Pointer[routeTable]
	pins   pins
	// auth is the configuration's "auth", perCaller says lists are
	// filtered by the entries' access rules: both are fixed at New.
	auth      *Auth
	perCaller bool
	signIns   signIns // the per-user entries' open sign-ins
}

// remote is one entry, and the connection to it while it is up.
type remote struct {
	key, ns string
	entry   Entry
	// logger is the gateway's, which hides the secrets of every entry
	// (URL userinfo and query values, headers, env, OAuth secrets).
	logger *slog.Logger

	mu       sync.Mutex
	up       bool
	lastErr  error
	restarts int
	first    chan struct{} // closed after the first attempt

	// stop ends this remote alone (a reload that drops or changes it);
	// done is closed when it has.
	stop    context.CancelFunc
	done    chan struct{}
	stats   remoteStats
	leftOut map[string]string // component → why it is not served
	pin     bool              // its tools' definitions are pinned
	// users serves a per-user entry (OAuth.PerUser) while it is mounted.
	users atomic.Pointer[perUser]
}

// Status is what the gateway knows of one remote.
type Status struct {
	// Key is the entry's key in the configuration, Namespace what it is
	// mounted under.
	Key, Namespace string
	// Connected says its components are served now (it is set as their
	// mount begins, so it holds once their list_changed is heard).
	Connected bool
	// Err is why it is not, or why it last went down.
	Err error
	// Restarts counts the connections made after the first.
	Restarts int
	// Required is the entry's "required": the gateway is ready (see
	// Ready) only while it is connected.
	Required bool
	// RoundTrip is the time its last health check (a ping) took; 0 before
	// the first.
	RoundTrip time.Duration
	// Calls and Errors count the requests routed to it (tools, prompts,
	// resources, completions) and those that failed.
	Calls, Errors int64
	// LeftOut lists the components it brought that are not served, each
	// with why (a name that cannot be published, a definition awaiting
	// approval).
	LeftOut []string
}

// New starts the gateway: it connects every entry of cfg (at once, each
// on its own) and mounts it under its namespace, waiting at most
// StartTimeout for the first connections. An entry that cannot be
// reached is logged and tried again with backoff, as is one that dies
// later, without affecting the others. The gateway's server runs tasks
// on a task manager of its own unless ServerOptions bring one (the
// remotes' tasks become tasks of the gateway, owned by their callers).
// The gateway runs until ctx ends or Close is called.
func New(ctx context.Context, cfg *Config, opts ...Option) (*Gateway, error) {
	if cfg == nil || len(cfg.Servers) == 0 {
		return nil, errors.New("gateway: the configuration names no server")
	}
	if len(cfg.Servers) > MaxEntries {
		return nil, fmt.Errorf("gateway: %d servers, more than the %d a gateway mounts", len(cfg.Servers), MaxEntries)
	}
	g := &Gateway{}
	for _, opt := range opts {
		opt(&g.o)
	}
	g.o.defaults()
	// The gateway's own records hide the secrets of every entry (a
	// remote's error may reach them through a call).
	entries := make([]Entry, 0, len(cfg.Servers))
	for _, e := range cfg.Servers {
		entries = append(entries, e)
	}
	g.o.logger = redactingLogger(g.o.logger, entries...)
	serverOpts := append([]sake.Option{sake.Name("sake-gateway", "1.0.0"), sake.Logger(g.o.logger), sake.ObserveOutcome(sake.Hooks{Request: g.observe}), sake.ExplainMissing(g.missing)}, g.o.serverOpts...)
	g.auth, g.perCaller = cfg.Auth, cfg.hasAccess() || g.o.vault != nil
	if g.perCaller {
		serverOpts = append(serverOpts, sake.PerCallerLists(g.allow))
	}
	srv, err := sake.New(nil, serverOpts...)
	if err != nil {
		return nil, err
	}
	if srv.Tasks() == nil {
		g.tasks = tasks.New()
		if srv, err = sake.New(nil, append(serverOpts, sake.Tasks(g.tasks))...); err != nil {
			return nil, err
		}
	}
	g.srv = srv
	keys := make([]string, 0, len(cfg.Servers))
	for k := range cfg.Servers {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if err := checkConfig(cfg); err != nil {
		return nil, err
	}
	for _, k := range keys {
		if cfg.Servers[k].perUser() && (g.o.vault == nil || g.o.publicURL == "") {
			return nil, fmt.Errorf(`gateway: %q signs each caller in ("perUser"): give the gateway UserTokens and PublicURL (sake gateway: $%s and -public-url)`, k, TokenKeyEnv)
		}
	}
	if g.pins.data, err = readLock(g.o.lockPath); err != nil {
		return nil, err
	}
	g.pins.path = g.o.lockPath
	for _, k := range keys {
		e := cfg.Servers[k]
		r := g.newRemote(k, e, g.o.logger)
		r.pin = cfg.pins(e)
		g.remotes = append(g.remotes, r)
	}
	g.reroute()
	g.ctx, g.cancel = context.WithCancel(ctx)
	for _, r := range g.remotes {
		g.start(r)
	}
	timer := time.NewTimer(g.o.startTimeout)
	defer timer.Stop()
	for _, r := range g.remotes {
		select {
		case <-r.first:
		case <-timer.C:
		case <-g.ctx.Done():
		}
	}
	return g, nil
}

// newRemote is the remote of entry e under key, not yet started.
func (g *Gateway) newRemote(key string, e Entry, logger *slog.Logger) *remote {
	return &remote{key: key, ns: mountedNamespace(e.NamespaceOf(key)), entry: e, first: make(chan struct{}), done: make(chan struct{}), logger: logger}
}

// start keeps r connected until the gateway closes or r.stop is called.
func (g *Gateway) start(r *remote) {
	ctx, stop := context.WithCancel(g.ctx)
	r.stop = stop
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		defer close(r.done)
		if r.entry.perUser() {
			g.servePerUser(ctx, r)
			return
		}
		g.keep(ctx, r)
	}()
}

// Server returns the gateway's server, for a transport to serve.
func (g *Gateway) Server() *sake.Server { return g.srv }

// Status reports each remote, in the order of their keys.
func (g *Gateway) Status() []Status {
	g.mu.RLock()
	defer g.mu.RUnlock()
	out := make([]Status, 0, len(g.remotes))
	for _, r := range g.remotes {
		out = append(out, r.status())
	}
	return out
}

// Close disconnects every remote (stopping the commands) and waits for
// it; the gateway's own task manager is shut down.
func (g *Gateway) Close() error {
	g.reload.applying.Lock() // no reload starts a remote after this
	g.cancel()
	g.reload.applying.Unlock()
	g.wg.Wait()
	if g.o.ownHTTPClient {
		g.o.httpClient.CloseIdleConnections()
	}
	if g.tasks != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return g.tasks.Shutdown(ctx)
	}
	return nil
}

// keep connects r and brings it back, with backoff, whenever it dies.
func (g *Gateway) keep(ctx context.Context, r *remote) {
	wait := g.o.backoffMin
	attempt := 0
	for ctx.Err() == nil {
		start := time.Now()
		err := g.serve(ctx, r, attempt)
		attempt++
		if ctx.Err() != nil {
			return
		}
		r.mu.Lock()
		r.lastErr = err
		r.mu.Unlock()
		if time.Since(start) > g.o.backoffMax {
			wait = g.o.backoffMin // it was up a good while: start over
		}
		r.logger.Warn("gateway: remote server down; trying again", "server", r.key, "in", wait, "err", err)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		wait = min(wait*2, g.o.backoffMax)
	}
}

// serve connects r, mounts it, and returns when it is gone (its
// components then unmounted), with why.
func (g *Gateway) serve(ctx context.Context, r *remote, attempt int) error {
	firstDone := sync.OnceFunc(func() {
		select {
		case <-r.first:
		default:
			close(r.first)
		}
	})
	defer firstDone()
	defer g.claims.release(r.key)
	r.mu.Lock()
	r.leftOut = nil // what this connection leaves out is found anew
	r.mu.Unlock()
	cctx, cancel := context.WithTimeout(ctx, g.o.startTimeout)
	cl, err := client.Connect(cctx, g.transport(r.entry), g.clientOptions(r)...)
	cancel()
	if err != nil {
		return fmt.Errorf("connecting: %w", err)
	}
	defer cl.Close()
	rctx, stop := context.WithCancel(ctx)
	defer stop()
	child, err := proxy.New(rctx, cl, append([]proxy.Option{proxy.ServerOptions(sake.Name(r.key, "1.0.0"), sake.Logger(r.logger)),
		proxy.URINamespace(r.ns)}, append(append(append(slices.Clip(g.o.proxyOpts), g.filters(r)...), g.pinOptions(r)...), g.nameOptions(r)...)...)...)
	if err != nil {
		return fmt.Errorf("reading its components: %w", err)
	}
	if r.entry.Versions != "" {
		if err := child.FilterVersions(sake.VersionFilter{Range: r.entry.Versions}); err != nil {
			return fmt.Errorf("pinning its versions: %w", err)
		}
	}
	// The status says connected before the mount announces the
	// components, so whoever hears the announcement finds it so.
	restart := 0
	if attempt > 0 {
		restart = 1
	}
	r.mu.Lock()
	r.up, r.lastErr = true, nil
	r.restarts += restart
	r.mu.Unlock()
	if restart > 0 {
		g.o.hooks.restarted(r.key)
	}
	if err := g.srv.Mount(r.ns, child); err != nil {
		r.mu.Lock()
		r.up = false
		r.restarts -= restart
		r.mu.Unlock()
		return err
	}
	defer g.srv.Unmount(child)
	defer func() {
		r.mu.Lock()
		r.up = false
		r.mu.Unlock()
	}()
	info := cl.Info()
	r.logger.Info("gateway: remote server mounted", "server", r.key, "namespace", r.ns, "name", info.Server.Name, "era", info.Era)
	firstDone()
	err = g.watch(ctx, cl, r)
	// Why it went down is known before its components leave, so whoever
	// hears them leave finds the error in Status.
	r.mu.Lock()
	r.lastErr = err
	r.mu.Unlock()
	return err
}

// watch returns when the remote is gone: at once when its connection
// says so (a command that exited or closed its output), else when it
// stops answering pings; or when ctx ends.
func (g *Gateway) watch(ctx context.Context, cl *client.Client, r *remote) error {
	t := time.NewTicker(g.o.healthEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-cl.Lost():
			return fmt.Errorf("it stopped: %w", cl.LostErr())
		case <-t.C:
		}
		pctx, cancel := context.WithTimeout(ctx, g.o.healthEvery)
		start := time.Now()
		err := cl.Ping(pctx)
		cancel()
		if err == nil {
			r.stats.roundTrip.Store(int64(time.Since(start)))
		}
		if err != nil && ctx.Err() == nil {
			return fmt.Errorf("it stopped answering: %w", err)
		}
	}
}

func (g *Gateway) clientOptions(r *remote) []client.Option {
	return append([]client.Option{client.ClientInfo("sake-gateway", "1.0.0"), client.Logger(r.logger), client.ForwardQuestions()}, g.o.clientOpts...)
}

// transport makes the entry's transport: its own credentials only.
func (g *Gateway) transport(e Entry) client.Transport {
	if e.transport() == "stdio" {
		cmd := exec.Command(e.Command, e.Args...)
		cmd.Dir = e.Cwd
		cmd.Env = commandEnv(e)
		return client.Command(cmd)
	}
	var hopts []client.HTTPOption
	for k, v := range e.Headers {
		hopts = append(hopts, client.Header(k, v))
	}
	if o := e.OAuth; o != nil {
		cfg := client.OAuthConfig{ClientCredentials: true,
			ClientID: o.ClientID, ClientSecret: o.ClientSecret, Issuer: o.Issuer, Scopes: o.Scopes}
		if o.Issuer != "" {
			var base http.RoundTripper
			if g.o.httpClient != nil {
				base = g.o.httpClient.Transport
			}
			cfg.HTTPClient = newPinnedIssuer(o.Issuer, base).client()
		}
		hopts = append(hopts, client.WithAuthorizer(client.OAuth(cfg)))
	}
	return client.HTTP(e.URL, g.o.httpClient, hopts...)
}
