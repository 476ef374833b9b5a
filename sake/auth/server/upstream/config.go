package upstream

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"github.com/sakemcp/sake-go/sake/auth/server"
)

// Defaults of Config.
const (
	// DefaultSessionTTL is how long a sign-in's session cookie lasts.
	DefaultSessionTTL = 12 * time.Hour
	// DefaultLoginTTL is how long a sign-in at the provider may take,
	// from the redirect to the callback.
	DefaultLoginTTL = 10 * time.Minute
	// DefaultLookupTTL is how long Lookup's answer from the provider
	// is reused for a subject.
	DefaultLookupTTL = 5 * time.Minute
	// DefaultLookupCacheSize bounds the subjects Lookup remembers.
	DefaultLookupCacheSize = 10_000
	// DefaultTokenTTL is how long an authorization's upstream token is
	// kept without use (server.DefaultGrantLifetime).
	DefaultTokenTTL = server.DefaultGrantLifetime
	// DefaultHTTPTimeout bounds each request to the provider.
	DefaultHTTPTimeout = 10 * time.Second
	// DefaultRevocationTimeout bounds the revocation of an upstream
	// token at the provider, in the background.
	DefaultRevocationTimeout = 10 * time.Second
	// DefaultMaxRevocations bounds the revocations at the provider under
	// way at once.
	DefaultMaxRevocations = 64
	// maxBody bounds what is read of a provider's API answer.
	maxBody = 1 << 20
)

// Config configures a Login.
type Config struct {
	// Provider is where people sign in (OIDC, Google, Entra, Okta,
	// Auth0, Keycloak, GitHub). Required.
	Provider Provider
	// ClientID and ClientSecret are this application's registration at
	// the provider. ClientID is required; without a secret the client is
	// public (PKCE only).
	ClientID, ClientSecret string
	// BaseURL is the absolute URL of the login's pages on this
	// application's origin, for example https://notes.example.com/login:
	// the sign-in starts there, the provider sends the browser back to
	// BaseURL + "/callback" (register that redirect URI at the
	// provider), and BaseURL + "/logout" signs out. Required.
	BaseURL string
	// Scopes are asked for in addition to the provider's.
	Scopes []string
	// Allow are the rules a person must pass to sign in (AllowDomains,
	// AllowTenants, AllowOrganizations, or any Rule). None lets in
	// everyone with an account at the provider.
	Allow []Rule
	// Store keeps the sign-ins' upstream tokens (sealed) and the
	// single-use login states: the authorization server's Store, which
	// must implement server.UpstreamTokenStore (NewMemoryStore and
	// pgstore do). Required.
	Store server.Store
	// Secret keys the cookies and the sealing of upstream tokens: at
	// least 32 bytes, the same on every replica (tokens sealed under
	// another secret cannot be opened). Default: random at start.
	Secret []byte
	// SessionTTL, LoginTTL, LookupTTL and TokenTTL are lifetimes
	// (defaults DefaultSessionTTL...).
	SessionTTL, LoginTTL, LookupTTL, TokenTTL time.Duration
	// LookupCacheSize bounds Lookup's cache (DefaultLookupCacheSize).
	LookupCacheSize int
	// TokensPerSubject bounds the upstream tokens kept per person
	// (server.DefaultUpstreamTokensPerSubject).
	TokensPerSubject int
	// RevocationTimeout bounds each revocation of an upstream token at
	// the provider (DefaultRevocationTimeout), and MaxRevocations how
	// many are under way at once (DefaultMaxRevocations): beyond, a
	// token is left to expire at the provider, and that is logged.
	RevocationTimeout time.Duration
	MaxRevocations    int
	// HTTPClient talks to the provider; default one with
	// DefaultHTTPTimeout.
	HTTPClient *http.Client
	// Logger receives failures (never a token); default slog.Default().
	Logger *slog.Logger
	// Now is the clock; default time.Now. For tests.
	Now func() time.Time
}

// Login is a server.Login that signs people in at an upstream identity
// provider. Create it with New, give it to server.Config.Login, and
// mount its pages with Mount.
type Login struct {
	cfg      Config
	provider Provider
	oidc     *oidc.Provider
	verifier *oidc.IDTokenVerifier
	oauth    oauth2.Config
	algs     []string
	issParam bool // the provider sends iss in authorization responses (RFC 9207)
	// discoveredIssuer is the issuer of the discovery document (Entra:
	// the tenant by its id, or a {tenantid} placeholder).
	discoveredIssuer string
	userinfo         string
	tokens           server.UpstreamTokenStore
	seal             sealer
	base             *url.URL
	secure           bool
	http             *http.Client
	log              *slog.Logger
	now              func() time.Time
	cache            *lookupCache
	locks            [64]sync.Mutex // by family: one refresh at a time
	revoke           revocation
	revoking         sync.WaitGroup // revocations under way at the provider
}

