package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/proxy"
)

// The tools every per-user entry adds under its namespace.
const (
	signInTool  = "sign_in"
	signOutTool = "sign_out"
)

// perUser serves one per-user entry: each caller's calls go to the
// remote through a session of their own, opened with their own token.
type perUser struct {
	g    *Gateway
	r    *remote
	hub  *sake.Server // the entry's tools, mounted under its namespace
	base *client.OAuthAuthorizer
	// key is the resource under which the vault keeps each user's token
	// of this entry: its URL, so that a token is only ever loaded for the
	// server it was issued for.
	key string
	// callTimeout and inFlight are the ProxyOptions' limits (CallTimeout,
	// MaxInFlight), held over all the users' calls to the entry.
	callTimeout time.Duration
	inFlight    chan struct{}

	mu       sync.Mutex
	sessions map[string]*userSession // by user
	tools    map[string]bool         // the remote tools published in hub
	local    map[string]string       // their published names, to the remote ones
	prompts  map[string]bool         // the remote prompts published in hub
	localPr  map[string]string       // their published names, to the remote ones
	res      map[string]bool         // the remote resources published in hub, by URI
	// catalogs are the tools each user's session last listed, kept after
	// the session closes (idle, or past the bound) so that the user's
	// lists stay as they were; forgotten at sign-out. At most
	// catalogsPerSession × UserSessions users are remembered.
	catalogs map[string]catalog
}

// catalog is what one user's session listed: remote tools and prompts.
type catalog struct{ tools, prompts, resources map[string]bool }

// catalogsPerSession bounds the catalogs kept, per session allowed.
const catalogsPerSession = 10

// userSession is one user's connection to the remote.
type userSession struct {
	user    string
	ready   chan struct{} // closed once cl, tools and err are set
	cl      *client.Client
	tools   atomic.Pointer[map[string]bool] // the remote tools its last list gave
	prompts atomic.Pointer[map[string]bool] // the remote prompts its last list gave
	res     atomic.Pointer[map[string]bool] // the remote resources its last list gave
	err     error
	last    atomic.Int64 // unix nanoseconds of its last use
	// closed is closed when the session is closed (its follower ends).
	closed    chan struct{}
	closeOnce sync.Once
}

// offers reports whether the session's last list gave remote tool name.
func (s *userSession) offers(name string) bool {
	m := s.tools.Load()
	return m != nil && (*m)[name]
}

// offersPrompt reports whether the session's last list gave remote
// prompt name.
func (s *userSession) offersPrompt(name string) bool {
	m := s.prompts.Load()
	return m != nil && (*m)[name]
}

// catalog is what the session last listed.
func (s *userSession) catalog() catalog {
	var c catalog
	if m := s.tools.Load(); m != nil {
		c.tools = *m
	}
	if m := s.prompts.Load(); m != nil {
		c.prompts = *m
	}
	if m := s.res.Load(); m != nil {
		c.resources = *m
	}
	return c
}

// offersResource reports whether the session's last list gave remote
// resource uri.
func (s *userSession) offersResource(uri string) bool {
	m := s.res.Load()
	return m != nil && (*m)[uri]
}

func (s *userSession) touch() { s.last.Store(time.Now().UnixNano()) }

func (s *userSession) isReady() bool {
	select {
	case <-s.ready:
		return s.err == nil
	default:
		return false
	}
}

func (s *userSession) close() {
	<-s.ready
	s.closeOnce.Do(func() {
		close(s.closed)
		if s.cl != nil {
			s.cl.Close()
		}
	})
}

// errNoToken says the user holds no (usable) token for the entry.
var errNoToken = errors.New("gateway: no token for this user")

// entryStore keeps one user's token of one entry under the entry's key,
// whatever resource the OAuth flow names it by.
type entryStore struct {
	s   client.TokenStore
	key string
}

func (e entryStore) Load(ctx context.Context, _ string) (*client.Token, error) {
	return e.s.Load(ctx, e.key)
}
func (e entryStore) Save(ctx context.Context, _ string, t *client.Token) error {
	return e.s.Save(ctx, e.key, t)
}
func (e entryStore) Delete(ctx context.Context, _ string) error { return e.s.Delete(ctx, e.key) }

