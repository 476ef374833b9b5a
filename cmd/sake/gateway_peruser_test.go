package main

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/golang-jwt/jwt/v5"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/auth"
	"github.com/sakemcp/sake-go/sake/auth/server"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/gateway"
	"github.com/sakemcp/sake-go/sake/plug"
)

// anyoneLogin signs nobody in: enough for a sign-in that is only begun.
type anyoneLogin struct{}

func (anyoneLogin) Current(*http.Request) (*server.Authentication, error) { return nil, nil }
func (anyoneLogin) LoginURL(_ *http.Request, req server.LoginRequest) string {
	return req.ReturnTo
}
func (anyoneLogin) Lookup(context.Context, string) (*server.Subject, error) {
	return &server.Subject{Active: true}, nil
}

// TestGatewayCommandServesAPerUserEntry: sake gateway with a per-user
// entry, -public-url and the vault's key asks a signed-in caller to sign
// in at the remote's authorization server, coming back to -public-url's
// /oauth/callback, which it serves (a state it never gave is refused).
func TestGatewayCommandServesAPerUserEntry(t *testing.T) {
	t.Parallel()
	// The remote: an MCP server behind an authorization server of its own.
	rln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	rbase := "http://" + rln.Addr().String()
	resource := rbase + "/mcp"
	as, err := server.New(server.Config{Issuer: rbase, Login: anyoneLogin{}, Resources: []string{resource}})
	if err != nil {
		t.Fatal(err)
	}
	v, err := as.Verifier(resource)
	if err != nil {
		t.Fatal(err)
	}
	r := chi.NewRouter()
	as.Mount(r)
	r.Handle(auth.WellKnownPath(resource), as.ResourceMetadata(resource).Handler())
	h := plug.New(sake.MustNew(nil), plug.Authorization(v, auth.MetadataURL(resource)))
	defer h.Close()
	r.Handle("/mcp", h)
	remote := httptest.NewUnstartedServer(r)
	remote.Listener.Close()
	remote.Listener = rln
	remote.Start()
	defer remote.Close()

	// The gateway's own issuer.
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	b64 := base64.RawURLEncoding.EncodeToString
	jwks := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"keys":[{"kty":"RSA","kid":"k1","alg":"RS256","use":"sig","n":%q,"e":%q}]}`,
			b64(key.N.Bytes()), b64(big.NewInt(int64(key.E)).Bytes()))
	}))
	defer jwks.Close()
	const issuer, audience = "https://idp.example.com", "https://gateway.example.com/mcp"
	tok := jwt.NewWithClaims(jwt.SigningMethodRS256, jwt.MapClaims{"iss": issuer, "aud": audience, "sub": "ann",
		"exp": time.Now().Add(time.Hour).Unix(), "iat": time.Now().Unix()})
	tok.Header["kid"] = "k1"
	bearer, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}

	config := filepath.Join(t.TempDir(), "mcp.json")
	body := fmt.Sprintf(`{"auth": {"issuer": %q, "audience": %q, "jwksUri": %q},
		"mcpServers": {"accounts": {"url": %q, "oauth": {"perUser": true}}}}`, issuer, audience, jwks.URL, resource)
	if err := os.WriteFile(config, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const public = "https://gateway.example.com"
	vaultKey := make([]byte, 32)
	_, _ = rand.Read(vaultKey)
	base, _, exited, _ := startGatewayCommandEnv(t, ctx, map[string]string{gateway.TokenKeyEnv: base64.StdEncoding.EncodeToString(vaultKey)},
		"-config", config, "-http", "127.0.0.1:0", "-public-url", public, "-log-format", "json")

	c, err := client.Connect(ctx, client.HTTP(base+"/mcp", nil, client.BearerToken(bearer)), client.ProtocolVersion("2025-11-25"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.CallTool(ctx, "accounts_sign_in", nil)
	c.Close()
	var e *sake.Error
	if !errors.As(err, &e) || e.Code != gateway.CodeURLElicitationRequired {
		t.Fatalf("sign_in without URL elicitation: %v", err)
	}
	raw, _ := json.Marshal(e.Data)
	var data struct {
		Elicitations []struct{ URL string } `json:"elicitations"`
	}
	if err := json.Unmarshal(raw, &data); err != nil || len(data.Elicitations) != 1 {
		t.Fatalf("data = %s", raw)
	}
	page, err := url.Parse(data.Elicitations[0].URL)
	if err != nil || !strings.HasPrefix(page.String(), rbase+"/") || page.Query().Get("redirect_uri") != public+gateway.CallbackPath {
		t.Fatalf("the sign-in page %q does not come back to %s", data.Elicitations[0].URL, public+gateway.CallbackPath)
	}

	resp, err := http.Get(base + gateway.CallbackPath + "?state=never-given&code=x")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), "not open") {
		t.Fatalf("the callback with a state never given: %d %s", resp.StatusCode, b)
	}
	cancel()
	if code := <-exited; code != exitOK {
		t.Errorf("exit code %d", code)
	}
}