// New checks cfg and, for an OpenID provider, fetches its discovery
// document.
func New(ctx context.Context, cfg Config) (*Login, error) {
	p := cfg.Provider
	switch {
	case p.Issuer == "":
		return nil, errors.New("upstream: Config.Provider is required (OIDC, Google, Entra, Okta, Auth0, Keycloak or GitHub)")
	case cfg.ClientID == "":
		return nil, errors.New("upstream: Config.ClientID is required: the application's client id at the provider")
	case cfg.Store == nil:
		return nil, errors.New("upstream: Config.Store is required: the authorization server's store")
	}
	tokens, ok := cfg.Store.(server.UpstreamTokenStore)
	if !ok {
		return nil, fmt.Errorf("upstream: Config.Store (%T) does not keep upstream tokens (server.UpstreamTokenStore)", cfg.Store)
	}
	base, err := url.Parse(strings.TrimSuffix(cfg.BaseURL, "/"))
	if err != nil || base.Host == "" || (base.Scheme != "https" && base.Scheme != "http") || base.RawQuery != "" || base.Fragment != "" {
		return nil, errors.New("upstream: Config.BaseURL must be the absolute URL of the login's pages, like https://app.example.com/login")
	}
	l := &Login{cfg: cfg, provider: p, tokens: tokens, base: base, secure: base.Scheme == "https",
		http: cfg.HTTPClient, log: cfg.Logger, now: cfg.Now}
	if l.http == nil {
		l.http = &http.Client{Timeout: DefaultHTTPTimeout}
	}
	if l.log == nil {
		l.log = slog.Default()
	}
	if l.now == nil {
		l.now = time.Now
	}
	secret := cfg.Secret
	if secret == nil {
		secret = make([]byte, 32)
		_, _ = rand.Read(secret)
	} else if len(secret) < 32 {
		return nil, errors.New("upstream: Config.Secret must be at least 32 bytes")
	}
	l.seal = sealer{secret: secret}
	durations := []*time.Duration{&l.cfg.SessionTTL, &l.cfg.LoginTTL, &l.cfg.LookupTTL, &l.cfg.TokenTTL, &l.cfg.RevocationTimeout}
	defaults := []time.Duration{DefaultSessionTTL, DefaultLoginTTL, DefaultLookupTTL, DefaultTokenTTL, DefaultRevocationTimeout}
	for i, d := range durations {
		if *d < 0 {
			return nil, errors.New("upstream: Config durations must not be negative")
		}
		if *d == 0 {
			*d = defaults[i]
		}
	}
	if l.cfg.LookupCacheSize <= 0 {
		l.cfg.LookupCacheSize = DefaultLookupCacheSize
	}
	if l.cfg.MaxRevocations <= 0 {
		l.cfg.MaxRevocations = DefaultMaxRevocations
	}
	if l.cfg.TokensPerSubject <= 0 {
		l.cfg.TokensPerSubject = server.DefaultUpstreamTokensPerSubject
	}
	l.cache = newLookupCache(l.cfg.LookupCacheSize)
	scopes := slices.Clone(p.Scopes)
	for _, s := range cfg.Scopes {
		if !slices.Contains(scopes, s) {
			scopes = append(scopes, s)
		}
	}
	l.oauth = oauth2.Config{ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret, RedirectURL: l.CallbackURL()}
	if p.kind == kindGitHub {
		l.oauth.Endpoint = p.endpoint
		l.oauth.Scopes = scopes
		if cfg.ClientSecret != "" {
			// GitHub deletes an application's token by its API.
			l.newRevocation(p.apiURL+"/applications/"+url.PathEscape(cfg.ClientID)+"/token", nil)
		}
		return l, nil
	}
	dctx := oidc.ClientContext(ctx, l.http)
	if p.kind == kindEntra {
		// Entra's discovery names the tenant by its id (or, for several
		// tenants, a placeholder): each token's issuer is checked
		// against its tid instead (see verifyIDToken).
		dctx = oidc.InsecureIssuerURLContext(dctx, p.Issuer)
	}
	op, err := oidc.NewProvider(dctx, p.Issuer)
	if err != nil {
		return nil, fmt.Errorf("upstream: discovering %s: %w", p.Issuer, err)
	}
	var meta struct {
		Issuer   string   `json:"issuer"`
		Scopes   []string `json:"scopes_supported"`
		Algs     []string `json:"id_token_signing_alg_values_supported"`
		IssParam bool     `json:"authorization_response_iss_parameter_supported"`
		// RFC 8414 §2 (and OpenID's registry): where tokens are revoked.
		Revocation        string   `json:"revocation_endpoint"`
		RevocationMethods []string `json:"revocation_endpoint_auth_methods_supported"`
		TokenMethods      []string `json:"token_endpoint_auth_methods_supported"`
	}
	if err := op.Claims(&meta); err != nil {
		return nil, fmt.Errorf("upstream: discovery document of %s: %w", p.Issuer, err)
	}
	if !slices.Contains(scopes, oidc.ScopeOpenID) {
		scopes = append([]string{oidc.ScopeOpenID}, scopes...)
	}
	if slices.Contains(meta.Scopes, oidc.ScopeOfflineAccess) && !slices.Contains(scopes, oidc.ScopeOfflineAccess) {
		scopes = append(scopes, oidc.ScopeOfflineAccess)
	}
	for _, a := range meta.Algs {
		if a != "none" && !strings.HasPrefix(a, "HS") {
			l.algs = append(l.algs, a)
		}
	}
	if len(l.algs) == 0 {
		l.algs = []string{oidc.RS256}
	}
	l.oidc, l.issParam, l.userinfo, l.discoveredIssuer = op, meta.IssParam, op.UserInfoEndpoint(), meta.Issuer
	l.oauth.Endpoint = op.Endpoint()
	l.oauth.Scopes = scopes
	if meta.RevocationMethods == nil {
		// RFC 7009 §2.1: the client authenticates as at the token
		// endpoint.
		meta.RevocationMethods = meta.TokenMethods
	}
	l.newRevocation(meta.Revocation, meta.RevocationMethods)
	l.verifier = op.VerifierContext(oidc.ClientContext(context.Background(), l.http), &oidc.Config{
		ClientID: cfg.ClientID, SupportedSigningAlgs: l.algs, Now: l.now, SkipIssuerCheck: p.kind == kindEntra})
	return l, nil
}

// CallbackURL is the redirect URI to register at the provider:
// Config.BaseURL + "/callback".
func (l *Login) CallbackURL() string { return l.base.String() + "/callback" }

// Provider returns the provider people sign in at.
func (l *Login) Provider() Provider { return l.provider }
