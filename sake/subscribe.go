package sake

import (
	"context"
	"strings"
	"unicode/utf8"
)

// maxSubscriptions is the cap on one session's subscriptions; 0 for none.
func (s *Server) maxSubscriptions() int {
	return capOf(s.opts.limits.MaxSubscriptions, defaultMaxSubscriptions)
}

// maxSubscriptionURI is the cap on a subscribed URI's length; 0 for none.
func (s *Server) maxSubscriptionURI() int {
	return capOf(s.opts.limits.MaxSubscriptionURIBytes, defaultMaxSubscriptionURIBytes)
}

// subscribe serves resources/subscribe and resources/unsubscribe. A
// subscription is kept only for a URI the server serves (a resource, a
// template's instance or a skill's file, or one that SubscribeUnlisted,
// its own or a mounted server's, claims), of valid UTF-8 without NUL (so
// that every backend.SessionStore can keep it), within
// Limits.MaxSubscriptionURIBytes, and within the session's
// Limits.MaxSubscriptions, and only by a caller who may read it (the
// resource's requirement, or the server's default): otherwise its update
// notices would tell a caller of changes to a resource it may not read.
// The checks are made here, in the dispatcher, so that a refused
// subscription reaches neither the session nor its store. Unsubscribing is
// never refused: it only frees.
func subscribe(s *Server, ctx context.Context, req *Request, reg *registry) (any, error) {
	uri := req.Params.URI
	if uri == "" {
		return nil, InvalidParams("Invalid params: %s needs a uri", req.Method)
	}
	sess := req.Session
	if req.Method == "resources/unsubscribe" {
		if sess != nil && sess.unsubscribe(uri) {
			s.claims.release(sess, uri)
			s.sessionChanged(sess)
		}
		return emptyResult{}, nil
	}
	// A URI no component serves may be claimed (SubscribeUnlisted).
	unlisted := !s.serves(uri, reg) && s.claimsUnlisted()
	checkReg := reg
	if unlisted {
		checkReg = nil
	}
	if err := s.checkSubscription(uri, checkReg); err != nil {
		return nil, err
	}
	if s.refusesURI(req, uri, reg) {
		return nil, notSubscribable(uri)
	}
	if err := s.authorizeURI(req, uri, reg); err != nil {
		return nil, err
	}
	release := func() {}
	if unlisted {
		if sess != nil && sess.subscribed(uri) {
			return emptyResult{}, nil // claimed already
		}
		var err error
		if release, err = s.claimUnlisted(ctx, req, uri); err != nil {
			return nil, err
		}
	}
	if sess == nil {
		release()
		return emptyResult{}, nil
	}
	added, ok := sess.subscribe(uri, s.maxSubscriptions())
	if !ok {
		release()
		return nil, InvalidParams("Invalid params: this session already holds %d subscriptions, the server's Limits.MaxSubscriptions; unsubscribe from one first", s.maxSubscriptions())
	}
	if !added {
		release()
	} else if unlisted {
		s.claims.hold(sess, uri, release)
	}
	if added {
		s.sessionChanged(sess)
	}
	return emptyResult{}, nil
}

// checkSubscription refuses a URI a session may not subscribe to.
func (s *Server) checkSubscription(uri string, reg *registry) error {
	if max := s.maxSubscriptionURI(); max > 0 && len(uri) > max {
		return InvalidParams("Invalid params: the uri is %d bytes; the server subscribes to URIs of at most %d (Limits.MaxSubscriptionURIBytes)", len(uri), max)
	}
	if !utf8.ValidString(uri) || strings.IndexByte(uri, 0) >= 0 {
		return InvalidParams("Invalid params: the uri must be valid UTF-8 without NUL characters")
	}
	if reg != nil && !s.serves(uri, reg) {
		return notSubscribable(uri)
	}
	return nil
}

// notSubscribable is the answer to a subscription to a URI the server does
// not serve to the caller.
func notSubscribable(uri string) *Error {
	return &Error{Code: CodeInvalidParams, Message: "Invalid params: no resource or resource template matches the uri; subscribe to a URI that resources/list or resources/templates/list names",
		Data: map[string]string{"uri": uri}}
}

// authorizeURI checks the requirement of the resource or template serving
// uri (a skill's file has the server's default) against the caller, as
// resources/read does.
func (s *Server) authorizeURI(req *Request, uri string, reg *registry) error {
	r := reg.resourcesByURI[uri]
	if r == nil {
		r, _ = reg.matchTemplate(uri)
	}
	if r == nil {
		return s.authorize(Requirement{}, req)
	}
	return s.authorize(r.require, req)
}

// serves reports whether resources/read would find a resource for uri.
func (s *Server) serves(uri string, reg *registry) bool {
	if reg.resourcesByURI[uri] != nil {
		return true
	}
	if t, _ := reg.matchTemplate(uri); t != nil {
		return true
	}
	set := s.skills.Load()
	return set != nil && set.files[uri] != nil
}
