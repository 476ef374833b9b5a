package upstream

import (
	"crypto"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// testProvider is a small OpenID provider for the tests: it approves
// every authorization request at once, as alice, and lets a test spoil
// the next ID token or answer with an error.
type testProvider struct {
	t   *testing.T
	srv *httptest.Server
	key *rsa.PrivateKey

	mu          sync.Mutex
	clientID    string
	secret      string
	codes       map[string]url.Values // code -> the authorization request
	refreshes   map[string]bool
	access      map[string]bool
	claims      map[string]any // of the person
	spoil       func(claims map[string]any, header map[string]any) (signWith string)
	answer      url.Values // instead of a code (error=access_denied...)
	sendIss     bool
	issOverride string
	authorized  []url.Values // every authorization request seen
	refreshed   int
	expiresIn   int  // of access tokens; default an hour
	omitIss     bool // advertise iss in responses (RFC 9207) but leave it out

	// Revocation (RFC 7009): noRevocation leaves revocation_endpoint out
	// of discovery, revokeMethods are its advertised client
	// authentication methods; each request is sent on revocations;
	// revokeHang, when not nil, holds the answer until it is closed, and
	// revokeStatus replaces 200.
	noRevocation  bool
	revokeMethods []string
	tokenMethods  []string // token_endpoint_auth_methods_supported
	revocations   chan revokeRequest
	revokeHang    chan struct{}
	revokeStatus  int
}

// revokeRequest is a revocation request the provider saw.
type revokeRequest struct {
	form                 url.Values
	basic                bool
	basicID, basicSecret string
}

func newTestProvider(t *testing.T) *testProvider {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	p := &testProvider{t: t, key: key, clientID: "sake-app", secret: "app-secret", codes: map[string]url.Values{},
		refreshes: map[string]bool{}, access: map[string]bool{}, sendIss: true, revocations: make(chan revokeRequest, 16),
		claims: map[string]any{"sub": "alice-1", "email": "alice@example.com", "email_verified": true, "name": "Alice",
			"acr": "urn:mfa", "amr": []string{"pwd", "otp"}}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", p.discovery)
	mux.HandleFunc("GET /{tenant}/v2.0/.well-known/openid-configuration", p.discovery) // as Entra
	mux.HandleFunc("GET /authorize", p.authorize)
	mux.HandleFunc("POST /token", p.token)
	mux.HandleFunc("GET /userinfo", p.userinfo)
	mux.HandleFunc("GET /jwks", p.jwks)
	mux.HandleFunc("POST /revoke", p.revoke)
	p.srv = httptest.NewServer(mux)
	t.Cleanup(p.srv.Close)
	return p
}

func (p *testProvider) issuer() string { return p.srv.URL }

func (p *testProvider) discovery(w http.ResponseWriter, r *http.Request) {
	iss := p.issuer()
	named := iss
	if t := r.PathValue("tenant"); t != "" {
		named = iss + "/" + t + "/v2.0"
		if t == "organizations" {
			named = iss + "/{tenantid}/v2.0"
		}
	}
	doc := map[string]any{"issuer": named, "authorization_endpoint": iss + "/authorize", "token_endpoint": iss + "/token",
		"userinfo_endpoint": iss + "/userinfo", "jwks_uri": iss + "/jwks", "response_types_supported": []string{"code"},
		"id_token_signing_alg_values_supported": []string{"RS256"}, "scopes_supported": []string{"openid", "email", "profile", "offline_access"},
		"authorization_response_iss_parameter_supported": p.sendIss && r.PathValue("tenant") == ""}
	p.mu.Lock()
	if !p.noRevocation {
		doc["revocation_endpoint"] = iss + "/revoke"
		if p.revokeMethods != nil {
			doc["revocation_endpoint_auth_methods_supported"] = p.revokeMethods
		}
	}
	if p.tokenMethods != nil {
		doc["token_endpoint_auth_methods_supported"] = p.tokenMethods
	}
	p.mu.Unlock()
	writeJSON(w, doc)
}

func (p *testProvider) revoke(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	rr := revokeRequest{form: r.PostForm}
	rr.basicID, rr.basicSecret, rr.basic = r.BasicAuth()
	rr.basicID, _ = url.QueryUnescape(rr.basicID)
	rr.basicSecret, _ = url.QueryUnescape(rr.basicSecret)
	p.mu.Lock()
	hang, status := p.revokeHang, p.revokeStatus
	p.mu.Unlock()
	select {
	case p.revocations <- rr:
	default:
		p.t.Error("more revocations than the test expects")
	}
	if hang != nil {
		select {
		case <-hang:
		case <-r.Context().Done():
		}
		return
	}
	if status != 0 {
		w.WriteHeader(status)
		writeJSON(w, map[string]any{"error": "temporarily_unavailable"})
	}
}

// liveRefreshToken is the one refresh token the provider issued and
// that is still valid.
func (p *testProvider) liveRefreshToken() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.refreshes) != 1 {
		p.t.Fatalf("the provider has %d refresh tokens, want 1", len(p.refreshes))
	}
	for rt := range p.refreshes {
		return rt
	}
	return ""
}

