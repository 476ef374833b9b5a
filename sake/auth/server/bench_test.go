package server

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake/auth"
)

// BenchmarkAccessToken mints and records one access token (ES256).
func BenchmarkAccessToken(b *testing.B) {
	as, err := New(Config{Issuer: "https://as.example", Login: newFakeLogin(), Resources: []string{resourceA}})
	if err != nil {
		b.Fatal(err)
	}
	g := &Grant{ClientID: "c", Subject: "alice", Scopes: []string{"notes:read"}, Resource: []string{resourceA},
		ACR: "urn:pwd", AuthTime: time.Now()}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := as.accessToken(ctx, g, "f", time.Now()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerifyOwnToken is what the MCP endpoint pays per request for
// a token of this server, through the sake/auth verifier.
func BenchmarkVerifyOwnToken(b *testing.B) {
	as, err := New(Config{Issuer: "https://as.example", Login: newFakeLogin(), Resources: []string{resourceA}})
	if err != nil {
		b.Fatal(err)
	}
	tok, _, err := as.accessToken(context.Background(), &Grant{ClientID: "c", Subject: "alice", Resource: []string{resourceA}}, "f", time.Now())
	if err != nil {
		b.Fatal(err)
	}
	v, err := as.Verifier(resourceA)
	if err != nil {
		b.Fatal(err)
	}
	req := &auth.TokenRequest{Token: tok}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := v.Verify(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRefresh is one refresh token rotation through the token
// endpoint handler (public client, in-memory store).
func BenchmarkRefresh(b *testing.B) {
	as, err := New(Config{Issuer: "https://as.example", Login: newFakeLogin(), Resources: []string{resourceA},
		Clients: []Client{{ID: publicID, RedirectURIs: []string{publicCB}}}})
	if err != nil {
		b.Fatal(err)
	}
	h := as.Handler()
	rt := randomToken(32)
	g := Grant{ClientID: publicID, Subject: "alice", Scopes: []string{"notes:read"}, Resource: []string{resourceA}}
	if err := as.store.PutCredential(context.Background(), &Credential{Hash: hashHandle(rt), Kind: KindRefresh,
		Family: "f", Expires: time.Now().Add(time.Hour), Grant: g}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "client_id": {publicID}}
		req := httptest.NewRequest(http.MethodPost, "/oauth/token", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != 200 {
			b.Fatal(w.Body.String())
		}
		body := w.Body.String()
		i := strings.Index(body, `"refresh_token":"`) + len(`"refresh_token":"`)
		rt = body[i : i+strings.IndexByte(body[i:], '"')]
	}
}
