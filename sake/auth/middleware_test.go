package auth

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake/protocol"
)

const testMetadataURL = "https://x/.well-known/oauth-protected-resource/mcp"

type verifierFunc func(ctx context.Context, r *TokenRequest) (*protocol.Identity, error)

func (f verifierFunc) Verify(ctx context.Context, r *TokenRequest) (*protocol.Identity, error) {
	return f(ctx, r)
}

func TestMiddleware(t *testing.T) {
	t.Parallel()
	f := newDPoPFixture(t, nil)
	strict := newDPoPFixture(t, func(c *JWTConfig) { c.RequireDPoP = true })
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("hello " + IdentityFrom(r.Context()).Subject))
	})
	issue := func(scopes []string, jkt string) string {
		tok, err := f.iss.Issue("alice", "c", scopes, "", time.Time{}, jkt)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	good := issue([]string{"notes:read", "other"}, "")
	narrow := issue([]string{"other"}, "")
	bound := issue([]string{"notes:read"}, thumb(t, ecKey().Public()))
	proof := func() string {
		p, err := NewDPoPProof(ecKey(), "POST", "https://x/mcp", bound, t0)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	unavailable := verifierFunc(func(context.Context, *TokenRequest) (*protocol.Identity, error) {
		return nil, errors.New("jwks down")
	})

	for _, tc := range []struct {
		name      string
		v         Verifier
		header    map[string][]string
		status    int
		challenge string
		errCode   string
	}{
		{"no token", f.v, nil, 401, `Bearer scope="notes:read", resource_metadata="` + testMetadataURL + `"`, ""},
		{"other scheme", f.v, map[string][]string{"Authorization": {"Basic dXNlcjpwdw=="}}, 401,
			`Bearer scope="notes:read", resource_metadata="` + testMetadataURL + `"`, ""},
		{"scheme without token", f.v, map[string][]string{"Authorization": {"Bearer"}}, 400,
			`Bearer error="invalid_request", resource_metadata="` + testMetadataURL + `"`, CodeInvalidRequest},
		{"two Authorization headers", f.v, map[string][]string{"Authorization": {"Bearer " + good, "Bearer " + good}}, 400,
			`Bearer error="invalid_request", resource_metadata="` + testMetadataURL + `"`, CodeInvalidRequest},
		{"bad token", f.v, map[string][]string{"Authorization": {"Bearer " + good + "x"}}, 401,
			`Bearer error="invalid_token", scope="notes:read", resource_metadata="` + testMetadataURL + `"`, CodeInvalidToken},
		{"missing scope", f.v, map[string][]string{"Authorization": {"Bearer " + narrow}}, 403,
			`Bearer error="insufficient_scope", scope="notes:read", resource_metadata="` + testMetadataURL + `"`, CodeInsufficientScope},
		{"ok", f.v, map[string][]string{"Authorization": {"Bearer " + good}}, 200, "", ""},
		{"ok lower-case scheme", f.v, map[string][]string{"Authorization": {"bearer " + good}}, 200, "", ""},
		{"DPoP ok", f.v, map[string][]string{"Authorization": {"DPoP " + bound}, "Dpop": {proof()}}, 200, "", ""},
		{"DPoP-bound token as Bearer", f.v, map[string][]string{"Authorization": {"Bearer " + bound}, "Dpop": {proof()}}, 401,
			`DPoP error="invalid_token", scope="notes:read", resource_metadata="` + testMetadataURL + `", algs="ES256 RS256 EdDSA"`, CodeInvalidToken},
		{"two DPoP headers", f.v, map[string][]string{"Authorization": {"DPoP " + bound}, "Dpop": {proof(), proof()}}, 401,
			`DPoP error="invalid_dpop_proof", resource_metadata="` + testMetadataURL + `", algs="ES256 RS256 EdDSA"`, CodeInvalidDPoPProof},
		{"DPoP without proof", f.v, map[string][]string{"Authorization": {"DPoP " + bound}}, 401,
			`DPoP error="invalid_dpop_proof", resource_metadata="` + testMetadataURL + `", algs="ES256 RS256 EdDSA"`, CodeInvalidDPoPProof},
		{"RequireDPoP, no token", strict.v, nil, 401,
			`DPoP scope="notes:read", resource_metadata="` + testMetadataURL + `", algs="ES256 RS256 EdDSA"`, ""},
		{"verifier unavailable", unavailable, map[string][]string{"Authorization": {"Bearer " + good}}, 503, "", "temporarily_unavailable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := Middleware(tc.v, testMetadataURL, []string{"notes:read"})(next)
			req := httptest.NewRequest(http.MethodPost, "https://x/mcp", nil)
			for k, vs := range tc.header {
				req.Header[k] = vs
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tc.status {
				t.Fatalf("status %d, want %d; body %s", rec.Code, tc.status, rec.Body)
			}
			if got := rec.Header().Get("WWW-Authenticate"); got != tc.challenge {
				t.Fatalf("challenge\n got  %s\n want %s", got, tc.challenge)
			}
			if tc.status == 200 {
				if rec.Body.String() != "hello alice" {
					t.Fatalf("body %q", rec.Body)
				}
				return
			}
			var body map[string]string
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
				t.Fatalf("body %q: %v", rec.Body, err)
			}
			if body["error"] != tc.errCode || body["error_description"] == "" {
				t.Fatalf("body %v", body)
			}
			if strings.Contains(rec.Body.String(), good[:20]) || strings.Contains(rec.Body.String(), "jwks") {
				t.Fatal("body leaks the token or the cause")
			}
			if rec.Header().Get("Content-Type") != "application/json" {
				t.Fatalf("content type %q", rec.Header().Get("Content-Type"))
			}
		})
	}
}