func (p *testProvider) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.authorized = append(p.authorized, q)
	back := url.Values{"state": {q.Get("state")}}
	if p.answer != nil {
		for k, v := range p.answer {
			back[k] = v
		}
	} else {
		code := randomToken(16)
		p.codes[code] = q
		back.Set("code", code)
	}
	if p.sendIss && !p.omitIss {
		back.Set("iss", p.issuer())
		if p.issOverride != "" {
			back.Set("iss", p.issOverride)
		}
	}
	http.Redirect(w, r, q.Get("redirect_uri")+"?"+back.Encode(), http.StatusSeeOther)
}

func (p *testProvider) token(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	f := r.PostForm
	id, secret, ok := r.BasicAuth()
	if !ok {
		id, secret = f.Get("client_id"), f.Get("client_secret")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if id != p.clientID || secret != p.secret {
		w.WriteHeader(http.StatusUnauthorized)
		writeJSON(w, map[string]any{"error": "invalid_client"})
		return
	}
	switch f.Get("grant_type") {
	case "authorization_code":
		req, ok := p.codes[f.Get("code")]
		delete(p.codes, f.Get("code"))
		sum := sha256.Sum256([]byte(f.Get("code_verifier")))
		if !ok || req.Get("code_challenge_method") != "S256" ||
			base64.RawURLEncoding.EncodeToString(sum[:]) != req.Get("code_challenge") || f.Get("redirect_uri") != req.Get("redirect_uri") {
			w.WriteHeader(http.StatusBadRequest)
			writeJSON(w, map[string]any{"error": "invalid_grant"})
			return
		}
		writeJSON(w, p.tokens(req.Get("nonce")))
	case "refresh_token":
		if !p.refreshes[f.Get("refresh_token")] {
			w.WriteHeader(http.StatusBadRequest)
			writeJSON(w, map[string]any{"error": "invalid_grant"})
			return
		}
		delete(p.refreshes, f.Get("refresh_token"))
		p.refreshed++
		writeJSON(w, p.tokens(""))
	default:
		w.WriteHeader(http.StatusBadRequest)
		writeJSON(w, map[string]any{"error": "unsupported_grant_type"})
	}
}

// tokens issues a token set. p.mu is held.
func (p *testProvider) tokens(nonce string) map[string]any {
	at, rt := "at-"+randomToken(16), "rt-"+randomToken(16)
	p.access[at], p.refreshes[rt] = true, true
	now := time.Now()
	claims := map[string]any{"iss": p.issuer(), "aud": p.clientID, "iat": now.Unix(), "exp": now.Add(time.Hour).Unix(),
		"auth_time": now.Add(-time.Minute).Unix()}
	for k, v := range p.claims {
		claims[k] = v
	}
	if nonce != "" {
		claims["nonce"] = nonce
	}
	header := map[string]any{"alg": "RS256", "kid": "k1", "typ": "JWT"}
	signWith := "RS256"
	if p.spoil != nil {
		signWith = p.spoil(claims, header)
		p.spoil = nil
	}
	expiresIn := p.expiresIn
	if expiresIn == 0 {
		expiresIn = 3600
	}
	return map[string]any{"access_token": at, "token_type": "Bearer", "expires_in": expiresIn, "refresh_token": rt,
		"id_token": p.sign(header, claims, signWith)}
}

func (p *testProvider) sign(header, claims map[string]any, how string) string {
	h, _ := json.Marshal(header)
	c, _ := json.Marshal(claims)
	enc := base64.RawURLEncoding
	input := enc.EncodeToString(h) + "." + enc.EncodeToString(c)
	switch how {
	case "none":
		return input + "."
	case "HS256-public":
		// HMAC keyed with the provider's public key: the classic
		// algorithm confusion.
		der := x509.MarshalPKCS1PublicKey(&p.key.PublicKey)
		m := hmac.New(sha256.New, der)
		m.Write([]byte(input))
		return input + "." + enc.EncodeToString(m.Sum(nil))
	}
	sum := sha256.Sum256([]byte(input))
	sig, err := rsa.SignPKCS1v15(rand.Reader, p.key, crypto.SHA256, sum[:])
	if err != nil {
		p.t.Error(err)
	}
	return input + "." + enc.EncodeToString(sig)
}

func (p *testProvider) userinfo(w http.ResponseWriter, r *http.Request) {
	at := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.access[at] {
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	writeJSON(w, p.claims)
}

// revokeAll makes every token of the person invalid (access removed at
// the provider).
func (p *testProvider) revokeAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.access, p.refreshes = map[string]bool{}, map[string]bool{}
}

func (p *testProvider) jwks(w http.ResponseWriter, _ *http.Request) {
	enc := base64.RawURLEncoding
	pub := p.key.PublicKey
	writeJSON(w, map[string]any{"keys": []any{map[string]any{"kty": "RSA", "kid": "k1", "use": "sig", "alg": "RS256",
		"n": enc.EncodeToString(pub.N.Bytes()), "e": enc.EncodeToString(big.NewInt(int64(pub.E)).Bytes())}}})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
