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
	rec OpenSignIn
	p   *client.PendingSignIn
}

// signIns are the waiters of this process on sign-ins, by state: the
// callback landing here wakes them at once; one landing on another
// replica is learned by asking the SignInStore (see wait).
type signIns struct {
	mu      sync.Mutex
	waiters map[string]chan struct{}
}

// watch returns the channel closed when the callback of state lands in
// this process, and the function to stop watching.
func (s *signIns) watch(state string) (<-chan struct{}, func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.waiters == nil {
		s.waiters = map[string]chan struct{}{}
	}
	ch := s.waiters[state]
	if ch == nil {
		ch = make(chan struct{})
		s.waiters[state] = ch
	}
	return ch, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.waiters[state] == ch {
			delete(s.waiters, state)
		}
	}
}

// wake wakes the waiters of state in this process.
func (s *signIns) wake(state string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ch := s.waiters[state]; ch != nil {
		close(ch)
		delete(s.waiters, state)
	}
}

// bound is what a sign-in's sealed half is bound to: its state, user,
// entry and the entry's URL (a replica serving another URL under the
// name cannot open it).
func (pu *perUser) bound(state, user string) []byte {
	b := make([]byte, 0, len(state)+len(user)+len(pu.r.key)+len(pu.key)+3)
	for i, part := range []string{state, user, pu.r.key, pu.key} {
		if i > 0 {
			b = append(b, 0)
		}
		b = append(b, part...)
	}
	return b
}

// unseal reads the sign-in rec of pu's entry.
func (pu *perUser) unseal(rec OpenSignIn) (*pendingSignIn, error) {
	plain, err := pu.g.o.vault.Open(rec.Sealed, pu.bound(rec.State, rec.User))
	if err != nil {
		return nil, err
	}
	p := new(client.PendingSignIn)
	if err := p.UnmarshalBinary(plain); err != nil {
		return nil, err
	}
	if p.State != rec.State {
		return nil, fmt.Errorf("%w: the sign-in kept under one state holds another", client.ErrAuthorization)
	}
	return &pendingSignIn{rec: rec, p: p}, nil
}

// beginSignIn returns user's open sign-in at pu's entry, begun by this
// replica or another, or starts one.
func (g *Gateway) beginSignIn(ctx context.Context, pu *perUser, user string) (*pendingSignIn, error) {
	store := g.o.signInStore
	rec, err := store.Open(ctx, user, pu.r.key)
	if err != nil {
		return nil, sake.NewError(sake.CodeInternalError, "reading your open sign-in to %s: %v; try again", pu.r.key, err)
	}
	if rec != nil {
		if p, err := pu.unseal(*rec); err == nil {
			return p, nil
		}
		// Sealed with a key this replica lacks, or for another URL: begin anew.
		_ = store.Forget(ctx, user, pu.r.key)
	}
	cp, err := pu.base.BeginSignIn(ctx, pu.r.entry.URL)
	if err != nil {
		return nil, sake.NewError(sake.CodeInternalError, "starting the sign-in to %s: %v", pu.r.key, err)
	}
	plain, err := cp.MarshalBinary()
	var sealed []byte
	if err == nil {
		sealed, err = g.o.vault.Seal(plain, pu.bound(cp.State, user))
	}
	if err != nil {
		return nil, sake.NewError(sake.CodeInternalError, "keeping the sign-in to %s: %v", pu.r.key, err)
	}
	kept, err := store.Add(ctx, OpenSignIn{State: cp.State, User: user, Entry: pu.r.key, Sealed: sealed, Expires: time.Now().Add(g.o.signInTimeout)})
	if errors.Is(err, ErrTooManySignIns) {
		return nil, sake.NewError(sake.CodeInternalError, "the gateway has %d sign-ins open, the most it keeps; try again in a few minutes", g.o.maxPending)
	}
	if err != nil {
		return nil, sake.NewError(sake.CodeInternalError, "keeping the sign-in to %s: %v; try again", pu.r.key, err)
	}
	if kept.State != cp.State {
		return pu.unseal(kept) // another call of the user's began one meanwhile
	}
	return &pendingSignIn{rec: kept, p: cp}, nil
}

// Polling bounds of a waiter on a sign-in whose callback may land on
// another replica: the first wait, doubled up to the last.
const (
	signInPollMin = 50 * time.Millisecond
	signInPollMax = time.Second
)

