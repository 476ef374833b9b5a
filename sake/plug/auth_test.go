package plug_test

import (
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/auth"
	"github.com/sakemcp/sake-go/sake/plug"
)

type guarded struct{}

func (guarded) Declare(d *sake.Declarations) {
	d.Tool("Read").Scopes("files:read")
	d.Tool("Wipe").Scopes("files:read", "files:write")
	d.Tool("Purge").Authentication([]string{"urn:mfa"}, time.Minute)
}

func (guarded) Read(ctx *sake.Context) (string, error) {
	return "read by " + ctx.Identity().Subject, nil
}
func (guarded) Wipe(ctx *sake.Context) (string, error)  { return "wiped", nil }
func (guarded) Purge(ctx *sake.Context) (string, error) { return "purged", nil }

const testSecret = "0123456789abcdef0123456789abcdef"

func authServer(t *testing.T) (*httptest.Server, *auth.Issuer) {
	t.Helper()
	ts := httptest.NewUnstartedServer(nil)
	resource := "http://" + ts.Listener.Addr().String() + "/mcp"
	v, err := auth.NewJWTVerifier(auth.JWTConfig{Issuer: "https://issuer.test", Audience: []string{resource}, HMACSecret: []byte(testSecret)})
	if err != nil {
		t.Fatal(err)
	}
	h := plug.New(sake.MustNew(guarded{}), plug.Authorization(v, auth.MetadataURL(resource), "files:read"))
	t.Cleanup(h.Close)
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	ts.Config.Handler = mux
	ts.Start()
	t.Cleanup(ts.Close)
	return ts, &auth.Issuer{Issuer: "https://issuer.test", Secret: []byte(testSecret), Audience: resource}
}

