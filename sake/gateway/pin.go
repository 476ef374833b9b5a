package gateway

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/sakemcp/sake-go/sake/auth"
)

// pinnedIssuer carries the OAuth requests of an entry whose "oauth" names
// an issuer: the entry signs in there or nowhere. It refuses to read the
// metadata of any other authorization server (so the client learns at
// once that the server it connects to sends it elsewhere) and sends a
// POST (a registration, a token request) only to the pinned issuer's
// token endpoint, found in its own metadata: the gateway's credentials
// never leave for another server, and it registers nowhere.
type pinnedIssuer struct {
	issuer   string
	metadata map[string]bool // the issuer's own metadata URLs
	base     http.RoundTripper

	// registers lets a POST go to the issuer's registration endpoint too
	// (a per-user entry without a client id registers there, and there
	// alone).
	registers bool

	mu           sync.Mutex
	token        string // the issuer's token endpoint, once discovered
	registration string // and its registration endpoint
}

func newPinnedIssuer(issuer string, base http.RoundTripper) *pinnedIssuer {
	if base == nil {
		base = http.DefaultTransport
	}
	p := &pinnedIssuer{issuer: issuer, base: base, metadata: map[string]bool{}}
	if u, err := url.Parse(issuer); err == nil {
		origin, path := u.Scheme+"://"+u.Host, strings.TrimSuffix(u.EscapedPath(), "/")
		p.metadata[origin+"/.well-known/oauth-authorization-server"+path] = true
		p.metadata[origin+"/.well-known/openid-configuration"+path] = true
		if path != "" {
			p.metadata[origin+path+"/.well-known/openid-configuration"] = true
		}
	}
	return p
}

// client is the HTTP client of the entry's OAuth requests.
func (p *pinnedIssuer) client() *http.Client {
	return &http.Client{Timeout: 30 * time.Second, Transport: p}
}

// RoundTrip sends req when it may go where it goes.
func (p *pinnedIssuer) RoundTrip(req *http.Request) (*http.Response, error) {
	at := withoutQuery(req.URL)
	switch req.Method {
	case http.MethodGet, http.MethodHead:
		if isServerMetadata(req.URL) && !p.metadata[at] {
			return nil, fmt.Errorf("gateway: the server's authorization server (metadata at %s) is not the entry's \"issuer\" %q, where alone it signs in; set \"issuer\" to the server's authorization server if it is trusted", at, p.issuer)
		}
	default:
		token, err := p.tokenEndpoint(req.Context())
		if err != nil {
			return nil, err
		}
		if at != token && (!p.registers || at != p.registrationEndpoint()) {
			return nil, fmt.Errorf("gateway: the entry signs in only at its \"issuer\" %q (token endpoint %s), so it sends nothing to %s and registers nowhere", p.issuer, token, at)
		}
	}
	return p.base.RoundTrip(req)
}

// tokenEndpoint returns the pinned issuer's token endpoint, read from its
// metadata once.
func (p *pinnedIssuer) tokenEndpoint(ctx context.Context) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.token != "" {
		return p.token, nil
	}
	md, err := auth.Discover(ctx, p.issuer, &http.Client{Timeout: 30 * time.Second, Transport: p.base})
	if err != nil {
		return "", fmt.Errorf("gateway: the metadata of the entry's \"issuer\" %q cannot be read: %w", p.issuer, err)
	}
	if md.TokenEndpoint == "" {
		return "", fmt.Errorf("gateway: the entry's \"issuer\" %q publishes no token endpoint", p.issuer)
	}
	u, err := url.Parse(md.TokenEndpoint)
	if err != nil {
		return "", fmt.Errorf("gateway: the token endpoint of the entry's \"issuer\" %q is not a URL", p.issuer)
	}
	p.token = withoutQuery(u)
	if reg, _ := md.Raw["registration_endpoint"].(string); reg != "" {
		if r, err := url.Parse(reg); err == nil {
			p.registration = withoutQuery(r)
		}
	}
	return p.token, nil
}

// registrationEndpoint is the pinned issuer's registration endpoint, once
// its metadata was read ("" before, or when it has none).
func (p *pinnedIssuer) registrationEndpoint() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.registration
}

// isServerMetadata reports whether u is where an authorization server's
// metadata is (RFC 8414, OpenID Connect Discovery).
func isServerMetadata(u *url.URL) bool {
	return strings.Contains(u.Path, "/.well-known/oauth-authorization-server") ||
		strings.Contains(u.Path, "/.well-known/openid-configuration")
}

// withoutQuery is u as scheme://host/path.
func withoutQuery(u *url.URL) string {
	return u.Scheme + "://" + u.Host + u.EscapedPath()
}
