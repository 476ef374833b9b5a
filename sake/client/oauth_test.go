package client_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/auth"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/plug"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// testAS is a small authorization server: it signs the user in at once.
type testAS struct {
	ts      *httptest.Server
	issuer  *auth.Issuer
	iss     string // "correct", "wrong", "omit"
	noDCR   bool
	mu      sync.Mutex
	codes   map[string]grant
	refresh map[string]grant
	clients map[string]string // id → secret
	asked   []url.Values      // authorization requests
	grants  []string          // grant types at the token endpoint
	regs    []map[string]any
	ttl     int
	// dpopNonce, when set, is the nonce token requests' DPoP proofs must
	// carry; nonceAsked counts the use_dpop_nonce answers.
	dpopNonce  string
	nonceAsked int
	// assertion, when set, is the one JWT the JWT bearer grant accepts.
	assertion string
	// device, when set, offers the device flow: "approve" answers the
	// second poll with a token, "deny" the first with access_denied.
	device      string
	devicePolls int
}

type grant struct {
	challenge, scope, resource, acr, clientID string
}

func newTestAS(t *testing.T) *testAS {
	a := &testAS{iss: "correct", codes: map[string]grant{}, refresh: map[string]grant{}, clients: map[string]string{"pre": "pre-secret"}, ttl: 3600}
	mux := http.NewServeMux()
	a.ts = httptest.NewServer(mux)
	t.Cleanup(a.ts.Close)
	a.issuer = &auth.Issuer{Issuer: a.ts.URL, Secret: []byte(strings.Repeat("k", 32))}
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		md := map[string]any{"issuer": a.ts.URL, "authorization_endpoint": a.ts.URL + "/authorize", "token_endpoint": a.ts.URL + "/token",
			"code_challenge_methods_supported": []string{"S256"}, "response_types_supported": []string{"code"},
			"scopes_supported":                               []string{"read", "write", "offline_access"},
			"token_endpoint_auth_methods_supported":          []string{"none", "client_secret_basic"},
			"authorization_response_iss_parameter_supported": true}
		if !a.noDCR {
			md["registration_endpoint"] = a.ts.URL + "/register"
		}
		if a.device != "" {
			md["device_authorization_endpoint"] = a.ts.URL + "/device_authorization"
		}
		_ = json.NewEncoder(w).Encode(md)
	})
	mux.HandleFunc("/register", func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		a.mu.Lock()
		a.regs = append(a.regs, body)
		id := fmt.Sprintf("dyn-%d", len(a.regs))
		a.clients[id] = ""
		a.mu.Unlock()
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(map[string]any{"client_id": id, "token_endpoint_auth_method": "none"})
	})
	mux.HandleFunc("/device_authorization", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		a.mu.Lock()
		a.codes["device"] = grant{scope: r.Form.Get("scope"), resource: r.Form.Get("resource"), clientID: r.Form.Get("client_id")}
		a.mu.Unlock()
		_ = json.NewEncoder(w).Encode(map[string]any{"device_code": "device", "user_code": "WDJB-MJHT",
			"verification_uri": a.ts.URL + "/device", "expires_in": 600, "interval": 1})
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		a.mu.Lock()
		a.asked = append(a.asked, q)
		_, known := a.clients[q.Get("client_id")]
		a.mu.Unlock()
		if !known || q.Get("code_challenge_method") != "S256" || q.Get("resource") == "" {
			http.Error(w, "bad authorization request", http.StatusBadRequest)
			return
		}
		code := fmt.Sprintf("code-%d", time.Now().UnixNano())
		acr := ""
		if v := q.Get("acr_values"); v != "" {
			acr = strings.Fields(v)[0]
		}
		a.mu.Lock()
		a.codes[code] = grant{challenge: q.Get("code_challenge"), scope: q.Get("scope"), resource: q.Get("resource"), acr: acr, clientID: q.Get("client_id")}
		a.mu.Unlock()
		back, _ := url.Parse(q.Get("redirect_uri"))
		bq := back.Query()
		bq.Set("code", code)
		bq.Set("state", q.Get("state"))
		switch a.iss {
		case "correct":
			bq.Set("iss", a.ts.URL)
		case "wrong":
			bq.Set("iss", "https://evil.example.com")
		}
		back.RawQuery = bq.Encode()
		http.Redirect(w, r, back.String(), http.StatusFound)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		a.mu.Lock()
		defer a.mu.Unlock()
		a.grants = append(a.grants, r.Form.Get("grant_type"))
		tokenType := "Bearer"
		if r.Header.Get("DPoP") != "" {
			tokenType = "DPoP"
		}
		if a.dpopNonce != "" {
			proof := r.Header.Get("DPoP")
			if _, err := auth.VerifyDPoPProof(proof, http.MethodPost, &url.URL{Scheme: "http", Host: r.Host, Path: r.URL.Path}, "", time.Now(), 0, nil); err != nil {
				w.WriteHeader(http.StatusBadRequest)
				_, _ = w.Write([]byte(`{"error":"invalid_dpop_proof"}`))
				return
			}
			if proofNonce(proof) != a.dpopNonce {
				a.nonceAsked++
				w.Header().Set("DPoP-Nonce", a.dpopNonce)
				w.WriteHeader(http.StatusBadRequest)
				_, _ = w.Write([]byte(`{"error":"use_dpop_nonce"}`))
				return
			}
		}
		var g grant
		switch r.Form.Get("grant_type") {
		case "authorization_code":
			c, ok := a.codes[r.Form.Get("code")]
			delete(a.codes, r.Form.Get("code"))
			sum := sha256.Sum256([]byte(r.Form.Get("code_verifier")))
			if !ok || base64.RawURLEncoding.EncodeToString(sum[:]) != c.challenge || r.Form.Get("resource") != c.resource {
				w.WriteHeader(http.StatusBadRequest)
				_, _ = w.Write([]byte(`{"error":"invalid_grant"}`))
				return
			}
			g = c
		case "refresh_token":
			c, ok := a.refresh[r.Form.Get("refresh_token")]
			delete(a.refresh, r.Form.Get("refresh_token"))
			if !ok {
				w.WriteHeader(http.StatusBadRequest)
				_, _ = w.Write([]byte(`{"error":"invalid_grant"}`))
				return
			}
			g = c
		case "urn:ietf:params:oauth:grant-type:device_code":
			a.devicePolls++
			c, ok := a.codes[r.Form.Get("device_code")]
			switch {
			case !ok:
				w.WriteHeader(http.StatusBadRequest)
				_, _ = w.Write([]byte(`{"error":"invalid_grant"}`))
				return
			case a.device == "deny":
				w.WriteHeader(http.StatusBadRequest)
				_, _ = w.Write([]byte(`{"error":"access_denied"}`))
				return
			case a.devicePolls == 1:
				w.WriteHeader(http.StatusBadRequest)
				_, _ = w.Write([]byte(`{"error":"authorization_pending"}`))
				return
			}
			delete(a.codes, "device")
			g = c
		case "urn:ietf:params:oauth:grant-type:jwt-bearer":
			if a.assertion == "" || r.Form.Get("assertion") != a.assertion || r.Form.Get("resource") == "" {
				w.WriteHeader(http.StatusBadRequest)
				_, _ = w.Write([]byte(`{"error":"invalid_grant"}`))
				return
			}
			g = grant{scope: r.Form.Get("scope"), resource: r.Form.Get("resource"), clientID: r.Form.Get("client_id")}
		default:
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"error":"unsupported_grant_type"}`))
			return
		}
		iss := *a.issuer
		iss.Audience = g.resource
		tok, err := iss.Issue("user-1", g.clientID, strings.Fields(g.scope), g.acr, time.Now(), "")
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		rt := fmt.Sprintf("rt-%d", time.Now().UnixNano())
		a.refresh[rt] = g
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": tok, "token_type": tokenType, "expires_in": a.ttl, "refresh_token": rt, "scope": g.scope})
	})
	return a
}

// vault is a protected server: reading needs "read", writing "write",
// and the safe a recent strong sign-in.
type vault struct{}

func (vault) Declare(d *sake.Declarations) {
	d.Tool("Peek").Description("Reads.").Scopes("read")
	d.Tool("Store").Description("Writes.").Scopes("read", "write")
	d.Tool("Safe").Description("Opens the safe.").Authentication([]string{"urn:mfa"}, time.Hour)
}

func (vault) Peek(*sake.Context) (string, error)  { return "peeked", nil }
func (vault) Store(*sake.Context) (string, error) { return "stored", nil }
func (vault) Safe(*sake.Context) (string, error)  { return "opened", nil }

// protected serves vault behind a's tokens; it counts the requests that
// carried a token.
func protected(t *testing.T, a *testAS) (string, *atomic.Int32) {
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	resource := ts.URL + "/mcp"
	v, err := auth.NewJWTVerifier(auth.JWTConfig{Issuer: a.ts.URL, Audience: []string{resource}, HMACSecret: a.issuer.Secret})
	if err != nil {
		t.Fatal(err)
	}
	md := &auth.ResourceMetadata{Resource: resource, AuthorizationServers: []string{a.ts.URL}, ScopesSupported: []string{"read"}}
	mux.Handle(auth.WellKnownPath(resource), md.Handler())
	h := plug.New(sake.MustNew(vault{}), plug.Authorization(v, auth.MetadataURL(resource), "read"))
	t.Cleanup(h.Close)
	var bearer atomic.Int32
	mux.Handle("/mcp", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			bearer.Add(1)
		}
		h.ServeHTTP(w, r)
	}))
	return resource, &bearer
}

func oauthClient(t *testing.T, resource string, cfg client.OAuthConfig, opts ...client.Option) (*client.Client, error) {
	if cfg.RedirectURL == "" {
		cfg.RedirectURL = "http://127.0.0.1:1/callback"
	}
	if cfg.Browser == nil {
		cfg.Browser = client.FollowRedirects(nil, cfg.RedirectURL)
	}
	c, err := client.Connect(t.Context(), client.HTTP(resource, nil, client.WithAuthorizer(client.OAuth(cfg))), opts...)
	if err == nil {
		t.Cleanup(func() { _ = c.Close() })
	}
	return c, err
}

func TestOAuthFlow(t *testing.T) {
	t.Parallel()
	for _, e := range eras {
		t.Run(e.Name, func(t *testing.T) {
			t.Parallel()
			a := newTestAS(t)
			resource, _ := protected(t, a)
			store := client.MemoryTokenStore()
			now := time.Now()
			var clock atomic.Int64
			clock.Store(now.UnixNano())
			c, err := oauthClient(t, resource, client.OAuthConfig{Store: store, Now: func() time.Time { return time.Unix(0, clock.Load()) }}, e.Opts...)
			if err != nil {
				t.Fatal(err)
			}
			if res, err := c.CallTool(t.Context(), "peek", nil); err != nil || res.Text() != "peeked" {
				t.Fatalf("peek = %v, %v", res, err)
			}
			a.mu.Lock()
			first := a.asked[0]
			reg := a.regs[0]
			a.mu.Unlock()
			if first.Get("scope") != "read" || first.Get("resource") != resource || first.Get("state") == "" || first.Get("code_challenge") == "" {
				t.Fatalf("first authorization request = %v", first)
			}
			if reg["application_type"] != "native" {
				t.Fatalf("registration = %v", reg)
			}
			// Step-up: writing needs a new authorization with both scopes.
			if res, err := c.CallTool(t.Context(), "store", nil); err != nil || res.Text() != "stored" {
				t.Fatalf("store = %v, %v", res, err)
			}
			a.mu.Lock()
			second := a.asked[len(a.asked)-1]
			a.mu.Unlock()
			if s := strings.Fields(second.Get("scope")); !slices.Contains(s, "read") || !slices.Contains(s, "write") {
				t.Fatalf("step-up scopes = %v", s)
			}
			// Step-up of the sign-in.
			if res, err := c.CallTool(t.Context(), "safe", nil); err != nil || res.Text() != "opened" {
				t.Fatalf("safe = %v, %v", res, err)
			}
			a.mu.Lock()
			third := a.asked[len(a.asked)-1]
			a.mu.Unlock()
			if third.Get("acr_values") != "urn:mfa" || third.Get("max_age") != "3600" {
				t.Fatalf("sign-in step-up = %v", third)
			}
			// Refresh before expiry.
			tok, _ := store.Load(t.Context(), resource)
			if tok == nil || tok.RefreshToken == "" {
				t.Fatalf("token = %+v", tok)
			}
			clock.Store(tok.Expiry.Add(-30 * time.Second).UnixNano())
			if _, err := c.CallTool(t.Context(), "peek", nil); err != nil {
				t.Fatal(err)
			}
			a.mu.Lock()
			refreshed := slices.Contains(a.grants, "refresh_token")
			a.mu.Unlock()
			if !refreshed {
				t.Fatal("the token was not refreshed before it expired")
			}
			if nt, _ := store.Load(t.Context(), resource); nt.AccessToken == tok.AccessToken {
				t.Fatal("the refresh kept the old token")
			}
		})
	}
}

func TestOAuthRefusals(t *testing.T) {
	t.Parallel()
	t.Run("wrong iss", func(t *testing.T) {
		t.Parallel()
		a := newTestAS(t)
		a.iss = "wrong"
		resource, _ := protected(t, a)
		_, err := oauthClient(t, resource, client.OAuthConfig{})
		if !errors.Is(err, client.ErrAuthorization) || !strings.Contains(err.Error(), "issuer") {
			t.Fatalf("err = %v", err)
		}
		a.mu.Lock()
		defer a.mu.Unlock()
		if slices.Contains(a.grants, "authorization_code") {
			t.Fatal("the code went to the token endpoint")
		}
	})
	t.Run("missing iss", func(t *testing.T) {
		t.Parallel()
		a := newTestAS(t)
		a.iss = "omit"
		resource, _ := protected(t, a)
		if _, err := oauthClient(t, resource, client.OAuthConfig{}); !errors.Is(err, client.ErrAuthorization) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("no browser", func(t *testing.T) {
		t.Parallel()
		a := newTestAS(t)
		resource, bearer := protected(t, a)
		_, err := client.Connect(t.Context(), client.HTTP(resource, nil, client.WithAuthorizer(client.OAuth(client.OAuthConfig{}))))
		if !errors.Is(err, client.ErrAuthorization) || bearer.Load() != 0 {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("pre-registered without registration", func(t *testing.T) {
		t.Parallel()
		a := newTestAS(t)
		a.noDCR = true
		resource, _ := protected(t, a)
		if _, err := oauthClient(t, resource, client.OAuthConfig{}); !errors.Is(err, client.ErrAuthorization) {
			t.Fatalf("without a client: %v", err)
		}
		c, err := oauthClient(t, resource, client.OAuthConfig{ClientID: "pre", ClientSecret: "pre-secret"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.CallTool(t.Context(), "peek", nil); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("server keeps refusing", func(t *testing.T) {
		t.Parallel()
		a := newTestAS(t)
		var challenges atomic.Int32
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasPrefix(r.URL.Path, "/.well-known/") {
				_ = json.NewEncoder(w).Encode(map[string]any{"resource": "http://" + r.Host + "/mcp", "authorization_servers": []string{a.ts.URL}})
				return
			}
			challenges.Add(1)
			w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="read write"`)
			w.WriteHeader(http.StatusForbidden)
		}))
		defer ts.Close()
		_, err := oauthClient(t, ts.URL+"/mcp", client.OAuthConfig{MaxReauthorizations: 2}, client.ProtocolVersion(protocol.ModernVersion))
		var se *protocol.InsufficientScopeError
		if !errors.As(err, &se) || challenges.Load() != 3 {
			t.Fatalf("err = %v after %d challenges", err, challenges.Load())
		}
	})
	t.Run("metadata for another resource", func(t *testing.T) {
		t.Parallel()
		a := newTestAS(t)
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasPrefix(r.URL.Path, "/.well-known/") {
				_ = json.NewEncoder(w).Encode(map[string]any{"resource": "https://elsewhere.example/mcp", "authorization_servers": []string{a.ts.URL}})
				return
			}
			w.Header().Set("WWW-Authenticate", `Bearer`)
			w.WriteHeader(http.StatusUnauthorized)
		}))
		defer ts.Close()
		if _, err := oauthClient(t, ts.URL+"/mcp", client.OAuthConfig{}); !errors.Is(err, client.ErrAuthorization) {
			t.Fatalf("err = %v", err)
		}
		a.mu.Lock()
		defer a.mu.Unlock()
		if len(a.asked) != 0 {
			t.Fatal("the client authorized for a resource the metadata does not describe")
		}
	})
}

