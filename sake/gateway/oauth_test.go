package gateway_test

import (
	"fmt"
	"net"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/auth"
	"github.com/sakemcp/sake-go/sake/auth/server"
	"github.com/sakemcp/sake-go/sake/gateway"
	"github.com/sakemcp/sake-go/sake/plug"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// ledger answers with the client that called it.
type ledger struct{}

func (ledger) Whoami(ctx *sake.Context) (string, error) {
	return "called by " + ctx.Identity().ClientID, nil
}

// protectedRemote serves ledger behind an authorization server that
// knows one machine client, "gateway", with secret.
func protectedRemote(t *testing.T, secret string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	resource := base + "/mcp"
	hash, err := server.HashSecret(secret)
	if err != nil {
		t.Fatal(err)
	}
	as, err := server.New(server.Config{Issuer: base, Login: server.NewDevLogin("dev", nil), Resources: []string{resource},
		Scopes:  []server.Scope{{Name: "ledger:read"}},
		Clients: []server.Client{{ID: "gateway", SecretHash: hash, GrantTypes: []string{"client_credentials"}, Scopes: []string{"ledger:read"}}}})
	if err != nil {
		t.Fatal(err)
	}
	v, err := as.Verifier(resource)
	if err != nil {
		t.Fatal(err)
	}
	r := chi.NewRouter()
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
	return resource
}

// An entry's "oauth" signs the gateway in at the remote's authorization
// server as a machine client; wrong credentials leave that entry out,
// with the refusal in its status, and the others served.
func TestGatewaySignsInWithItsOwnClient(t *testing.T) {
	const secret = "ledger-secret-0123456789abcdef"
	t.Setenv("SAKE_GATEWAY_TEST_SECRET", secret) // the file names it, never spells it
	remote := protectedRemote(t, secret)
	beta := newRemote(t, "beta")
	g := startGateway(t, fmt.Sprintf(`{"mcpServers": {
		"ledger": {"url": %q, "oauth": {"clientId": "gateway", "clientSecret": "${env:SAKE_GATEWAY_TEST_SECRET}", "scopes": ["ledger:read"]}},
		"wrong": {"url": %q, "oauth": {"clientId": "gateway", "clientSecret": "not-the-secret"}},
		"beta": {"url": %q}
	}}`, remote, remote, beta.url+"/mcp"), gateway.HealthCheck(time.Hour))
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		c := saketest.Connect(t, g.Server(), opts...)
		got := names(t, c)
		if !slices.Contains(got, "ledger_whoami") || !slices.Contains(got, "beta_echo") || slices.Contains(got, "wrong_whoami") {
			t.Fatalf("tools = %v, want ledger_whoami and beta_echo, and no wrong_whoami", got)
		}
		if res, err := c.CallTool("ledger_whoami", nil); err != nil || res.Text() != "called by gateway" {
			t.Fatalf("ledger_whoami = %v, %v", res, err)
		}
	})
	for _, s := range g.Status() {
		if s.Key == "wrong" && (s.Connected || s.Err == nil) {
			t.Errorf("the entry with a wrong secret: connected %v, err %v; want a refusal", s.Connected, s.Err)
		}
	}
}
