package upstream

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/auth"
	"github.com/sakemcp/sake-go/sake/auth/server"
)

const (
	mcpClientID = "mcp-client"
	mcpCallback = "http://127.0.0.1/callback"
)

// harness is Sake's authorization server on an upstream Login of a
// testProvider, and a browser (a cookie jar that does not follow
// redirects).
type harness struct {
	t        *testing.T
	op       *testProvider
	login    *Login
	as       *server.Server
	store    *server.MemoryStore
	ts       *httptest.Server
	issuer   string
	resource string
	jar      *cookiejar.Jar
	browser  *http.Client
	logs     *lockedBuffer
}

// lockedBuffer collects the login's logs.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func newHarness(t *testing.T, mod ...func(*Config)) *harness {
	t.Helper()
	return newHarnessAt(t, newTestProvider(t), mod...)
}

// newHarnessAt is newHarness at op, set up as the test needs before the
// login reads its discovery document.
func newHarnessAt(t *testing.T, op *testProvider, mod ...func(*Config)) *harness {
	t.Helper()
	h := &harness{t: t, op: op, store: server.NewMemoryStore(), logs: &lockedBuffer{}}
	h.ts = httptest.NewUnstartedServer(nil)
	h.issuer = "http://" + h.ts.Listener.Addr().String()
	h.resource = h.issuer + "/mcp"
	cfg := Config{Provider: OIDC(h.op.issuer()), ClientID: h.op.clientID, ClientSecret: h.op.secret,
		BaseURL: h.issuer + "/login", Store: h.store, Logger: slog.New(slog.NewTextHandler(h.logs, nil))}
	for _, m := range mod {
		m(&cfg)
	}
	login, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	h.login = login
	h.as, err = server.New(server.Config{Issuer: h.issuer, Login: login, Store: h.store, Resources: []string{h.resource},
		Scopes:  []server.Scope{{Name: "notes:read", Description: "Read your notes"}},
		Clients: []server.Client{{ID: mcpClientID, RedirectURIs: []string{mcpCallback}}}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	r := chi.NewRouter()
	h.as.Mount(r)
	login.Mount(r)
	h.ts.Config.Handler = r
	h.ts.Start()
	t.Cleanup(h.ts.Close)
	h.jar, _ = cookiejar.New(nil)
	h.browser = &http.Client{Jar: h.jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return h
}

func (h *harness) get(u string) (*http.Response, string) {
	h.t.Helper()
	resp, err := h.browser.Get(u)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func (h *harness) post(u string, form url.Values) (*http.Response, map[string]any) {
	h.t.Helper()
	resp, err := h.browser.PostForm(u, form)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	b, _ := io.ReadAll(resp.Body)
	_ = json.Unmarshal(b, &m)
	if m == nil {
		m = map[string]any{"_body": string(b)}
	}
	return resp, m
}

// location returns a redirect's target, failing on anything else.
func (h *harness) location(resp *http.Response, body string) string {
	h.t.Helper()
	if resp.StatusCode != http.StatusSeeOther && resp.StatusCode != http.StatusFound {
		h.t.Fatalf("%s: status %d, want a redirect; body %s", resp.Request.URL, resp.StatusCode, body)
	}
	loc, err := resp.Location()
	if err != nil {
		h.t.Fatal(err)
	}
	return loc.String()
}

// authorizeParams are an MCP client's authorization request.
func authorizeParams() (verifier string, q url.Values) {
	verifier = randomToken(48)
	return verifier, url.Values{"response_type": {"code"}, "client_id": {mcpClientID}, "redirect_uri": {mcpCallback},
		"code_challenge": {server.S256(verifier)}, "code_challenge_method": {"S256"}, "state": {"client-state"},
		"scope": {"notes:read"}}
}

// toProvider starts an authorization at Sake and follows it to the
// provider's authorization endpoint, returning that URL.
func (h *harness) toProvider(q url.Values) *url.URL {
	h.t.Helper()
	resp, body := h.get(h.issuer + "/oauth/authorize?" + q.Encode())
	start := h.location(resp, body)
	if !strings.HasPrefix(start, h.issuer+"/login?r=") {
		h.t.Fatalf("authorize went to %s, want the login's start", start)
	}
	resp, body = h.get(start)
	u, _ := url.Parse(h.location(resp, body))
	if u.Scheme+"://"+u.Host+u.Path != h.op.issuer()+"/authorize" {
		h.t.Fatalf("the login went to %s, want the provider", u)
	}
	return u
}

// callback lets the provider answer (it approves at once) and returns
// the URL it sends the browser back to.
func (h *harness) fromProvider(u *url.URL) string {
	h.t.Helper()
	resp, body := h.get(u.String())
	return h.location(resp, body)
}

// signIn runs the sign-in up to Sake's consent page and returns its
// form.
func (h *harness) signIn(q url.Values) url.Values {
	h.t.Helper()
	cb := h.fromProvider(h.toProvider(q))
	resp, body := h.get(cb)
	consent := h.location(resp, body)
	if !h.as.IsReturnURL(consent) {
		h.t.Fatalf("after the callback the browser went to %s", consent)
	}
	resp, body = h.get(consent)
	f := hidden(body)
	if resp.StatusCode != http.StatusOK || f.Get("csrf") == "" {
		h.t.Fatalf("consent page: %d %s", resp.StatusCode, body)
	}
	return f
}

var hiddenRE = regexp.MustCompile(`<input type="hidden" name="([a-z_]+)" value="([^"]*)">`)

func hidden(page string) url.Values {
	v := url.Values{}
	for _, m := range hiddenRE.FindAllStringSubmatch(page, -1) {
		v.Set(m[1], html.UnescapeString(m[2]))
	}
	return v
}

// tokens signs in, consents, and redeems the code: Sake's token
// response.
func (h *harness) tokens() map[string]any {
	h.t.Helper()
	verifier, q := authorizeParams()
	cb := h.fromProvider(h.toProvider(q))
	resp, body := h.get(cb)
	resp, page := h.get(h.location(resp, body))
	if resp.StatusCode == http.StatusOK { // consent asked, not remembered
		f := hidden(page)
		f.Set("decision", "allow")
		resp, _ = h.post(h.issuer+"/oauth/consent", f)
	}
	loc, _ := resp.Location()
	code := loc.Query().Get("code")
	if code == "" {
		h.t.Fatalf("no code: %s", loc)
	}
	resp, tb := h.post(h.issuer+"/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {code},
		"code_verifier": {verifier}, "redirect_uri": {mcpCallback}, "client_id": {mcpClientID}})
	if resp.StatusCode != http.StatusOK {
		h.t.Fatalf("token: %d %v", resp.StatusCode, tb)
	}
	return tb
}

// identity verifies an access token as the MCP endpoint would.
func (h *harness) identity(accessToken string) (*sake.Identity, error) {
	v, err := h.as.Verifier(h.resource)
	if err != nil {
		h.t.Fatal(err)
	}
	return v.Verify(context.Background(), &auth.TokenRequest{Token: accessToken, Scheme: auth.SchemeBearer})
}

// signedIn reports whether the browser has a working session.
func (h *harness) signedIn() bool {
	req := httptest.NewRequest(http.MethodGet, h.issuer+"/", nil)
	u, _ := url.Parse(h.issuer)
	for _, c := range h.jar.Cookies(u) {
		req.AddCookie(c)
	}
	a, err := h.login.Current(req)
	return err == nil && a != nil
}

// nothingIssued checks that the browser has no session and the store
// no upstream token of alice.
func (h *harness) nothingIssued() {
	h.t.Helper()
	if h.signedIn() {
		h.t.Fatal("the browser is signed in")
	}
	_, err := h.store.LatestUpstreamToken(context.Background(), h.op.issuer()+"#alice-1")
	if !errors.Is(err, server.ErrNotFound) {
		h.t.Fatalf("an upstream token was stored (%v)", err)
	}
}

// jwtClaims decodes a JWT's payload without verifying it.
func jwtClaims(t *testing.T, tok string) map[string]any {
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		t.Fatalf("not a JWT: %q", tok)
	}
	b, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var c map[string]any
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

func newJar() (*cookiejar.Jar, error) { return cookiejar.New(nil) }
