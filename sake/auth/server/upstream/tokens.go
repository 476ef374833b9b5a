package upstream

import (
	"context"
	"errors"
	"hash/fnv"
	"net/http"
	"reflect"
	"strings"
	"time"

	"golang.org/x/oauth2"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/auth/server"
)

// ErrNoToken is what Token answers when the caller has no upstream
// token: not signed in through this login, an access token of another
// server, a machine client, or an authorization revoked since.
var ErrNoToken = errors.New("upstream: no upstream token for this caller: sign in through the identity provider")

// ErrSignInAgain is what Token answers when the upstream token expired
// and cannot be refreshed (the provider revoked it, or gave no refresh
// token): the person must authorize the MCP client again.
var ErrSignInAgain = errors.New("upstream: the identity provider's token expired and cannot be refreshed: sign in again")

// Token returns the upstream access token of the person calling with
// id (a tool handler's ctx.Identity()), refreshed first when it expired.
// It belongs to the authorization the caller's MCP access token was
// issued from: revoking that authorization (a replayed refresh token, the
// revocation endpoint) makes it unavailable. Never return it to the MCP
// client or log it; send it to the API it is for.
func (l *Login) Token(ctx context.Context, id *sake.Identity) (*oauth2.Token, error) {
	if id == nil || !id.FromToken || id.Subject == "" {
		return nil, ErrNoToken
	}
	jti, _ := id.Claims["jti"].(string)
	if jti == "" {
		return nil, ErrNoToken
	}
	access, err := l.cfg.Store.Credential(ctx, hash(jti))
	if errors.Is(err, server.ErrNotFound) {
		return nil, ErrNoToken
	}
	if err != nil {
		return nil, err
	}
	if access.Kind != server.KindAccess || access.Revoked || access.Family == "" || access.Grant.Subject != id.Subject {
		return nil, ErrNoToken
	}
	key := access.Family
	mu := &l.locks[lockIndex(key)]
	mu.Lock()
	defer mu.Unlock()
	rec, _, err := l.openRecord(ctx, key)
	if errors.Is(err, server.ErrNotFound) || errors.Is(err, ErrNoToken) {
		return nil, ErrNoToken
	}
	if err != nil {
		return nil, err
	}
	if rec.Person.Subject != id.Subject {
		return nil, ErrNoToken
	}
	tok, refreshed, err := l.current(ctx, rec.Token)
	if revokedUpstream(err) || (err != nil && rec.Token.RefreshToken == "") {
		return nil, ErrSignInAgain
	}
	if err != nil {
		l.log.Warn("upstream: refreshing an upstream token", "provider", l.provider.Name, "err", oauthErrorCode(err))
		return nil, errors.New("upstream: the identity provider cannot be reached to refresh the token")
	}
	if refreshed {
		if err := l.saveRefreshed(ctx, key, rec, tok, rec.Person); err != nil {
			l.log.Warn("upstream: storing a refreshed token", "err", err)
		}
	}
	return tok, nil
}

// HTTPClient returns a client that sends the caller's upstream access
// token (see Token) with each request, for calling the provider's APIs
// as the person.
func (l *Login) HTTPClient(ctx context.Context, id *sake.Identity) (*http.Client, error) {
	tok, err := l.Token(ctx, id)
	if err != nil {
		return nil, err
	}
	return oauth2.NewClient(l.httpContext(ctx), oauth2.StaticTokenSource(tok)), nil
}

// httpContext carries the login's HTTP client for x/oauth2 and go-oidc.
func (l *Login) httpContext(ctx context.Context) context.Context {
	return context.WithValue(ctx, oauth2.HTTPClient, l.http)
}

// earlyRefresh is how long before its expiry an upstream access token
// is refreshed, at most: half its lifetime when that is shorter, so that
// a token is refreshed once per lifetime however short it lives.
const earlyRefresh = 10 * time.Second

// stale reports whether tok must be refreshed before it is used, by the
// login's clock: it has no access token, or it expires within
// earlyRefresh (or half its lifetime, when shorter). A token without an
// expiry never goes stale.
func (l *Login) stale(tok *oauth2.Token) bool {
	if tok.AccessToken == "" {
		return true
	}
	if tok.Expiry.IsZero() {
		return false
	}
	margin := earlyRefresh
	if life := time.Duration(tok.ExpiresIn) * time.Second; life > 0 && life/2 < margin {
		margin = life / 2
	}
	return !l.now().Before(tok.Expiry.Add(-margin))
}

// errNoRefreshToken is a stale token the provider gave no refresh token
// with.
var errNoRefreshToken = errors.New("upstream: the token expired and the provider gave no refresh token")

// current returns tok, or when it is stale a token refreshed at the
// provider, once (refreshed true).
func (l *Login) current(ctx context.Context, tok *oauth2.Token) (cur *oauth2.Token, refreshed bool, err error) {
	if !l.stale(tok) {
		return tok, false, nil
	}
	if tok.RefreshToken == "" {
		return nil, false, errNoRefreshToken
	}
	// A token without an access token is always refreshed by x/oauth2,
	// whatever its clock says: the decision is ours, made above.
	fresh, err := l.oauth.TokenSource(l.httpContext(ctx), &oauth2.Token{RefreshToken: tok.RefreshToken}).Token()
	if err != nil {
		return nil, false, err
	}
	if fresh.RefreshToken == "" {
		fresh.RefreshToken = tok.RefreshToken
	}
	l.stamp(fresh)
	return fresh, true, nil
}

// stamp dates tok's expiry by the login's clock (x/oauth2 dates it by
// time.Now), from the lifetime the provider gave.
func (l *Login) stamp(tok *oauth2.Token) {
	if tok.ExpiresIn > 0 {
		tok.Expiry = l.now().Add(time.Duration(tok.ExpiresIn) * time.Second)
	}
}

// saveRefreshed stores rec again with tok when tok is another token than
// rec's (or p changed), sealed as before.
func (l *Login) saveRefreshed(ctx context.Context, key string, rec *record, tok *oauth2.Token, p *Person) error {
	if tok.AccessToken == rec.Token.AccessToken && reflect.DeepEqual(p, rec.Person) {
		return nil
	}
	stored, err := l.tokens.UpstreamToken(ctx, key)
	if err != nil {
		return nil // forgotten meanwhile (revoked, signed out): keep it so
	}
	next := &record{Token: tok, Person: p}
	sealed, err := l.seal.seal(sealToken, key, next)
	if err != nil {
		return err
	}
	stored.Sealed, stored.Updated = sealed, l.now()
	return l.tokens.PutUpstreamToken(ctx, stored, l.cfg.TokensPerSubject)
}

// revokedUpstream reports whether err says the provider no longer
// accepts the person's tokens (as opposed to being unreachable).
func revokedUpstream(err error) bool {
	if err == nil {
		return false
	}
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		return re.ErrorCode == "invalid_grant" || re.Response != nil && (re.Response.StatusCode == 400 || re.Response.StatusCode == 401)
	}
	if errors.Is(err, errUnauthorized) {
		return true
	}
	msg := err.Error()
	return strings.HasPrefix(msg, "401 ") || strings.HasPrefix(msg, "403 ")
}

// errUnauthorized is GitHub's API refusing the token.
var errUnauthorized = errors.New("upstream: the provider refused the token")

func lockIndex(key string) int {
	h := fnv.New32a()
	h.Write([]byte(key))
	return int(h.Sum32() % 64)
}
