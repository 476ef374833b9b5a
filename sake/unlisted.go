package sake

import (
	"context"
	"slices"
	"strings"
	"sync"
)

// ClaimFunc is asked whether a server takes a subscription to uri, a
// resource it serves without listing it (see SubscribeUnlisted), for the
// caller of req (its Identity, to bound what each caller holds). nil
// error accepts it: release is then called once, when the subscription
// ends (the session unsubscribes or ends). An error refuses it and is the
// subscriber's answer: a *Error as it is (say -32602 for a URI the server
// does not serve), any other as an internal error.
type ClaimFunc func(ctx context.Context, req *Request, uri string) (release func(), err error)

// SubscribeUnlisted lets the server take resources/subscribe for URIs
// that no resource, template or skill file of it matches: a server that
// fronts another one (sake/proxy) serves more than it lists. claim is
// asked, once per session and URI, after the subscriber's access is
// checked as for a read of an unlisted resource: the server's default
// requirement (RequireScopes). A server mounted into another keeps its
// claim there, under its namespace (the parent's URI namespace+uri is
// claimed as uri), judged by the parent's default requirement and then
// the child's; a URI inside a namespace is only that mount's to claim.
// Without this option (the default) such a subscription is refused with
// -32602.
func SubscribeUnlisted(claim ClaimFunc) Option {
	return func(o *options) { o.unlisted = claim }
}

// claimTable holds, per session, the release of each claimed subscription.
type claimTable struct {
	mu   sync.Mutex
	held map[*Session]map[string]func()
}

// claimsUnlisted reports whether a subscription to a URI the registry does
// not serve may be claimed: the server or a server mounted into it takes
// them.
func (s *Server) claimsUnlisted() bool {
	if s.opts.unlisted != nil {
		return true
	}
	s.mounts.mu.Lock()
	defer s.mounts.mu.Unlock()
	for _, m := range s.mounts.list {
		if m.child.claimsUnlisted() {
			return true
		}
	}
	return false
}

// claimUnlisted asks the server's ClaimFunc, or else the mount whose
// namespace uri is in, or else the mounts without a namespace (for a URI
// in no mount's namespace), to take a subscription to uri.
func (s *Server) claimUnlisted(ctx context.Context, req *Request, uri string) (func(), error) {
	if s.opts.unlisted != nil {
		return s.callClaim(ctx, req, uri)
	}
	s.mounts.mu.Lock()
	mounts := slices.Clone(s.mounts.list)
	s.mounts.mu.Unlock()
	for _, m := range mounts {
		if m.ns != "" && strings.HasPrefix(uri, m.ns+"+") {
			return m.claim(ctx, req, m.childURI(uri))
		}
	}
	var first error
	for _, m := range mounts {
		if m.ns != "" || !m.child.claimsUnlisted() {
			continue
		}
		release, err := m.claim(ctx, req, uri)
		if err == nil {
			return release, nil
		}
		if first == nil {
			first = err
		}
	}
	if first != nil {
		return nil, first
	}
	return nil, notSubscribable(uri)
}

// claim asks the mounted server to take a subscription to its uri: one it
// lists is not the mount's to claim (the parent left it out), and the
// child's default requirement holds.
func (m *mount) claim(ctx context.Context, req *Request, uri string) (func(), error) {
	child := m.child
	if !child.claimsUnlisted() || child.serves(uri, child.comps.current()) {
		return nil, notSubscribable(m.ns + "+" + uri)
	}
	if err := child.authorize(Requirement{}, req); err != nil {
		return nil, err
	}
	return child.claimUnlisted(ctx, req, uri)
}

// callClaim runs the ClaimFunc, a panic in it being an internal error.
func (s *Server) callClaim(ctx context.Context, req *Request, uri string) (release func(), err error) {
	defer func() {
		if r := recover(); r != nil {
			s.logger.Error("sake: a SubscribeUnlisted claim panicked", "uri", uri, "panic", r)
			release, err = nil, NewError(CodeInternalError, "the server failed to take the subscription")
		}
	}()
	release, err = s.opts.unlisted(ctx, req, uri)
	if err != nil {
		if _, ok := err.(*Error); !ok {
			err = NewError(CodeInternalError, "%v", err)
		}
		return nil, err
	}
	if release == nil {
		release = func() {}
	}
	return release, nil
}

// hold keeps the release of sess's claimed subscription to uri, to be
// called when it unsubscribes or ends.
func (t *claimTable) hold(sess *Session, uri string, release func()) {
	t.mu.Lock()
	if t.held == nil {
		t.held = map[*Session]map[string]func(){}
	}
	uris, known := t.held[sess]
	if !known {
		uris = map[string]func(){}
		t.held[sess] = uris
	}
	old := uris[uri]
	uris[uri] = release
	t.mu.Unlock()
	if old != nil {
		old()
	}
	if !known {
		sess.afterClosed(func() { t.releaseAll(sess) })
	}
}

// release ends sess's claimed subscription to uri, if it holds one.
func (t *claimTable) release(sess *Session, uri string) {
	t.mu.Lock()
	fn := t.held[sess][uri]
	delete(t.held[sess], uri)
	t.mu.Unlock()
	if fn != nil {
		fn()
	}
}

// releaseAll ends the claimed subscriptions of a session that ended.
func (t *claimTable) releaseAll(sess *Session) {
	t.mu.Lock()
	uris := t.held[sess]
	delete(t.held, sess)
	t.mu.Unlock()
	for _, fn := range uris {
		fn()
	}
}

// claimListenURIs claims, for the life of a listen stream, the URIs it
// names that neither a component serves nor one is under (see
// checkListenURIs): the caller must meet the server's default
// requirement. release ends them all; on an error none is held.
func (s *Server) claimListenURIs(ctx context.Context, req *Request, uris []string, reg *registry) (release func(), err error) {
	var releases []func()
	release = func() {
		for _, fn := range releases {
			fn()
		}
	}
	for _, uri := range uris {
		if s.serves(uri, reg) || s.readableUnder(req, uri, reg) {
			continue
		}
		if err := s.authorize(Requirement{}, req); err != nil {
			release()
			return nil, err
		}
		fn, err := s.claimUnlisted(ctx, req, uri)
		if err != nil {
			release()
			return nil, err
		}
		releases = append(releases, fn)
	}
	return release, nil
}