func TestTokenStaysWithItsResource(t *testing.T) {
	t.Parallel()
	store := client.MemoryTokenStore()
	_ = store.Save(t.Context(), "https://a.example/mcp", &client.Token{AccessToken: "secret", Resource: "https://a.example/mcp"})
	var az *client.OAuthAuthorizer
	for target, want := range map[string]bool{
		"https://a.example/mcp":       true,
		"https://a.example/mcp/x":     true,
		"https://b.example/mcp":       false,
		"https://a.example:8443/mcp":  false,
		"http://a.example/mcp":        false,
		"https://a.example/mcpx":      false,
		"https://a.example/other/mcp": false,
	} {
		req, _ := http.NewRequest(http.MethodPost, target, nil)
		// A fresh authorizer per target: its resource is the first URL it serves.
		az = client.OAuth(client.OAuthConfig{Store: store})
		if target != "https://a.example/mcp" {
			first, _ := http.NewRequest(http.MethodPost, "https://a.example/mcp", nil)
			_ = az.Authorize(t.Context(), first)
		}
		if err := az.Authorize(t.Context(), req); err != nil {
			t.Fatal(err)
		}
		if got := req.Header.Get("Authorization") != ""; got != want {
			t.Errorf("%s: token sent = %v", target, got)
		}
	}
}