// newPerUser prepares entry r's tools: sign_in and sign_out until a
// user's session lists the remote's.
func (g *Gateway) newPerUser(r *remote) (*perUser, error) {
	if g.o.vault == nil || g.o.publicURL == "" {
		return nil, fmt.Errorf(`%q signs each caller in ("perUser"): the gateway needs UserTokens (a key in $%s for sake gateway) and PublicURL (-public-url)`, r.key, TokenKeyEnv)
	}
	o := r.entry.OAuth
	cfg := client.OAuthConfig{RedirectURL: g.o.publicURL + CallbackPath, ClientName: "sake-gateway",
		ClientID: o.ClientID, ClientSecret: o.ClientSecret, Issuer: o.Issuer, Scopes: o.Scopes, OfflineAccess: true}
	if o.Issuer != "" {
		var base http.RoundTripper
		if g.o.httpClient != nil {
			base = g.o.httpClient.Transport
		}
		pin := newPinnedIssuer(o.Issuer, base)
		pin.registers = o.ClientID == ""
		cfg.HTTPClient = pin.client()
	}
	hub, err := sake.New(nil, sake.Name(r.key, "1.0.0"), sake.Logger(r.logger))
	if err != nil {
		return nil, err
	}
	timeout, inFlight := proxy.CallLimits(g.o.proxyOpts...)
	pu := &perUser{g: g, r: r, hub: hub, base: client.OAuth(cfg), key: r.entry.URL,
		callTimeout: timeout, inFlight: make(chan struct{}, inFlight),
		sessions: map[string]*userSession{}, tools: map[string]bool{}, local: map[string]string{},
		prompts: map[string]bool{}, localPr: map[string]string{}, res: map[string]bool{}, catalogs: map[string]catalog{}}
	signIn := sake.NewTool(signInTool, func(c *sake.Context, _ json.RawMessage) (*sake.ToolResult, error) {
		if _, err := pu.sessionAsking(c); err != nil {
			return nil, err
		}
		return sake.TextResult(fmt.Sprintf("Signed in to %s: its tools run as you.", r.key)), nil
	}).Title("Sign in to " + r.key).Description("Signs you in to " + r.key + " with your own account (you are asked to visit its sign-in page), so that its tools run as you.")
	signOut := sake.NewTool(signOutTool, func(c *sake.Context, _ json.RawMessage) (*sake.ToolResult, error) {
		user, err := pu.userOf(c)
		if err != nil {
			return nil, err
		}
		if err := pu.signOut(c, user); err != nil {
			return nil, err
		}
		return sake.TextResult(fmt.Sprintf("Signed out of %s: the gateway forgot your token there.", r.key)), nil
	}).Title("Sign out of " + r.key).Description("Signs you out of " + r.key + ": the gateway forgets your token there and closes your session.")
	if err := hub.AddTool(signIn); err != nil {
		return nil, err
	}
	if err := hub.AddTool(signOut); err != nil {
		return nil, err
	}
	return pu, nil
}

// servePerUser serves per-user entry r until ctx ends.
func (g *Gateway) servePerUser(ctx context.Context, r *remote) {
	firstDone := sync.OnceFunc(func() { close(r.first) })
	defer firstDone()
	pu, err := g.newPerUser(r)
	if err == nil {
		err = g.srv.Mount(r.ns, pu.hub)
	}
	if err != nil {
		r.mu.Lock()
		r.lastErr = err
		r.mu.Unlock()
		r.logger.Error("gateway: per-user server not served", "server", r.key, "err", err)
		return
	}
	r.users.Store(pu)
	r.mu.Lock()
	r.up, r.lastErr = true, nil
	r.mu.Unlock()
	r.logger.Info("gateway: per-user server mounted", "server", r.key, "namespace", r.ns)
	firstDone()
	sweep := time.NewTicker(max(g.o.userIdle/2, time.Second))
	defer sweep.Stop()
	for {
		select {
		case <-ctx.Done():
			r.mu.Lock()
			r.up = false
			r.mu.Unlock()
			g.srv.Unmount(pu.hub)
			r.users.Store(nil)
			pu.closeAll()
			return
		case <-sweep.C:
			pu.mu.Lock()
			idle := pu.evictLocked(false)
			pu.mu.Unlock()
			for _, s := range idle {
				s.close()
			}
		}
	}
}

