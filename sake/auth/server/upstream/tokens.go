package upstream

import (
	"context"
	"errors"
	"hash/fnv"
	"net/http"
	"reflect"
	"strings"

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
	ts := l.tokenSource(ctx, rec.Token)
	tok, err := ts.Token()
	if revokedUpstream(err) || (err != nil && rec.Token.RefreshToken == "") {
		return nil, ErrSignInAgain
	}
	if err != nil {
		l.log.Warn("upstream: refreshing an upstream token", "provider", l.provider.Name, "err", oauthErrorCode(err))
		return nil, errors.New("upstream: the identity provider cannot be reached to refresh the token")
	}
	if err := l.saveRefreshed(ctx, key, rec, ts, rec.Person); err != nil {
		l.log.Warn("upstream: storing a refreshed token", "err", err)
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

// tokenSource refreshes tok when it expired.
func (l *Login) tokenSource(ctx context.Context, tok *oauth2.Token) oauth2.TokenSource {
	return l.oauth.TokenSource(l.httpContext(ctx), tok)
}

// saveRefreshed stores rec again when ts refreshed its token (or p
// changed), sealed as before.
func (l *Login) saveRefreshed(ctx context.Context, key string, rec *record, ts oauth2.TokenSource, p *Person) error {
	tok, err := ts.Token()
	if err != nil {
		return nil
	}
	if tok.AccessToken == rec.Token.AccessToken && reflect.DeepEqual(p, rec.Person) {
		return nil
	}
	stored, err := l.tokens.UpstreamToken(ctx, key)
	if err != nil {
		return nil // forgotten meanwhile (revoked, signed out): keep it so
	}
	if tok.RefreshToken == "" {
		tok.RefreshToken = rec.Token.RefreshToken
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
