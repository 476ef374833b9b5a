package gateway_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/auth"
	"github.com/sakemcp/sake-go/sake/auth/server"
	"github.com/sakemcp/sake-go/sake/gateway"
	"github.com/sakemcp/sake-go/sake/plug"
)

// openRemote serves ledger behind an authorization server of its own
// that registers machine clients for anyone (Config.Registration accepts
// all); it returns the MCP URL and counters of the registrations and
// token requests that server saw.
func openRemote(t *testing.T) (resource string, registrations, tokenRequests *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	resource = base + "/mcp"
	registrations, tokenRequests = new(atomic.Int32), new(atomic.Int32)
	as, err := server.New(server.Config{Issuer: base, Login: server.NewDevLogin("dev", nil), Resources: []string{resource},
		Scopes: []server.Scope{{Name: "ledger:read"}}, DynamicClientCredentials: true,
		Registration: func(context.Context, *http.Request, *server.Client) error { registrations.Add(1); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	v, err := as.Verifier(resource)
	if err != nil {
		t.Fatal(err)
	}
	r := chi.NewRouter()
	r.Use(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			if req.Method == http.MethodPost && strings.HasSuffix(req.URL.Path, "/token") {
				tokenRequests.Add(1)
			}
			next.ServeHTTP(w, req)
		})
	})
	as.Mount(r)
	r.Handle(auth.WellKnownPath(resource), as.ResourceMetadata(resource, "ledger:read").Handler())
	h := plug.New(sake.MustNew(ledger{}), plug.Authorization(v, auth.MetadataURL(resource), "ledger:read"))
	t.Cleanup(h.Close)
	r.Handle("/mcp", h)
	ts := httptest.NewUnstartedServer(r)
	ts.Listener.Close()
	ts.Listener = ln
	ts.Start()
	t.Cleanup(ts.Close)
	return resource, registrations, tokenRequests
}

// An entry's oauth pinned to an issuer signs in there or nowhere: a
// server whose authorization server is another is not connected, with an
// error naming the issuer, and that authorization server sees neither a
// registration nor a token request, though it would register anyone
// (before the pin held, the gateway registered there and connected). The
// entry whose server uses the pinned issuer connects.
func TestGatewayOAuthPinnedToAnIssuerSignsInNowhereElse(t *testing.T) {
	const secret = "ledger-secret-0123456789abcdef"
	t.Setenv("SAKE_GATEWAY_TEST_SECRET", secret)
	pinned := protectedRemote(t, secret) // the gateway's own issuer
	pinnedIssuer := strings.TrimSuffix(pinned, "/mcp")
	open, registrations, tokens := openRemote(t)
	g := startGateway(t, fmt.Sprintf(`{"mcpServers": {
		"ledger": {"url": %q, "oauth": {"clientId": "gateway", "clientSecret": "${env:SAKE_GATEWAY_TEST_SECRET}", "issuer": %q}},
		"open": {"url": %q, "oauth": {"clientId": "gateway", "clientSecret": "${env:SAKE_GATEWAY_TEST_SECRET}", "issuer": %q}}
	}}`, pinned, pinnedIssuer, open, pinnedIssuer), gateway.HealthCheck(time.Hour))
	for _, s := range g.Status() {
		switch s.Key {
		case "ledger":
			if !s.Connected {
				t.Errorf("the entry at its pinned issuer: not connected: %v", s.Err)
			}
		case "open":
			if s.Connected || s.Err == nil || !strings.Contains(s.Err.Error(), pinnedIssuer) || !strings.Contains(s.Err.Error(), "issuer") {
				t.Errorf("the entry whose server has another authorization server: connected %v, err %v; want an error naming the pinned issuer", s.Connected, s.Err)
			}
		}
	}
	if n, m := registrations.Load(), tokens.Load(); n != 0 || m != 0 {
		t.Fatalf("the other authorization server saw %d registrations and %d token requests from a pinned entry", n, m)
	}

}
