package gateway

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"sync"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
)

// CallbackPath is where the per-user entries' sign-ins come back to,
// under the gateway's PublicURL; Gateway.SignInHandler serves it.
const CallbackPath = "/oauth/callback"

// TokenKeyEnv is the environment variable sake gateway reads the key of
// its user token vault from (usertokens.KeyFromEnv).
const TokenKeyEnv = "SAKE_GATEWAY_TOKEN_KEY"

// CodeURLElicitationRequired is the error of 2025-11-25 telling a client
// without URL elicitation which page the user must visit before the call
// can succeed (its data lists the elicitations).
const CodeURLElicitationRequired = -32042

// pendingSignIn is a sign-in the gateway asked a user for: bound to that
// user and entry from the start, whoever's browser brings its state back.
type pendingSignIn struct {
	user    string
	pu      *perUser
	p       *client.PendingSignIn
	expires time.Time
	done    chan struct{} // closed once the callback came back (err set)
	err     error
}

func (p *pendingSignIn) finished() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// signIns are the gateway's open sign-ins, by state and by user and
// entry (at most one of each user at each entry).
type signIns struct {
	mu      sync.Mutex
	byState map[string]*pendingSignIn
	byUser  map[userEntry]*pendingSignIn
}

type userEntry struct {
	user string
	pu   *perUser
}

// begin returns user's open sign-in at pu's entry, or starts one.
func (g *Gateway) beginSignIn(ctx context.Context, pu *perUser, user string) (*pendingSignIn, error) {
	s := &g.signIns
	k := userEntry{user, pu}
	s.mu.Lock()
	s.sweepLocked()
	if p := s.byUser[k]; p != nil && !p.finished() {
		s.mu.Unlock()
		return p, nil
	}
	full := len(s.byState) >= g.o.maxPending
	s.mu.Unlock()
	if full {
		return nil, sake.NewError(sake.CodeInternalError, "the gateway has %d sign-ins open, the most it keeps; try again in a few minutes", g.o.maxPending)
	}
	cp, err := pu.base.BeginSignIn(ctx, pu.r.entry.URL)
	if err != nil {
		return nil, sake.NewError(sake.CodeInternalError, "starting the sign-in to %s: %v", pu.r.key, err)
	}
	p := &pendingSignIn{user: user, pu: pu, p: cp, expires: time.Now().Add(g.o.signInTimeout), done: make(chan struct{})}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byState == nil {
		s.byState, s.byUser = map[string]*pendingSignIn{}, map[userEntry]*pendingSignIn{}
	}
	if q := s.byUser[k]; q != nil && !q.finished() {
		return q, nil // another call of the user's began one meanwhile
	}
	if len(s.byState) >= g.o.maxPending {
		return nil, sake.NewError(sake.CodeInternalError, "the gateway has %d sign-ins open, the most it keeps; try again in a few minutes", g.o.maxPending)
	}
	if old := s.byUser[k]; old != nil {
		delete(s.byState, old.p.State)
	}
	s.byState[cp.State], s.byUser[k] = p, p
	return p, nil
}

// sweepLocked forgets the sign-ins past their time.
func (s *signIns) sweepLocked() {
	now := time.Now()
	for k, p := range s.byUser {
		if now.After(p.expires) {
			delete(s.byUser, k)
			delete(s.byState, p.p.State)
		}
	}
}

// take removes and returns the open sign-in of state: nil when it is
// unknown, used or expired.
func (s *signIns) take(state string) *pendingSignIn {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.byState[state]
	if p == nil {
		return nil
	}
	delete(s.byState, state)
	if time.Now().After(p.expires) || p.finished() {
		if s.byUser[userEntry{p.user, p.pu}] == p {
			delete(s.byUser, userEntry{p.user, p.pu})
		}
		return nil
	}
	return p
}

// done forgets p once its user's call learned how it ended.
func (s *signIns) done(p *pendingSignIn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := userEntry{p.user, p.pu}
	if s.byUser[k] == p {
		delete(s.byUser, k)
	}
	delete(s.byState, p.p.State)
}

// forgetUser forgets user's open sign-in at pu's entry.
func (s *signIns) forgetUser(user string, pu *perUser) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := userEntry{user, pu}
	if p := s.byUser[k]; p != nil {
		delete(s.byUser, k)
		delete(s.byState, p.p.State)
	}
}