// wait waits until p's callback came back, here or on another replica,
// and returns whether it did (landed) and how it ended: nil when the
// user's token is kept.
func (pu *perUser) wait(c *sake.Context, p *pendingSignIn) (landed bool, err error) {
	g := pu.g
	woken, stop := g.signIns.watch(p.rec.State)
	defer stop()
	expired := time.NewTimer(time.Until(p.rec.Expires))
	defer expired.Stop()
	poll := time.NewTimer(signInPollMin)
	defer poll.Stop()
	every := signInPollMin
	for {
		select {
		case <-woken:
			woken = nil
		case <-poll.C:
			every = min(2*every, signInPollMax)
			poll.Reset(every)
		case <-c.Done():
			return false, c.Err()
		case <-expired.C:
			return false, sake.NewError(sake.CodeInternalError, "the sign-in to %s was not completed within %s; call again for a new link", pu.r.key, g.o.signInTimeout)
		}
		ended, failure, err := g.o.signInStore.Outcome(c, p.rec.State)
		if err != nil {
			g.o.logger.Warn("gateway: reading how a sign-in ended", "server", pu.r.key, "err", err)
			continue
		}
		if ended {
			if failure != "" {
				return true, sake.NewError(sake.CodeInternalError, "the sign-in to %s failed: %s; call again to try anew", pu.r.key, failure)
			}
			return true, nil
		}
		// Its record may be gone (learned by another waiter of the same
		// sign-in, or past the store's bound): the token tells.
		if tok, err := pu.store(p.rec.User).Load(c, pu.key); err == nil && tok != nil {
			return true, nil
		}
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
	action, complete, err := c.ElicitURLCompletable("sign_in_"+pu.r.key, msg, p.p.URL)
	if err != nil {
		return err
	}
	if action != sake.Accept {
		_ = pu.g.o.signInStore.Forget(c, user, pu.r.key)
		return sake.NewError(sake.CodeInvalidRequest, "the sign-in to %s was not accepted (%s): it is needed to call %s as you; call again to sign in", pu.r.key, action, pu.r.key)
	}
	c.WaitsOutside()
	landed, err := pu.wait(c, p)
	if landed {
		complete() // 2025-11-25: the client learns the page is done with
	}
	return err
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
		state := r.URL.Query().Get("state")
		if state == "" || len(state) > maxStateBytes {
			page(w, http.StatusBadRequest, "This sign-in link is not open", "It is unknown, already used or expired. Go back to your MCP client and call the tool again: it gives a new link.")
			return
		}
		rec, err := g.o.signInStore.Take(r.Context(), state)
		if err != nil {
			g.o.logger.Error("gateway: reading an open sign-in", "err", err)
			page(w, http.StatusServiceUnavailable, "The sign-in could not be read", "The gateway could not read its open sign-ins. Go back to your MCP client and call the tool again in a moment.")
			return
		}
		if rec == nil {
			page(w, http.StatusBadRequest, "This sign-in link is not open", "It is unknown, already used or expired. Go back to your MCP client and call the tool again: it gives a new link.")
			return
		}
		pu := g.perUserNamed(rec.Entry)
		var p *pendingSignIn
		if pu == nil {
			err = fmt.Errorf("%w: the gateway no longer serves %q per user", client.ErrAuthorization, rec.Entry)
		} else if p, err = pu.unseal(*rec); err != nil {
			err = fmt.Errorf("%w: the sign-in does not open with this gateway's key: %w", client.ErrAuthorization, err)
		} else {
			_, err = pu.base.WithStore(pu.store(rec.User)).CompleteSignIn(r.Context(), p.p, r.URL)
			if err != nil && !errors.Is(err, client.ErrAuthorization) {
				err = fmt.Errorf("%w: %w", client.ErrAuthorization, err)
			}
		}
		failure := ""
		if err != nil {
			failure = err.Error()
		}
		// Its waiter learns how it ended, here or on another replica.
		fctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), finishTimeout)
		defer cancel()
		if ferr := g.o.signInStore.Finish(fctx, *rec, failure); ferr != nil {
			g.o.logger.Warn("gateway: recording how a sign-in ended", "entry", rec.Entry, "err", ferr)
		}
		g.signIns.wake(rec.State)
		if err != nil {
			g.o.logger.Warn("gateway: a sign-in to a per-user server failed", "server", rec.Entry, "err", err)
			page(w, http.StatusBadRequest, "The sign-in did not complete", fmt.Sprintf("The sign-in to %s failed: %v. Go back to your MCP client and call the tool again.", rec.Entry, err))
			return
		}
		page(w, http.StatusOK, "Signed in", fmt.Sprintf("You are signed in to %s. Go back to your MCP client: your call goes on.", rec.Entry))
	})
}

// maxStateBytes bounds the state a callback may bring: the gateway's
// own are 43 bytes; a longer one is refused before any store is asked.
const maxStateBytes = 256

// finishTimeout bounds recording how a sign-in ended, once its browser
// is answered or gone.
const finishTimeout = 10 * time.Second

// perUserNamed is the per-user entry named key, or nil.
func (g *Gateway) perUserNamed(key string) *perUser {
	g.mu.RLock()
	defer g.mu.RUnlock()
	for _, r := range g.remotes {
		if r.key == key {
			return r.users.Load()
		}
	}
	return nil
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
