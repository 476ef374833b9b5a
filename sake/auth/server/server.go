package server

import (
	"context"
	"crypto"
	"crypto/rand"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/sakemcp/sake-go/sake/auth"
)

// Defaults of Config.
const (
	DefaultAccessTokenTTL  = 15 * time.Minute
	DefaultRefreshTokenTTL = 30 * 24 * time.Hour
	DefaultCodeTTL         = time.Minute
	DefaultRequestTTL      = 10 * time.Minute
	DefaultDeviceCodeTTL   = 10 * time.Minute
	// DefaultGrantLifetime bounds how long refresh tokens can keep an
	// authorization alive, however often they rotate.
	DefaultGrantLifetime = 90 * 24 * time.Hour
	DefaultPrefix        = "/oauth"
	// DefaultMaxBody bounds the form and JSON bodies the endpoints read.
	DefaultMaxBody = 64 << 10
	// DefaultMaxRegistrationsPerAddress bounds the dynamically registered
	// clients never authorized that one address holds.
	DefaultMaxRegistrationsPerAddress = 100
	// DefaultUnusedClientTTL is how long a dynamically registered client
	// that was never authorized is kept.
	DefaultUnusedClientTTL = 24 * time.Hour
)

// Scope is a scope clients may ask for, with the sentence the consent
// page shows for it.
type Scope struct {
	Name        string
	Description string
}

// Config configures a Server.
type Config struct {
	// Issuer is the server's issuer identifier: an https URL (http only
	// for loopback hosts, in development) without query or fragment,
	// exactly as clients will see it. Required.
	Issuer string
	// Login is the application's sign-in. Required.
	Login Login
	// Resources are the canonical URLs of the MCP servers tokens may be
	// issued for (RFC 8707); a token's audience is the resource the
	// client asked for, or the first one. Required.
	Resources []string
	// Scopes are the scopes clients may ask for. openid, profile, email
	// and offline_access are added.
	Scopes []Scope
	// DefaultScopes apply when a request names none; default every scope
	// of Scopes (not the OpenID ones).
	DefaultScopes []string
	// Clients are pre-registered clients. Give each confidential one a
	// SecretHash from HashSecret.
	Clients []Client
	// Store keeps clients, credentials and consents; default
	// NewMemoryStore().
	Store Store
	// Prefix is the path under the issuer where the endpoints live;
	// default DefaultPrefix.
	Prefix string
	// SigningAlgorithm is ES256 (default) or EdDSA.
	SigningAlgorithm string
	// SigningKeys, when set, are the keys to use (replicas must share
	// them): the first signs, the others are published for verification.
	// Default: a generated key, rotated every KeyRotation.
	SigningKeys []crypto.Signer
	// KeyRotation is how often a generated signing key is replaced; 0
	// never. Old keys stay published until their last token expires.
	KeyRotation time.Duration
	// AccessTokenTTL, RefreshTokenTTL, CodeTTL, RequestTTL and
	// DeviceCodeTTL are lifetimes (defaults DefaultAccessTokenTTL...).
	AccessTokenTTL, RefreshTokenTTL, CodeTTL, RequestTTL, DeviceCodeTTL time.Duration
	// GrantLifetime bounds an authorization's life through refresh
	// tokens, counted from the sign-in that granted it (default
	// DefaultGrantLifetime); then the person must authorize again.
	GrantLifetime time.Duration
	// Registration decides on a dynamic client registration (RFC 7591):
	// return an error to refuse it (its text is sent as
	// error_description). Nil accepts every well-formed one, except one
	// asking for the client credentials grant (see
	// DynamicClientCredentials).
	Registration func(ctx context.Context, r *http.Request, c *Client) error
	// DynamicClientCredentials lets a dynamically registered client use
	// the client credentials grant. Off by default: registration is open
	// to anyone, and a machine client acts for itself, with any scope the
	// server has and no person to consent, so such a registration is
	// refused (400 invalid_client_metadata) and a dynamic client stored
	// with the grant gets no token (400 unauthorized_client). Turning it
	// on needs Registration, which sees the grant in Client.GrantTypes and
	// decides who may register such a client. Pre-registered clients
	// (Clients) are not concerned.
	DynamicClientCredentials bool
	// DisableRegistration turns the registration endpoint off.
	DisableRegistration bool
	// MaxDynamicClients bounds dynamically registered clients (default
	// DefaultMaxClients, 10000). At the bound a registration evicts the
	// oldest client never authorized; only when every one was authorized
	// is it answered 503 temporarily_unavailable.
	MaxDynamicClients int
	// MaxRegistrationsPerAddress bounds the clients never authorized that
	// one remote address (an IPv4 address, or an IPv6 /64) registered
	// (default DefaultMaxRegistrationsPerAddress); beyond, a registration
	// from it is answered 429 temporarily_unavailable.
	MaxRegistrationsPerAddress int
	// UnusedClientTTL is how long a dynamically registered client that
	// was never authorized (no code or token issued to it) is kept
	// (default DefaultUnusedClientTTL); it is forgotten at a registration
	// after that.
	UnusedClientTTL time.Duration
	// RegistrationAddress returns the remote address a registration is
	// counted against; default the host of r.RemoteAddr. Behind a reverse
	// proxy every request comes from the proxy: return the client address
	// the proxy puts in a header it always sets, replacing any the client
	// sent (for example X-Real-IP, or the last X-Forwarded-For entry); an
	// empty answer falls back to r.RemoteAddr.
	RegistrationAddress func(r *http.Request) string
	// Metadata configures Client ID Metadata Document fetching.
	Metadata MetadataDocuments
	// ConsentTemplate replaces the consent page; it is executed with a
	// ConsentPage. DeviceTemplate replaces the device code entry page
	// (executed with a DevicePage).
	ConsentTemplate, DeviceTemplate *template.Template
	// Secret keys the CSRF tokens of the pages; at least 32 bytes, the
	// same on every replica. Default: random at start.
	Secret []byte
	// TokenExchange decides on a token exchange (RFC 8693) that passed
	// every check: return an error to refuse it (400 invalid_target, its
	// text as error_description), for example to bound which resources
	// each resource server may call. Nil accepts them. Which clients may
	// exchange at all is Client.ExchangeFrom.
	TokenExchange func(ctx context.Context, x *TokenExchange) error
	// MaxActorDepth bounds the act chain of an exchanged token: a token
	// exchanged this many times already is refused (default
	// auth.DefaultMaxActorDepth, what Verifier accepts).
	MaxActorDepth int
	// Logger receives internal failures; default slog.Default().
	Logger *slog.Logger
	// Now is the clock; default time.Now. For tests.
	Now func() time.Time
}

