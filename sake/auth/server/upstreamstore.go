package server

import (
	"context"
	"net/http"
	"time"
)

// DefaultUpstreamTokensPerSubject bounds the upstream tokens a store
// keeps for one subject (its sign-ins and the authorizations made from
// them); beyond it the least recently stored one is forgotten.
const DefaultUpstreamTokensPerSubject = 16

// UpstreamToken is the sealed (encrypted and authenticated) token set a
// person's sign-in at an upstream identity provider gave, kept so that a
// tool call of that person can act as them downstream. The store never
// sees it in clear.
type UpstreamToken struct {
	// Key names the record: a credential family (one authorization), or
	// a sign-in of the upstream login ("session:" and its id).
	Key string
	// Subject is the person it belongs to.
	Subject string
	// Sealed is the encrypted token set; only the login that sealed it
	// can open it.
	Sealed []byte
	// Updated is when it was stored last.
	Updated time.Time
	// Expires is when the store may forget it.
	Expires time.Time
}

// UpstreamTokenStore is implemented by a Store that keeps upstream
// tokens (NewMemoryStore and pgstore do). Revoking a family
// (Store.RevokeFamily) forgets the upstream token stored under it, and
// one stored under a revoked family is not kept.
type UpstreamTokenStore interface {
	// PutUpstreamToken stores t, replacing the one with the same Key;
	// then, while t.Subject holds more than perSubject tokens, it forgets
	// the least recently updated. A t.Key that is a revoked family is
	// not stored (and not an error).
	PutUpstreamToken(ctx context.Context, t *UpstreamToken, perSubject int) error
	// UpstreamToken returns the token stored under key, or ErrNotFound
	// (also once it expired).
	UpstreamToken(ctx context.Context, key string) (*UpstreamToken, error)
	// LatestUpstreamToken returns the most recently updated token of
	// subject, or ErrNotFound.
	LatestUpstreamToken(ctx context.Context, subject string) (*UpstreamToken, error)
	// DeleteUpstreamToken forgets the token stored under key.
	DeleteUpstreamToken(ctx context.Context, key string) error
}

// GrantRecorder is implemented by a Login that keeps something for each
// authorization made from one of its sign-ins (the upstream login keeps
// the person's upstream token under the authorization's family).
// Granted is called in the browser request that approves an
// authorization, before anything is issued for it: an error refuses the
// authorization (server_error).
type GrantRecorder interface {
	Granted(r *http.Request, subject, family string) error
}

// recordGrant tells a GrantRecorder login about a new authorization.
func (s *Server) recordGrant(r *http.Request, subject, family string) (err error) {
	gr, ok := s.login.(GrantRecorder)
	if !ok || subject == "" {
		return nil
	}
	defer func() {
		if v := recover(); v != nil {
			err = s.recovered("Login.Granted", v)
		}
	}()
	return gr.Granted(r, subject, family)
}

// GrantRevoker is implemented by a Login that must undo elsewhere what
// it keeps for an authorization when the authorization is revoked (the
// upstream login revokes the person's token at the identity provider).
// Revoking is called before family is revoked (at the revocation
// endpoint, for a replayed code or refresh token, for a subject no longer
// active, at the end of the grant's lifetime), while the Store still
// holds what was kept under it; the function it returns, unless nil, is
// called once the revocation is stored, and must not block: it starts
// any call elsewhere in the background. A panic in either is logged and
// does not stop the revocation.
type GrantRevoker interface {
	Revoking(ctx context.Context, family string) (revoked func())
}

// revokeFamily revokes family in the store, telling a GrantRevoker
// login before and after.
func (s *Server) revokeFamily(ctx context.Context, family string) error {
	gr, ok := s.login.(GrantRevoker)
	if !ok || family == "" {
		return s.store.RevokeFamily(ctx, family)
	}
	var after func()
	func() {
		defer func() {
			if v := recover(); v != nil {
				_ = s.recovered("Login.Revoking", v)
			}
		}()
		after = gr.Revoking(ctx, family)
	}()
	if err := s.store.RevokeFamily(ctx, family); err != nil {
		return err
	}
	if after != nil {
		func() {
			defer func() {
				if v := recover(); v != nil {
					_ = s.recovered("Login.Revoking's function", v)
				}
			}()
			after()
		}()
	}
	return nil
}
