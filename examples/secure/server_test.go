package main

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/auth"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/saketest"
)

const resource = "http://example.com/mcp"

var secret = []byte("test secret of at least 32 bytes!")

func stack(t *testing.T) (*sake.Server, http.Handler, *auth.Issuer) {
	t.Helper()
	iss := &auth.Issuer{Issuer: "https://issuer.test", Secret: secret, Audience: resource}
	v, err := auth.NewJWTVerifier(auth.JWTConfig{Issuer: iss.Issuer, Audience: []string{resource}, HMACSecret: secret})
	if err != nil {
		t.Fatal(err)
	}
	srv := sake.MustNew(NewLedger())
	return srv, NewRouter(srv, v, resource, []string{iss.Issuer}), iss
}

// eras runs body over the real HTTP stack and in memory, in both eras.
func eras(t *testing.T, body func(t *testing.T, connect func(opts ...saketest.Option) *saketest.Client)) {
	for _, era := range []string{"modern", "legacy"} {
		for _, via := range []string{"http", "memory"} {
			t.Run(era+"/"+via, func(t *testing.T) {
				t.Parallel()
				srv, router, iss := stack(t)
				body(t, func(opts ...saketest.Option) *saketest.Client {
					if era == "legacy" {
						opts = append(opts, saketest.Legacy())
					}
					if via == "http" {
						return saketest.Connect(t, srv, append(opts, saketest.Handler(router, "/mcp"), saketest.TokenIssuer(iss))...)
					}
					return saketest.Connect(t, srv, opts...)
				})
			})
		}
	}
}

func TestScopes(t *testing.T) {
	t.Parallel()
	eras(t, func(t *testing.T, connect func(...saketest.Option) *saketest.Client) {
		reader := connect(saketest.Subject("ana"), saketest.Scopes("ledger:read"))
		if _, err := reader.CallTool("list_expenses", nil); err != nil {
			t.Fatalf("read with ledger:read: %v", err)
		}
		_, err := reader.CallTool("add_expense", map[string]any{"amount": 3.5, "description": "coffee"})
		var se *protocol.InsufficientScopeError
		if !errors.As(err, &se) || strings.Join(se.Scopes, " ") != "ledger:write" {
			t.Fatalf("add without ledger:write: %v", err)
		}
		writer := connect(saketest.Subject("ana"), saketest.Scopes("ledger:read", "ledger:write"))
		if _, err := writer.CallTool("add_expense", map[string]any{"amount": 3.5, "description": "coffee"}); err != nil {
			t.Fatal(err)
		}
		res, err := reader.CallTool("list_expenses", nil)
		if err != nil {
			t.Fatal(err)
		}
		var ex Expenses
		if err := res.DecodeStructured(&ex); err != nil || ex.Total != 3.5 {
			t.Errorf("ana's ledger = %+v, %v", ex, err)
		}
		// Another subject has another ledger.
		rui := connect(saketest.Subject("rui"), saketest.Scopes("ledger:read"))
		res, err = rui.CallTool("list_expenses", nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := res.DecodeStructured(&ex); err != nil || len(ex.Entries) != 0 {
			t.Errorf("rui sees %+v", ex)
		}
	})
}

func TestStepUp(t *testing.T) {
	t.Parallel()
	eras(t, func(t *testing.T, connect func(...saketest.Option) *saketest.Client) {
		var ae *protocol.InsufficientAuthenticationError
		weak := connect(saketest.Subject("ana"), saketest.Scopes("ledger:write"), saketest.ACR("urn:password"), saketest.AuthTime(time.Now()))
		if _, err := weak.CallTool("clear_ledger", nil); !errors.As(err, &ae) || ae.ACRValues[0] != "urn:mfa" || *ae.MaxAge != 10*time.Minute {
			t.Fatalf("weak sign-in: %v", err)
		}
		stale := connect(saketest.Subject("ana"), saketest.Scopes("ledger:write"), saketest.ACR("urn:mfa"), saketest.AuthTime(time.Now().Add(-time.Hour)))
		if _, err := stale.CallTool("clear_ledger", nil); !errors.As(err, &ae) {
			t.Fatalf("stale sign-in: %v", err)
		}
		strong := connect(saketest.Subject("ana"), saketest.Scopes("ledger:write"), saketest.ACR("urn:mfa"), saketest.AuthTime(time.Now()))
		if res, err := strong.CallTool("clear_ledger", nil); err != nil || res.Text() != "Deleted 0 expenses." {
			t.Fatalf("strong sign-in: %v %v", res, err)
		}
	})
}

func TestNoTokenOverHTTP(t *testing.T) {
	t.Parallel()
	srv, router, _ := stack(t)
	// Without Scopes the client sends no token: the endpoint refuses it
	// with a challenge that points at the resource metadata.
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, resource, strings.NewReader(`{}`))
	req.Header.Set("Content-Type", "application/json")
	router.ServeHTTP(rec, req)
	_ = srv
	if rec.Code != http.StatusUnauthorized {
		t.Fatalf("status %d", rec.Code)
	}
	if ch := rec.Header().Get("WWW-Authenticate"); !strings.Contains(ch, `resource_metadata="http://example.com/.well-known/oauth-protected-resource/mcp"`) {
		t.Errorf("challenge = %q", ch)
	}
	rec = httptest.NewRecorder()
	router.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://example.com/.well-known/oauth-protected-resource/mcp", nil))
	var meta map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &meta); err != nil || meta["resource"] != resource {
		t.Errorf("metadata = %s", rec.Body)
	}
}

func TestDPoPThroughTheStack(t *testing.T) {
	t.Parallel()
	srv, router, iss := stack(t)
	c := saketest.Connect(t, srv, saketest.Handler(router, "/mcp"), saketest.TokenIssuer(iss),
		saketest.Subject("ana"), saketest.Scopes("ledger:read"), saketest.DPoP())
	res, err := c.CallTool("whoami", nil)
	if err != nil || !strings.Contains(res.Text(), `subject="ana"`) {
		t.Fatalf("whoami with a DPoP-bound token: %v %v", res, err)
	}
	// The same token without its proof is refused.
	tok := saketest.AccessToken(t, iss, saketest.Subject("ana"), saketest.Scopes("ledger:read"))
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, resource, strings.NewReader(`{}`))
	req.Header.Set("Authorization", "DPoP "+tok)
	req.Header.Set("Content-Type", "application/json")
	router.ServeHTTP(rec, req)
	if rec.Code != http.StatusUnauthorized {
		t.Errorf("DPoP scheme without a bound token: %d", rec.Code)
	}
}

// The endpoint answers only to the resource's host: a rebinding page's
// request naming another host is refused before any token check.
func TestForeignHostRefused(t *testing.T) {
	t.Parallel()
	_, router, _ := stack(t)
	for host, want := range map[string]int{"evil.test": http.StatusForbidden, "example.com": http.StatusUnauthorized} {
		req := httptest.NewRequest(http.MethodPost, "http://"+host+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		router.ServeHTTP(w, req)
		if w.Code != want {
			t.Errorf("Host %s: %d, want %d", host, w.Code, want)
		}
	}
}
