package main

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/sakemcp/sake-go/sake/client"
)

// TestGatewayCommandVerifiesTokens: with an "auth" section the gateway
// refuses a request without a token or with a token for another
// audience (401 naming its resource metadata), and an entry's access
// rule shows and lets call its tools only to the tokens it names.
func TestGatewayCommandVerifiesTokens(t *testing.T) {
	t.Parallel()
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
	token := func(aud, sub string, scopes ...string) string {
		tok := jwt.NewWithClaims(jwt.SigningMethodRS256, jwt.MapClaims{"iss": issuer, "aud": aud, "sub": sub,
			"scope": strings.Join(scopes, " "), "exp": time.Now().Add(time.Hour).Unix(), "iat": time.Now().Unix()})
		tok.Header["kid"] = "k1"
		s, err := tok.SignedString(key)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}

	cmd := fixtureCommand(t)
	config := filepath.Join(t.TempDir(), "mcp.json")
	body := fmt.Sprintf(`{"auth": {"issuer": %q, "audience": %q, "jwksUri": %q},
		"mcpServers": {"fixture": {"command": %q, "args": [%q], "env": {%q: "1"}, "access": {"scopes": ["fixture"]}}}}`,
		issuer, audience, jwks.URL, cmd[0], cmd[1], serveEnv)
	if err := os.WriteFile(config, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	base, exited := startGatewayCommand(t, ctx, "-config", config, "-http", "127.0.0.1:0", "-log-format", "json")

	// No token, and a token for another resource: 401 with the challenge.
	for _, bearer := range []string{"", token("https://elsewhere.example.com/mcp", "ana", "fixture")} {
		req, _ := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if bearer != "" {
			req.Header.Set("Authorization", "Bearer "+bearer)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(resp.Header.Get("WWW-Authenticate"), "resource_metadata=") {
			t.Errorf("token %.12q: %d %q", bearer, resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
		}
	}
	// The metadata names the issuer.
	resp, err := http.Get(base + "/.well-known/oauth-protected-resource/mcp")
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
	}
	err = json.NewDecoder(resp.Body).Decode(&meta)
	resp.Body.Close()
	if err != nil || meta.Resource != audience || !slices.Equal(meta.AuthorizationServers, []string{issuer}) {
		t.Errorf("metadata = %+v, %v", meta, err)
	}

	// A valid token without the entry's scope sees nothing of it.
	for _, tc := range []struct {
		scopes []string
		want   bool
	}{{nil, false}, {[]string{"fixture"}, true}} {
		c, err := client.Connect(ctx, client.HTTP(base+"/mcp", nil, client.BearerToken(token(audience, "ana", tc.scopes...))))
		if err != nil {
			t.Fatalf("scopes %v: %v", tc.scopes, err)
		}
		tools, err := c.ListTools(ctx)
		if err != nil {
			t.Fatal(err)
		}
		res, callErr := c.CallTool(ctx, "fixture_echo", json.RawMessage(`{"text":"hi"}`))
		c.Close()
		if got := len(tools) > 0; got != tc.want {
			t.Errorf("scopes %v: %d tools listed", tc.scopes, len(tools))
		}
		if ok := callErr == nil && res.Text() == "hi"; ok != tc.want {
			t.Errorf("scopes %v: fixture_echo = %v, %v", tc.scopes, res, callErr)
		}
	}
	cancel()
	if code := <-exited; code != exitOK {
		t.Errorf("exit code %d", code)
	}
}

// TestGatewayCommandIntrospectsTokens: with "introspection" the gateway
// asks the issuer about each opaque token, with its own credentials, and
// admits only an active one for its audience.
func TestGatewayCommandIntrospectsTokens(t *testing.T) {
	const issuer, audience = "https://idp.example.com", "https://gateway.example.com/mcp"
	var asked atomic.Int32
	idp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		if id, secret, ok := r.BasicAuth(); !ok || id != "gateway" || secret != "introspection-secret" {
			http.Error(w, "who are you", http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch r.PostFormValue("token") {
		case "good-token":
			fmt.Fprintf(w, `{"active":true,"iss":%q,"aud":%q,"sub":"ana","scope":"fixture","exp":%d}`, issuer, audience, time.Now().Add(time.Hour).Unix())
		case "other-audience":
			fmt.Fprintf(w, `{"active":true,"iss":%q,"aud":"https://elsewhere.example.com","sub":"ana","scope":"fixture"}`, issuer)
		default:
			fmt.Fprint(w, `{"active":false}`)
		}
	}))
	defer idp.Close()
	t.Setenv("GATEWAY_INTROSPECTION_SECRET", "introspection-secret")
	cmd := fixtureCommand(t)
	config := filepath.Join(t.TempDir(), "mcp.json")
	body := fmt.Sprintf(`{"auth": {"issuer": %q, "audience": %q,
		"introspection": {"endpoint": %q, "clientId": "gateway", "clientSecret": "${env:GATEWAY_INTROSPECTION_SECRET}"}},
		"mcpServers": {"fixture": {"command": %q, "args": [%q], "env": {%q: "1"}, "access": {"scopes": ["fixture"]}}}}`,
		issuer, audience, idp.URL, cmd[0], cmd[1], serveEnv)
	if err := os.WriteFile(config, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	base, exited := startGatewayCommand(t, ctx, "-config", config, "-http", "127.0.0.1:0", "-log-format", "json")
	for _, bad := range []string{"", "revoked-token", "other-audience"} {
		_, err := client.Connect(ctx, client.HTTP(base+"/mcp", nil, client.BearerToken(bad)))
		if err == nil {
			t.Errorf("token %q was admitted", bad)
		}
	}
	c, err := client.Connect(ctx, client.HTTP(base+"/mcp", nil, client.BearerToken("good-token")))
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.CallTool(ctx, "fixture_echo", json.RawMessage(`{"text":"introspected"}`))
	c.Close()
	if err != nil || res.Text() != "introspected" {
		t.Fatalf("fixture_echo = %v, %v", res, err)
	}
	if asked.Load() == 0 {
		t.Error("the issuer was never asked")
	}
	cancel()
	if code := <-exited; code != exitOK {
		t.Errorf("exit code %d", code)
	}
}