// userOf is the caller's user: the subject the gateway's own sign-in
// gave. An anonymous caller is refused: it has no account of its own.
func (pu *perUser) userOf(c *sake.Context) (string, error) {
	if id := c.Identity(); id != nil && id.Subject != "" {
		return id.Subject, nil
	}
	return "", sake.NewError(sake.CodeInvalidRequest, "%s calls its server as each user, and this call has no user: sign in to the gateway first (its \"auth\")", pu.r.key)
}

// store is user's token store for this entry.
func (pu *perUser) store(user string) client.TokenStore {
	return entryStore{s: pu.g.o.vault.For(user), key: pu.key}
}

// sessionAsking returns the caller's session, asking them to sign in
// first when they hold no token.
func (pu *perUser) sessionAsking(c *sake.Context) (*userSession, error) {
	user, err := pu.userOf(c)
	if err != nil {
		return nil, err
	}
	s, err := pu.session(c, user)
	if !errors.Is(err, errNoToken) {
		return s, err
	}
	if err := pu.askSignIn(c, user); err != nil {
		return nil, err
	}
	s, err = pu.session(c, user)
	if errors.Is(err, errNoToken) {
		return nil, sake.NewError(sake.CodeInternalError, "the sign-in to %s ended without a token the server accepts; call again to sign in anew", pu.r.key)
	}
	return s, err
}