// Server is an OAuth 2.1 authorization server on the application's own
// login. Create it with New and mount it with Mount.
type Server struct {
	cfg       Config
	issuer    string
	base      string // issuer path + prefix
	store     Store
	login     Login
	keys      *keyRing
	scopes    []Scope
	scopeDesc map[string]string
	defaults  []string
	resources []string
	static    map[string]*Client
	secret    []byte
	cimd      *cimdFetcher
	consent   *template.Template
	device    *template.Template
	log       *slog.Logger
	now       func() time.Time
	replay    auth.ReplayCache

	rotateMu sync.Mutex
	rotated  time.Time

	guessMu sync.Mutex
	guesses map[string]*guesses
}

// New checks cfg and returns a server.
func New(cfg Config) (*Server, error) {
	iss, err := url.Parse(cfg.Issuer)
	switch {
	case cfg.Issuer == "" || err != nil:
		return nil, errors.New("authserver: Config.Issuer must be the issuer URL")
	case iss.RawQuery != "" || iss.Fragment != "" || iss.Host == "":
		return nil, errors.New("authserver: Config.Issuer must have a host and no query or fragment")
	case iss.Scheme != "https" && !(iss.Scheme == "http" && isLoopbackHost(iss.Hostname())):
		return nil, errors.New("authserver: Config.Issuer must be https (http only on a loopback host)")
	case cfg.Login == nil:
		return nil, errors.New("authserver: Config.Login is required: it says who is signed in")
	case len(cfg.Resources) == 0:
		return nil, errors.New("authserver: Config.Resources needs the canonical URL of at least one MCP server")
	case cfg.DynamicClientCredentials && cfg.Registration == nil:
		return nil, errors.New("authserver: Config.DynamicClientCredentials needs Config.Registration to decide who may register a machine client")
	}
	s := &Server{cfg: cfg, issuer: cfg.Issuer, store: cfg.Store, login: cfg.Login, log: cfg.Logger, now: cfg.Now}
	if s.store == nil {
		s.store = NewMemoryStore()
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.now == nil {
		s.now = time.Now
	}
	prefix := cfg.Prefix
	if prefix == "" {
		prefix = DefaultPrefix
	}
	if !strings.HasPrefix(prefix, "/") || strings.HasSuffix(prefix, "/") {
		return nil, errors.New("authserver: Config.Prefix must start with / and not end with one")
	}
	s.base = strings.TrimSuffix(iss.Path, "/") + prefix
	for _, r := range cfg.Resources {
		c, err := canonicalResource(r)
		if err != nil {
			return nil, fmt.Errorf("authserver: Config.Resources: %w", err)
		}
		s.resources = append(s.resources, c)
	}
	durations := []*time.Duration{&s.cfg.AccessTokenTTL, &s.cfg.RefreshTokenTTL, &s.cfg.CodeTTL, &s.cfg.RequestTTL,
		&s.cfg.DeviceCodeTTL, &s.cfg.GrantLifetime}
	defaults := []time.Duration{DefaultAccessTokenTTL, DefaultRefreshTokenTTL, DefaultCodeTTL, DefaultRequestTTL,
		DefaultDeviceCodeTTL, DefaultGrantLifetime}
	for i, d := range durations {
		if *d < 0 {
			return nil, errors.New("authserver: Config durations must not be negative")
		}
		if *d == 0 {
			*d = defaults[i]
		}
	}
	if s.cfg.MaxDynamicClients <= 0 {
		s.cfg.MaxDynamicClients = DefaultMaxClients
	}
	if s.cfg.MaxRegistrationsPerAddress <= 0 {
		s.cfg.MaxRegistrationsPerAddress = DefaultMaxRegistrationsPerAddress
	}
	if s.cfg.MaxActorDepth <= 0 {
		s.cfg.MaxActorDepth = auth.DefaultMaxActorDepth
	}
	if s.cfg.UnusedClientTTL < 0 {
		return nil, errors.New("authserver: Config.UnusedClientTTL must not be negative")
	}
	if s.cfg.UnusedClientTTL == 0 {
		s.cfg.UnusedClientTTL = DefaultUnusedClientTTL
	}
	alg := cfg.SigningAlgorithm
	if alg == "" {
		alg = ES256
	}
	if s.keys, err = newKeyRing(alg, cfg.SigningKeys, s.cfg.AccessTokenTTL+time.Hour); err != nil {
		return nil, err
	}
	s.rotated = s.now()
	s.scopeDesc = map[string]string{}
	for _, sc := range cfg.Scopes {
		if sc.Name == "" || strings.ContainsAny(sc.Name, " \"\\") {
			return nil, fmt.Errorf("authserver: scope %q is not a valid scope token", sc.Name)
		}
		s.scopes = append(s.scopes, sc)
		s.scopeDesc[sc.Name] = sc.Description
		s.defaults = append(s.defaults, sc.Name)
	}
	for _, sc := range oidcScopes {
		if _, ok := s.scopeDesc[sc.Name]; !ok {
			s.scopes = append(s.scopes, sc)
			s.scopeDesc[sc.Name] = sc.Description
		}
	}
	if cfg.DefaultScopes != nil {
		for _, d := range cfg.DefaultScopes {
			if _, ok := s.scopeDesc[d]; !ok {
				return nil, fmt.Errorf("authserver: default scope %q is not in Config.Scopes", d)
			}
		}
		s.defaults = slices.Clone(cfg.DefaultScopes)
	}
	s.static = map[string]*Client{}
	for i := range cfg.Clients {
		c := cloneClient(&cfg.Clients[i])
		if err := s.checkStaticClient(c); err != nil {
			return nil, err
		}
		s.static[c.ID] = c
	}
	s.secret = cfg.Secret
	if s.secret == nil {
		s.secret = make([]byte, 32)
		_, _ = rand.Read(s.secret)
	} else if len(s.secret) < 32 {
		return nil, errors.New("authserver: Config.Secret must be at least 32 bytes")
	}
	s.cimd = newCIMDFetcher(cfg.Metadata, s.now)
	s.consent = cfg.ConsentTemplate
	if s.consent == nil {
		s.consent = consentTemplate
	}
	s.device = cfg.DeviceTemplate
	if s.device == nil {
		s.device = deviceTemplate
	}
	s.replay = auth.NewReplayCache()
	s.guesses = map[string]*guesses{}
	return s, nil
}

var oidcScopes = []Scope{
	{"openid", "Confirm who you are to the application"},
	{"profile", "See your name"},
	{"email", "See your email address"},
	{"offline_access", "Stay connected when you are not using it"},
}

// Issuer returns the issuer identifier.
func (s *Server) Issuer() string { return s.issuer }

// endpoint returns the absolute URL of an endpoint.
func (s *Server) endpoint(name string) string {
	u, _ := url.Parse(s.issuer)
	return u.Scheme + "://" + u.Host + s.base + name
}

// Endpoint paths under the prefix.
const (
	pathAuthorize           = "/authorize"
	pathConsent             = "/consent"
	pathToken               = "/token"
	pathRegister            = "/register"
	pathRevoke              = "/revoke"
	pathIntrospect          = "/introspect"
	pathJWKS                = "/jwks.json"
	pathPAR                 = "/par"
	pathDeviceAuthorization = "/device_authorization"
	pathDevice              = "/device"
	pathUserinfo            = "/userinfo"
)

// Mount adds the server's routes to r: the discovery documents at their
// well-known paths and every endpoint under the issuer's path plus
// Config.Prefix. r must serve the issuer's origin at its root.
func (s *Server) Mount(r chi.Router) {
	issPath := strings.TrimSuffix(mustPath(s.issuer), "/")
	meta := s.metadataHandler(false)
	oidc := s.metadataHandler(true)
	r.Get("/.well-known/oauth-authorization-server"+issPath, meta)
	r.Get("/.well-known/openid-configuration"+issPath, oidc)
	if issPath != "" {
		r.Get(issPath+"/.well-known/openid-configuration", oidc)
	}
	b := s.base
	page := func(h http.HandlerFunc) http.HandlerFunc { return s.guard(answerPage, h) }
	api := func(h http.HandlerFunc) http.HandlerFunc { return s.guard(answerJSON, h) }
	r.Get(b+pathAuthorize, page(s.authorize))
	r.Post(b+pathAuthorize, page(s.authorize))
	r.Get(b+pathConsent, page(s.consentPage))
	r.Post(b+pathConsent, page(s.consentDecision))
	r.Post(b+pathToken, api(s.token))
	if !s.cfg.DisableRegistration {
		r.Post(b+pathRegister, api(s.register))
	}
	r.Post(b+pathRevoke, api(s.revoke))
	r.Post(b+pathIntrospect, api(s.introspect))
	r.Get(b+pathJWKS, api(s.jwks))
	r.Post(b+pathPAR, api(s.par))
	r.Post(b+pathDeviceAuthorization, api(s.deviceAuthorization))
	r.Get(b+pathDevice, page(s.devicePage))
	r.Post(b+pathDevice, page(s.deviceDecision))
	r.Get(b+pathUserinfo, api(s.userinfo))
	r.Post(b+pathUserinfo, api(s.userinfo))
}

// Handler returns the server's routes on a router of their own, to serve
// at the root of the issuer's origin.
func (s *Server) Handler() http.Handler {
	r := chi.NewRouter()
	s.Mount(r)
	return r
}

// IsReturnURL reports whether u is a URL the Login may send the browser
// back to after sign-in: one of this server's pages. Use it in the login
// handler to refuse open redirects.
func (s *Server) IsReturnURL(u string) bool {
	p, err := url.Parse(u)
	if err != nil || p.Fragment != "" || p.User != nil {
		return false
	}
	want := s.endpoint("")
	prefix, _ := url.Parse(want)
	return p.Scheme == prefix.Scheme && p.Host == prefix.Host &&
		(p.Path == s.base+pathConsent || p.Path == s.base+pathDevice)
}

// ResourceMetadata returns the Protected Resource Metadata (RFC 9728) for
// resource, naming this server, for the MCP endpoint to serve.
func (s *Server) ResourceMetadata(resource string, scopes ...string) *auth.ResourceMetadata {
	return &auth.ResourceMetadata{
		Resource:                      resource,
		AuthorizationServers:          []string{s.issuer},
		ScopesSupported:               scopes,
		DPoPSigningAlgValuesSupported: auth.DPoPAlgorithms(),
	}
}

// Verifier returns a token verifier for resource, checking this server's
// tokens against its published keys in process, and refusing at once
// (401 invalid_token) an access token whose authorization was revoked: by
// a replayed code or refresh token, or by the revocation endpoint. It
// asks the Store (see RevocationList), so every replica on a shared
// store refuses it too; while the store cannot tell (pgstore listening
// again after a lost connection) the request is answered 503, never let
// through. A verifier built from the JWKS URL instead (another process) knows
// nothing of revocations: it accepts a revoked token until it expires
// (Config.AccessTokenTTL).
//
// When a client may exchange tokens sent to resource (Client.ExchangeFrom),
// the verifier keeps each token with its identity, for auth.TokenOf and
// an Exchanger.
func (s *Server) Verifier(resource string) (*auth.JWTVerifier, error) {
	return auth.NewJWTVerifier(auth.JWTConfig{
		Issuer:     s.issuer,
		Audience:   []string{resource},
		Keys:       ownKeys{s.keys},
		Algorithms: []string{ES256, EdDSA},
		Revoked:    s.accessRevoked,
		Now:        s.cfg.Now,
		KeepToken:  s.exchangesFrom(resource),
	})
}

// accessRevoked is the verifier's revocation check: from the store's
// RevocationList, or else its record of the token. A token of this
// server without a jti, or that the store does not know, was never
// issued by it: refused.
func (s *Server) accessRevoked(ctx context.Context, claims map[string]any) (bool, error) {
	jti, _ := claims["jti"].(string)
	if jti == "" {
		return true, nil
	}
	hash := hashHandle(jti)
	if rl, ok := s.store.(RevocationList); ok {
		return rl.AccessRevoked(ctx, hash)
	}
	rec, err := s.store.Credential(ctx, hash)
	if errors.Is(err, ErrNotFound) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	return rec.Revoked || rec.Kind != KindAccess, nil
}

// ownKeys is the key source of Verifier.
type ownKeys struct{ kr *keyRing }

func (o ownKeys) Key(_ context.Context, kid, alg string) (any, error) {
	pub, a, ok := o.kr.publicKey(kid)
	if !ok || a != alg {
		return nil, auth.ErrKeyNotFound
	}
	return pub, nil
}

// RotateKeys makes the published next signing key the active one now.
// Tokens signed before stay verifiable until they expire.
func (s *Server) RotateKeys() error {
	s.rotateMu.Lock()
	defer s.rotateMu.Unlock()
	s.rotated = s.now()
	return s.keys.rotate(s.rotated)
}

// maybeRotate rotates generated keys every Config.KeyRotation.
func (s *Server) maybeRotate() {
	if s.cfg.KeyRotation <= 0 || len(s.cfg.SigningKeys) > 0 {
		return
	}
	s.rotateMu.Lock()
	due := s.now().Sub(s.rotated) >= s.cfg.KeyRotation
	s.rotateMu.Unlock()
	if due {
		if err := s.RotateKeys(); err != nil {
			s.log.Error("authserver: rotating signing keys", "err", err)
		}
	}
}

func (s *Server) jwks(w http.ResponseWriter, _ *http.Request) {
	s.maybeRotate()
	h := w.Header()
	h.Set("Content-Type", "application/jwk-set+json")
	h.Set("Cache-Control", "public, max-age=300")
	h.Set("Access-Control-Allow-Origin", "*")
	_, _ = w.Write(s.keys.document())
}

func mustPath(u string) string {
	p, _ := url.Parse(u)
	return p.Path
}

// canonicalResource lowercases scheme and host and refuses fragments and
// non-absolute URLs (RFC 8707 §2).
func canonicalResource(r string) (string, error) {
	u, err := url.Parse(r)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Fragment != "" || strings.Contains(r, "#") {
		return "", fmt.Errorf("resource %q must be an absolute URL without fragment", r)
	}
	u.Scheme = strings.ToLower(u.Scheme)
	u.Host = strings.ToLower(u.Host)
	return u.String(), nil
}