func TestParseAuthorization(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		values        []string
		scheme, token string
		status        int
		code          string
	}{
		{nil, "", "", 0, ""},
		{[]string{"Bearer abc.DEF-_~+/=="}, "Bearer", "abc.DEF-_~+/==", 0, ""},
		{[]string{"BEARER   tok"}, "Bearer", "tok", 0, ""},
		{[]string{"dpop tok"}, "DPoP", "tok", 0, ""},
		{[]string{"  "}, "", "", 0, ""},
		{[]string{"Basic dXNlcjpwdw=="}, "", "", 401, ""},
		{[]string{"Bearer"}, "", "", 400, CodeInvalidRequest},
		{[]string{"Bearer "}, "", "", 400, CodeInvalidRequest},
		{[]string{"Bearer a b"}, "", "", 400, CodeInvalidRequest},
		{[]string{"Bearer a=b"}, "", "", 400, CodeInvalidRequest},
		{[]string{"Bearer \"tok\""}, "", "", 400, CodeInvalidRequest},
		{[]string{"Bearer a", "Bearer b"}, "", "", 400, CodeInvalidRequest},
	} {
		h := http.Header{"Authorization": tc.values}
		scheme, token, err := ParseAuthorization(h)
		if tc.status == 0 {
			if err != nil || scheme != tc.scheme || token != tc.token {
				t.Errorf("%q: %q %q %v", tc.values, scheme, token, err)
			}
			continue
		}
		e := AsError(err)
		if e == nil || e.Status != tc.status || e.Code != tc.code {
			t.Errorf("%q: err %v, want %d %q", tc.values, err, tc.status, tc.code)
		}
	}
}

func TestTokenRequestFrom(t *testing.T) {
	t.Parallel()
	req := httptest.NewRequest(http.MethodPost, "/mcp?x=1", nil)
	req.Host = "mcp.example.com:8080"
	req.Header.Set("Authorization", "DPoP tok")
	req.Header.Set("DPoP", "proof")
	tr, err := TokenRequestFrom(req)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Token != "tok" || tr.Scheme != "DPoP" || tr.DPoPProof != "proof" || tr.Method != "POST" ||
		tr.URL.String() != "http://mcp.example.com:8080/mcp" {
		t.Fatalf("%+v %s", tr, tr.URL)
	}
	req = httptest.NewRequest(http.MethodGet, "https://x/mcp", nil)
	tr, err = TokenRequestFrom(req)
	if err != nil || tr.Token != "" || tr.URL.String() != "https://x/mcp" {
		t.Fatalf("%+v %v", tr, err)
	}
}

func TestIdentityContext(t *testing.T) {
	t.Parallel()
	if IdentityFrom(context.Background()) != nil {
		t.Fatal("identity from an empty context")
	}
	id := &protocol.Identity{Subject: "s"}
	if IdentityFrom(ContextWithIdentity(context.Background(), id)) != id {
		t.Fatal("round trip")
	}
}