// askSignIn asks the caller to sign in to pu's entry through URL
// elicitation and waits (at most SignIns' timeout) for the sign-in to
// come back. In 2026-07-28 the first round returns ErrInputRequired: the
// client shows the page and retries, and the retry waits for the sign-in
// (or finds the token already held). A 2025-11-25 client without URL
// elicitation is answered CodeURLElicitationRequired with the page.
func (pu *perUser) askSignIn(c *sake.Context, user string) error {
	p, err := pu.g.beginSignIn(c, pu, user)
	if err != nil {
		return err
	}
	msg := fmt.Sprintf("Sign in to %s with your own account: the gateway then calls it as you.", pu.r.key)
	if c.Request().Era != sake.EraModern && !c.ClientCapabilities().Elicitation.SupportsURL() {
		id := make([]byte, 16)
		_, _ = rand.Read(id)
		return &sake.Error{Code: CodeURLElicitationRequired, Message: msg + " Open the URL, then call again.",
			Data: map[string]any{"elicitations": []map[string]any{{"mode": "url", "elicitationId": hex.EncodeToString(id), "url": p.p.URL, "message": msg}}}}
	}
	action, err := c.ElicitURL("sign_in_"+pu.r.key, msg, p.p.URL)
	if err != nil {
		return err
	}
	if action != sake.Accept {
		pu.g.signIns.forgetUser(user, pu)
		return sake.NewError(sake.CodeInvalidRequest, "the sign-in to %s was not accepted (%s): it is needed to call %s as you; call again to sign in", pu.r.key, action, pu.r.key)
	}
	c.WaitsOutside()
	wait := time.NewTimer(time.Until(p.expires))
	defer wait.Stop()
	select {
	case <-p.done:
	case <-c.Done():
		return c.Err()
	case <-wait.C:
		pu.g.signIns.done(p)
		return sake.NewError(sake.CodeInternalError, "the sign-in to %s was not completed within %s; call again for a new link", pu.r.key, pu.g.o.signInTimeout)
	}
	pu.g.signIns.done(p)
	if p.err != nil {
		return sake.NewError(sake.CodeInternalError, "the sign-in to %s failed: %v; call again to try anew", pu.r.key, p.err)
	}
	return nil
}

// SignInHandler serves CallbackPath: the browser coming back from a
// per-user entry's authorization server. The state names the sign-in,
// which names its user: the token goes to the user the gateway asked,
// whoever's browser brings it. An unknown, used or expired state is
// answered 400 and changes nothing. Mount it at PublicURL + CallbackPath
// (sake gateway does).
func (g *Gateway) SignInHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			w.Header().Set("Allow", http.MethodGet)
			page(w, http.StatusMethodNotAllowed, "Not a sign-in", "This address only takes the browser coming back from a sign-in.")
			return
		}
		p := g.signIns.take(r.URL.Query().Get("state"))
		if p == nil {
			page(w, http.StatusBadRequest, "This sign-in link is not open", "It is unknown, already used or expired. Go back to your MCP client and call the tool again: it gives a new link.")
			return
		}
		_, err := p.pu.base.WithStore(p.pu.store(p.user)).CompleteSignIn(r.Context(), p.p, r.URL)
		if err != nil && !errors.Is(err, client.ErrAuthorization) {
			err = fmt.Errorf("%w: %w", client.ErrAuthorization, err)
		}
		p.err = err
		close(p.done)
		if err != nil {
			g.o.logger.Warn("gateway: a sign-in to a per-user server failed", "server", p.pu.r.key, "err", err)
			page(w, http.StatusBadRequest, "The sign-in did not complete", fmt.Sprintf("The sign-in to %s failed: %v. Go back to your MCP client and call the tool again.", p.pu.r.key, err))
			return
		}
		page(w, http.StatusOK, "Signed in", fmt.Sprintf("You are signed in to %s. Go back to your MCP client: your call goes on.", p.pu.r.key))
	})
}

var pageTemplate = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>{{.Title}}</title></head>
<body><main><h1>{{.Title}}</h1><p>{{.Text}}</p></main></body></html>
`))

func page(w http.ResponseWriter, status int, title, text string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	w.WriteHeader(status)
	_ = pageTemplate.Execute(w, struct{ Title, Text string }{title, text})
}