// session returns user's open session, opening one with their token
// (errNoToken when they hold none, or the remote refused it).
func (pu *perUser) session(ctx context.Context, user string) (*userSession, error) {
	for range 2 {
		pu.mu.Lock()
		s := pu.sessions[user]
		pu.mu.Unlock()
		if s == nil {
			break
		}
		select {
		case <-s.ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if s.err != nil {
			return nil, s.err
		}
		select {
		case <-s.cl.Lost():
			pu.drop(user, s) // gone: open another
			continue
		default:
		}
		s.touch()
		return s, nil
	}
	tok, err := pu.store(user).Load(ctx, pu.key)
	if err != nil {
		return nil, fmt.Errorf("reading your token for %s: %w", pu.r.key, err)
	}
	if tok == nil {
		return nil, errNoToken
	}
	pu.mu.Lock()
	if s := pu.sessions[user]; s != nil {
		pu.mu.Unlock()
		return pu.session(ctx, user) // another call opened it meanwhile
	}
	victims := pu.evictLocked(true)
	s := &userSession{user: user, ready: make(chan struct{}), closed: make(chan struct{})}
	s.touch()
	pu.sessions[user] = s
	pu.mu.Unlock()
	for _, v := range victims {
		go v.close()
	}
	var tools, prompts, resources map[string]bool
	s.cl, tools, prompts, resources, s.err = pu.open(ctx, user)
	s.tools.Store(&tools)
	s.prompts.Store(&prompts)
	s.res.Store(&resources)
	if s.err != nil {
		pu.mu.Lock()
		if pu.sessions[user] == s {
			delete(pu.sessions, user)
		}
		pu.mu.Unlock()
	}
	close(s.ready)
	if s.err != nil {
		return nil, s.err
	}
	pu.remember(user, s.catalog())
	pu.follow(s)
	return s, nil
}

// rememberIfCurrent keeps what s listed as its user's catalog, if s is
// still their session.
func (pu *perUser) rememberIfCurrent(s *userSession) {
	pu.mu.Lock()
	current := pu.sessions[s.user] == s
	pu.mu.Unlock()
	if current {
		pu.remember(s.user, s.catalog())
	}
}

// remember keeps the tools user's session listed, forgetting another
// user's past the bound (one without an open session).
func (pu *perUser) remember(user string, c catalog) {
	pu.mu.Lock()
	defer pu.mu.Unlock()
	if _, ok := pu.catalogs[user]; !ok && len(pu.catalogs) >= catalogsPerSession*pu.g.o.maxUserSessions {
		for u := range pu.catalogs {
			if pu.sessions[u] == nil {
				delete(pu.catalogs, u)
				break
			}
		}
	}
	pu.catalogs[user] = c
}

// open connects to the remote as user and publishes the tools and
// prompts it lists.
func (pu *perUser) open(ctx context.Context, user string) (*client.Client, map[string]bool, map[string]bool, map[string]bool, error) {
	e := pu.r.entry
	hopts := []client.HTTPOption{client.WithAuthorizer(pu.base.WithStore(pu.store(user)))}
	for k, v := range e.Headers {
		hopts = append(hopts, client.Header(k, v))
	}
	cctx, cancel := context.WithTimeout(ctx, pu.g.o.startTimeout)
	defer cancel()
	opts := append([]client.Option{client.ClientInfo("sake-gateway", "1.0.0"), client.Logger(pu.r.logger)}, pu.g.o.clientOpts...)
	cl, err := client.Connect(cctx, client.HTTP(e.URL, pu.g.o.httpClient, hopts...), opts...)
	if err != nil {
		if authFailed(err) {
			_ = pu.store(user).Delete(ctx, pu.key) // refused: the user signs in anew
			return nil, nil, nil, nil, errNoToken
		}
		return nil, nil, nil, nil, sake.NewError(sake.CodeInternalError, "connecting to %s as you: %v", pu.r.key, upstreamDetail(err))
	}
	tools, err := cl.ListTools(cctx)
	if err == nil && len(tools) > proxy.DefaultMaxListItems {
		err = fmt.Errorf("it lists %d tools, more than the %d the gateway takes", len(tools), proxy.DefaultMaxListItems)
	}
	if err != nil {
		cl.Close()
		if authFailed(err) {
			_ = pu.store(user).Delete(ctx, pu.key)
			return nil, nil, nil, nil, errNoToken
		}
		return nil, nil, nil, nil, sake.NewError(sake.CodeInternalError, "listing the tools of %s as you: %v", pu.r.key, upstreamDetail(err))
	}
	return cl, pu.publish(tools), pu.listPrompts(cctx, cl), pu.listResources(cctx, cl), nil
}

// publish adds to the hub the tools not yet there (the first definition
// seen of a tool is the one published) and returns the names listed. As
// for a shared entry, each is published under a name every client
// accepts (publishedName), and, when the entry pins, a tool whose
// definition differs from the one pinned is withheld from this listing
// until approved; one that cannot be published is left out, logged and
// shown by the probes, and the rest are served.
func (pu *perUser) publish(tools []protocol.ToolInfo) map[string]bool {
	listed := make(map[string]bool, len(tools))
	pu.mu.Lock()
	defer pu.mu.Unlock()
	r := pu.r
	for _, t := range tools {
		if t.Name == signInTool || t.Name == signOutTool {
			r.logger.Warn("gateway: a tool of a per-user server is left out: its name is the gateway's own", "server", r.key, "tool", t.Name)
			r.leaveOut("tool "+t.Name, "its name is the gateway's own ("+t.Name+")")
			continue
		}
		if r.pin && !pu.g.pinned(r, t) {
			continue
		}
		listed[t.Name] = true
		if pu.tools[t.Name] {
			continue
		}
		local := publishedName(r.ns, t.Name)
		if local != t.Name {
			r.logger.Info("gateway: a name clients refuse is published under another", "server", r.key, "kind", "tool", "name", t.Name, "published", local)
		}
		def := sake.NewTool(local, pu.call(t.Name)).Title(t.Title).Description(t.Description)
		if len(t.InputSchema) > 0 {
			def.InputSchema(t.InputSchema)
		}
		if len(t.OutputSchema) > 0 {
			def.OutputSchema(t.OutputSchema)
		}
		if t.Annotations != nil {
			def.Annotations(*t.Annotations)
		}
		if err := pu.hub.AddTool(def); err != nil {
			delete(listed, t.Name)
			r.logger.Warn("gateway: a component the gateway cannot serve is left out; the rest of its server is served", "server", r.key, "kind", "tool", "name", t.Name, "err", err)
			r.leaveOut("tool "+t.Name, err.Error())
			continue
		}
		pu.tools[t.Name] = true
		pu.local[local] = t.Name
	}
	return listed
}

// call is the handler of remote tool name: it calls it in the caller's
// own session.
func (pu *perUser) call(name string) func(c *sake.Context, args json.RawMessage) (*sake.ToolResult, error) {
	return func(c *sake.Context, args json.RawMessage) (*sake.ToolResult, error) {
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		for attempt := 0; ; attempt++ {
			s, err := pu.sessionAsking(c)
			if err != nil {
				return nil, err
			}
			if !s.offers(name) {
				return nil, sake.NewError(sake.CodeInvalidParams, "Unknown tool: %s does not offer %q to you", pu.r.key, name)
			}
			res, err := pu.callIn(c, s, name, args)
			if err == nil {
				return res, nil
			}
			switch err {
			case errBusy:
				return nil, sake.NewError(sake.CodeInternalError, "the upstream server %q has %d requests in flight, the most it is sent; retry later", pu.r.key, cap(pu.inFlight))
			case errUpstreamSlow:
				return nil, sake.NewError(sake.CodeInternalError, "the upstream server %q did not answer within %s", pu.r.key, pu.callTimeout)
			}
			if _, ok := errors.AsType[*sake.ToolError](err); ok {
				return res, nil // the remote tool's own error result, as it is
			}
			if authFailed(err) {
				// The token was refused and could not be refreshed: the
				// user signs in anew (asked once within the call).
				pu.drop(s.user, s)
				_ = pu.store(s.user).Delete(c, pu.key)
				if attempt == 0 {
					continue
				}
				return nil, sake.NewError(sake.CodeInternalError, "%s does not accept your sign-in: call again to sign in anew", pu.r.key)
			}
			select {
			case <-s.cl.Lost():
				pu.drop(s.user, s)
			default:
			}
			return nil, sake.NewError(sake.CodeInternalError, "%s failed: %v", pu.r.key, upstreamDetail(err))
		}
	}
}

// callIn calls remote tool name in session s, passing the remote's
// progress to the caller.
func (pu *perUser) callIn(c *sake.Context, s *userSession, name string, args json.RawMessage) (*sake.ToolResult, error) {
	select {
	case pu.inFlight <- struct{}{}:
		defer func() { <-pu.inFlight }()
	default:
		return nil, errBusy
	}
	c.WaitsOutside()
	cctx, cancel := context.WithTimeoutCause(c, pu.callTimeout, errUpstreamSlow)
	defer cancel()
	var fctx context.Context = cctx
	if len(c.ProgressToken()) > 0 {
		fctx = client.WithProgress(cctx, func(pr client.Progress) {
			total := 0.0
			if pr.Total != nil {
				total = *pr.Total
			}
			_ = c.Progress(pr.Progress, total, pr.Message)
		})
	}
	res, task, err := s.cl.StartToolEncoded(fctx, name, args)
	if err == nil && task != nil {
		res, err = s.cl.FollowTask(fctx, task)
	}
	if err != nil && context.Cause(cctx) == errUpstreamSlow {
		err = errUpstreamSlow
	}
	return res, err
}

// errBusy and errUpstreamSlow are a per-user call refused past the
// entry's calls in flight, and one past the call timeout.
var (
	errBusy         = errors.New("too many calls in flight")
	errUpstreamSlow = errors.New("no answer in time")
)

// authFailed reports whether err is the remote refusing the user's token
// (and the OAuth flow unable to get another without the user).
func authFailed(err error) bool {
	if errors.Is(err, client.ErrAuthorization) {
		return true
	}
	if he, ok := errors.AsType[*client.HTTPError](err); ok && (he.Status == http.StatusUnauthorized || he.Status == http.StatusForbidden) {
		return true
	}
	return false
}

// upstreamDetail is what a caller is told of a remote's failure: its
// JSON-RPC error, or the HTTP status, never a challenge of the remote's
// taken for the gateway's own.
func upstreamDetail(err error) string {
	if he, ok := errors.AsType[*client.HTTPError](err); ok && he.RPC == nil {
		return fmt.Sprintf("HTTP %d", he.Status)
	}
	return err.Error()
}

// drop closes s, user's session, if it is still theirs.
func (pu *perUser) drop(user string, s *userSession) {
	pu.mu.Lock()
	if pu.sessions[user] == s {
		delete(pu.sessions, user)
	} else {
		s = nil
	}
	pu.mu.Unlock()
	if s != nil {
		go s.close()
	}
}

// signOut forgets user's token of this entry and closes their session.
func (pu *perUser) signOut(ctx context.Context, user string) error {
	if err := pu.store(user).Delete(ctx, pu.key); err != nil {
		return fmt.Errorf("forgetting your token of %s: %w", pu.r.key, err)
	}
	pu.forget(ctx, user)
	return nil
}

// forget closes user's session, and forgets their catalog and open
// sign-in: they signed out.
func (pu *perUser) forget(ctx context.Context, user string) {
	pu.closeUser(user)
	pu.mu.Lock()
	delete(pu.catalogs, user)
	pu.mu.Unlock()
	_ = pu.g.o.signInStore.Forget(ctx, user, pu.r.key)
}

// closeUser closes user's session, if any.
func (pu *perUser) closeUser(user string) {
	pu.mu.Lock()
	s := pu.sessions[user]
	delete(pu.sessions, user)
	pu.mu.Unlock()
	if s != nil {
		s.close()
	}
}

// evictLocked removes the sessions idle past the bound and, when making
// room for one more, the least recently used past MaxUserSessions; it
// returns them to be closed outside the lock.
func (pu *perUser) evictLocked(room bool) []*userSession {
	var out []*userSession
	cutoff := time.Now().Add(-pu.g.o.userIdle).UnixNano()
	for u, s := range pu.sessions {
		if s.isReady() && s.last.Load() < cutoff {
			delete(pu.sessions, u)
			out = append(out, s)
		}
	}
	for room && len(pu.sessions) >= pu.g.o.maxUserSessions {
		var oldest *userSession
		for _, s := range pu.sessions {
			if s.isReady() && (oldest == nil || s.last.Load() < oldest.last.Load()) {
				oldest = s
			}
		}
		if oldest == nil {
			break // all are opening: the bound is exceeded by those alone
		}
		delete(pu.sessions, oldest.user)
		out = append(out, oldest)
	}
	return out
}

// closeAll closes every session.
func (pu *perUser) closeAll() {
	pu.mu.Lock()
	all := pu.sessions
	pu.sessions = map[string]*userSession{}
	pu.mu.Unlock()
	for _, s := range all {
		s.close()
	}
}

// lists reports whether the caller of req is listed component c of the
// entry: sign_in and sign_out for any caller with a user, a remote tool
// or prompt for a caller whose own session last listed it.
//
// A call passes: the handler refuses a caller without a user, asks (or,
// for a prompt, tells) one without a session to sign in, and goes on
// only if their own session lists the tool or prompt.
func (pu *perUser) lists(req *sake.Request, c sake.ComponentInfo) bool {
	if req.Method == "tools/call" || req.Method == "prompts/get" || req.Method == "resources/read" {
		return true // the handler refuses a caller without a user, clearly
	}
	id := req.Identity
	if id == nil || id.Subject == "" {
		return false
	}
	local := strings.TrimPrefix(c.Name, pu.r.ns+"_")
	pu.mu.Lock()
	defer pu.mu.Unlock()
	switch c.List {
	case sake.ListPrompts:
		remote, ok := pu.localPr[local]
		return ok && pu.catalogs[id.Subject].prompts[remote]
	case sake.ListResources:
		uri := strings.TrimPrefix(c.URI, pu.r.ns+"+")
		return pu.res[uri] && pu.catalogs[id.Subject].resources[uri]
	case sake.ListTools:
	default:
		return false
	}
	if local == signInTool || local == signOutTool {
		return true
	}
	remote, ok := pu.local[local]
	return ok && pu.catalogs[id.Subject].tools[remote]
}

// SignOut signs user out of every per-user entry: the vault forgets all
// their tokens and their sessions are closed.
func (g *Gateway) SignOut(ctx context.Context, user string) error {
	if g.o.vault == nil {
		return errors.New("gateway: no UserTokens: nobody is signed in to a per-user server")
	}
	if err := g.o.vault.SignOut(ctx, user); err != nil {
		return err
	}
	g.mu.RLock()
	remotes := append([]*remote(nil), g.remotes...)
	g.mu.RUnlock()
	for _, r := range remotes {
		if pu := r.users.Load(); pu != nil {
			pu.forget(ctx, user)
		}
	}
	return nil
}