func callWith(t *testing.T, ts *httptest.Server, token, tool string) (*http.Response, string) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, _ := http.NewRequest(http.MethodPost, ts.URL+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", tool)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}

func TestAuthorizationChallenges(t *testing.T) {
	t.Parallel()
	ts, iss := authServer(t)
	meta := auth.MetadataURL(iss.Audience)
	reader, _ := iss.Issue("ana", "app", []string{"files:read"}, "", time.Time{}, "")
	mfa, _ := iss.Issue("ana", "app", []string{"files:read"}, "urn:mfa", time.Now(), "")
	staleMFA, _ := iss.Issue("ana", "app", []string{"files:read"}, "urn:mfa", time.Now().Add(-time.Hour), "")
	expired, _ := (&auth.Issuer{Issuer: iss.Issuer, Secret: iss.Secret, Audience: iss.Audience,
		Now: func() time.Time { return time.Now().Add(-2 * time.Hour) }, TTL: time.Minute}).Issue("ana", "app", []string{"files:read"}, "", time.Time{}, "")
	otherAudience, _ := (&auth.Issuer{Issuer: iss.Issuer, Secret: iss.Secret, Audience: "https://elsewhere/mcp"}).Issue("ana", "app", []string{"files:read"}, "", time.Time{}, "")

	cases := []struct {
		name, token, tool string
		status            int
		challenge         string
	}{
		{"no token", "", "read", 401, `Bearer scope="files:read", resource_metadata="` + meta + `"`},
		{"malformed token", "not-a-jwt", "read", 401, `Bearer error="invalid_token"`},
		{"expired token", expired, "read", 401, `error="invalid_token"`},
		{"wrong audience", otherAudience, "read", 401, `error="invalid_token"`},
		{"missing scope", reader, "wipe", 403, `Bearer error="insufficient_scope", scope="files:read files:write", resource_metadata="` + meta + `"`},
		{"weak sign-in", reader, "purge", 401, `Bearer error="insufficient_user_authentication", acr_values="urn:mfa", max_age="60", resource_metadata="` + meta + `"`},
		{"stale sign-in", staleMFA, "purge", 401, `error="insufficient_user_authentication"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := callWith(t, ts, tc.token, tc.tool)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.status, body)
			}
			if got := resp.Header.Get("WWW-Authenticate"); !strings.Contains(got, tc.challenge) {
				t.Errorf("WWW-Authenticate = %q, want it to contain %q", got, tc.challenge)
			}
			if strings.Contains(body, tc.token) && tc.token != "" {
				t.Error("the response echoes the token")
			}
		})
	}
	for tool, token := range map[string]string{"read": reader, "purge": mfa} {
		resp, body := callWith(t, ts, token, tool)
		if resp.StatusCode != 200 || strings.Contains(body, `"error":`) || strings.Contains(body, `"isError":true`) {
			t.Errorf("%s with a good token: %d %s", tool, resp.StatusCode, body)
		}
	}
	resp, body := callWith(t, ts, reader, "read")
	if resp.StatusCode != 200 || !strings.Contains(body, "read by ana") {
		t.Errorf("identity not passed to the tool: %d %s", resp.StatusCode, body)
	}
}

// When the key set cannot be fetched (failing or hanging key server) the
// answer is 503 with Retry-After and no challenge: the client must not be
// sent to sign in again during an outage.
func TestAuthorizationKeySetOutageIs503(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
	}))
	t.Cleanup(failing.Close)
	hanging := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-release
	}))
	t.Cleanup(hanging.Close)
	t.Cleanup(func() { close(release) }) // runs first, letting Close return
	b64 := base64.RawURLEncoding.EncodeToString
	token := b64([]byte(`{"alg":"RS256","kid":"k1","typ":"at+jwt"}`)) + "." +
		b64([]byte(`{"iss":"https://issuer.test","aud":"http://x/mcp","sub":"ana","exp":9999999999}`)) + "." + b64([]byte("sig"))
	for name, keys := range map[string]*auth.JWKS{
		"failing": auth.NewJWKS(failing.URL, failing.Client()),
		"hanging": auth.NewJWKS(hanging.URL, hanging.Client(), auth.MaxWait(time.Millisecond)),
	} {
		v, err := auth.NewJWTVerifier(auth.JWTConfig{Issuer: "https://issuer.test", Audience: []string{"http://x/mcp"}, Keys: keys})
		if err != nil {
			t.Fatal(err)
		}
		h := plug.New(sake.MustNew(guarded{}), plug.Authorization(v, "http://x/.well-known/oauth-protected-resource/mcp"))
		t.Cleanup(h.Close)
		mux := http.NewServeMux()
		mux.Handle("/mcp", h)
		ts := httptest.NewServer(mux)
		t.Cleanup(ts.Close)
		resp, body := callWith(t, ts, token, "Read")
		if resp.StatusCode != http.StatusServiceUnavailable {
			t.Fatalf("%s key server: %d %s", name, resp.StatusCode, body)
		}
		if ra, err := strconv.Atoi(resp.Header.Get("Retry-After")); err != nil || ra < 1 {
			t.Errorf("%s key server: Retry-After %q", name, resp.Header.Get("Retry-After"))
		}
		if c := resp.Header.Get("WWW-Authenticate"); c != "" {
			t.Errorf("%s key server: a challenge during an outage: %s", name, c)
		}
		if !strings.Contains(body, `"code":-32600`) {
			t.Errorf("%s key server: body %s", name, body)
		}
	}
}

type adminOnly struct{}

func (adminOnly) Declare(d *sake.Declarations) { d.Tool("Admin").Scopes("admin") }

func (adminOnly) Admin(ctx *sake.Context) (string, error) { return "admin ran", nil }
func (adminOnly) Open(ctx *sake.Context) (string, error)  { return "open ran", nil }

// Requirements fail closed over HTTP: with a custom Identify (or none), an
// anonymous caller or an identity without the scope never runs a scoped
// tool, whatever it accepts; an unscoped tool still runs.
func TestRequirementsFailClosedOverHTTP(t *testing.T) {
	t.Parallel()
	identities := map[string]plug.Option{
		"no Identify":             plug.MaxBodyBytes(0),
		"Identify returns nil":    plug.Identify(func(*http.Request) (*sake.Identity, error) { return nil, nil }),
		"identity without scopes": plug.Identify(func(*http.Request) (*sake.Identity, error) { return &sake.Identity{Subject: "ana"}, nil }),
	}
	for name, opt := range identities {
		var ran atomic.Int32
		srv := sake.MustNew(adminOnly{}, sake.Use(func(next sake.Handler) sake.Handler {
			return func(ctx context.Context, req *sake.Request) (any, error) {
				r, err := next(ctx, req)
				if req.Method == "tools/call" && err == nil {
					ran.Add(1)
				}
				return r, err
			}
		}))
		h := plug.New(srv, opt)
		t.Cleanup(h.Close)
		mux := http.NewServeMux()
		mux.Handle("/mcp", h)
		ts := httptest.NewServer(mux)
		t.Cleanup(ts.Close)
		for _, accept := range []string{"application/json, text/event-stream", "text/event-stream"} {
			resp, body := callAccepting(t, ts, accept, "admin")
			if resp.StatusCode != http.StatusForbidden || !strings.Contains(resp.Header.Get("WWW-Authenticate"), `error="insufficient_scope", scope="admin"`) {
				t.Errorf("%s, Accept %s: admin answered %d %q %s", name, accept, resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)
			}
			if strings.Contains(body, "admin ran") {
				t.Errorf("%s: the scoped tool ran", name)
			}
		}
		if resp, body := callAccepting(t, ts, "application/json", "open"); resp.StatusCode != 200 || !strings.Contains(body, "open ran") {
			t.Errorf("%s: an unscoped tool: %d %s", name, resp.StatusCode, body)
		}
		if n := ran.Load(); n != 1 {
			t.Errorf("%s: %d tool calls succeeded, want only the unscoped one", name, n)
		}
	}
	// A custom identity that holds the scope is let through.
	h := plug.New(sake.MustNew(adminOnly{}), plug.Identify(func(*http.Request) (*sake.Identity, error) {
		return &sake.Identity{Subject: "ana", Scopes: []string{"admin"}}, nil
	}))
	t.Cleanup(h.Close)
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	if resp, body := callAccepting(t, ts, "application/json", "admin"); resp.StatusCode != 200 || !strings.Contains(body, "admin ran") {
		t.Errorf("an identity with the scope: %d %s", resp.StatusCode, body)
	}
}

func callAccepting(t *testing.T, ts *httptest.Server, accept, tool string) (*http.Response, string) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, _ := http.NewRequest(http.MethodPost, ts.URL+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", accept)
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", tool)
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}