// The device flow: the code is shown, the client polls past
// authorization_pending and gets the token; a refusal on the device page
// is an error that says so; a client registered for it asks for the
// device grant and registers no redirect.
func TestOAuthDeviceFlow(t *testing.T) {
	t.Parallel()
	for _, outcome := range []string{"approve", "deny"} {
		t.Run(outcome, func(t *testing.T) {
			t.Parallel()
			a := newTestAS(t)
			a.device = outcome
			resource, _ := protected(t, a)
			var shown []client.DeviceCode
			cfg := client.OAuthConfig{Device: func(_ context.Context, d client.DeviceCode) error {
				shown = append(shown, d)
				return nil
			}}
			c, err := client.Connect(t.Context(), client.HTTP(resource, nil, client.WithAuthorizer(client.OAuth(cfg))))
			if err == nil {
				t.Cleanup(func() { _ = c.Close() })
			}
			if outcome == "deny" {
				if err == nil || !strings.Contains(err.Error(), "refused on the device page") {
					t.Fatalf("a denied sign-in: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.CallTool(t.Context(), "peek", nil); err != nil {
				t.Fatal(err)
			}
			a.mu.Lock()
			defer a.mu.Unlock()
			if len(shown) != 1 || shown[0].UserCode != "WDJB-MJHT" || shown[0].VerificationURI != a.ts.URL+"/device" {
				t.Fatalf("shown = %+v", shown)
			}
			if a.devicePolls != 2 || len(a.asked) != 0 {
				t.Fatalf("%d polls and %d authorization requests, want 2 and 0", a.devicePolls, len(a.asked))
			}
			if len(a.regs) != 1 || fmt.Sprint(a.regs[0]["grant_types"]) != "[urn:ietf:params:oauth:grant-type:device_code refresh_token]" || a.regs[0]["redirect_uris"] != nil {
				t.Fatalf("registration = %v", a.regs)
			}
		})
	}
}
