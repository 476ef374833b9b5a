package interop

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake/auth/server"
)

// TestExampleOAuthRedirectsToTheProvider starts examples/oauth with
// -oidc-issuer at zitadel's example provider: an MCP client's
// authorization request goes through Sake's login to the provider's
// authorization endpoint, with the client id, a PKCE challenge, a state,
// a nonce and the /login/callback redirect URI, and the provider accepts
// it (it shows its login page).
func TestExampleOAuthRedirectsToTheProvider(t *testing.T) {
	if testing.Short() {
		t.Skip("builds examples/oauth")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	issuer := "http://" + addr
	zitadel := startZitadel(t, issuer+"/login/callback")

	bin := filepath.Join(t.TempDir(), "oauth")
	build := exec.Command("go", "build", "-o", bin, "./examples/oauth")
	build.Dir = "../../../../.."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building examples/oauth: %v\n%s", err, out)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-http", addr, "-oidc-issuer", zitadel, "-oidc-client-id", zitadelClientID,
		"-oidc-client-secret", zitadelSecret)
	cmd.WaitDelay = 5 * time.Second
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	banner := bufio.NewScanner(stdout)
	printed := ""
	for banner.Scan() {
		printed += banner.Text() + "\n"
		if strings.HasPrefix(banner.Text(), "Its redirect URI:") {
			break
		}
	}
	if !strings.Contains(printed, issuer+"/login/callback") {
		t.Fatalf("the banner does not print the redirect URI %s/login/callback:\n%s", issuer, printed)
	}

	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	jar := map[string]string{}
	get := func(u string) *url.URL {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, u, nil)
		for k, v := range jar {
			req.AddCookie(&http.Cookie{Name: k, Value: v})
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		for _, c := range resp.Cookies() {
			jar[c.Name] = c.Value
		}
		loc, err := resp.Location()
		if err != nil {
			t.Fatalf("%s answered %d, not a redirect", u, resp.StatusCode)
		}
		return loc
	}
	verifier := strings.Repeat("v", 43)
	q := url.Values{"response_type": {"code"}, "client_id": {"demo-client"}, "redirect_uri": {"http://127.0.0.1:9/callback"},
		"code_challenge": {server.S256(verifier)}, "code_challenge_method": {"S256"}, "state": {"mcp-state"},
		"resource": {issuer + "/mcp"}}
	start := get(issuer + "/oauth/authorize?" + q.Encode())
	if start.Path != "/login" {
		t.Fatalf("the authorization request went to %s, not to Sake's login", start)
	}
	at := get(start.String())
	p := at.Query()
	if at.Scheme+"://"+at.Host+at.Path != authorizationEndpoint(t, zitadel) {
		t.Fatalf("Sake's login sent the browser to %s, not to the provider's authorization endpoint", at)
	}
	for _, k := range []string{"client_id", "code_challenge", "state", "nonce", "redirect_uri"} {
		if p.Get(k) == "" {
			t.Errorf("the provider's authorization request has no %s", k)
		}
	}
	if p.Get("client_id") != zitadelClientID || p.Get("redirect_uri") != issuer+"/login/callback" ||
		p.Get("code_challenge_method") != "S256" || p.Get("state") == "mcp-state" || len(p.Get("code_challenge")) != 43 {
		t.Fatalf("the provider's authorization request: %v", p)
	}
	// The provider accepts it: its login page, not an error back to Sake.
	next := get(at.String())
	if !strings.Contains(next.Path, "login") || next.Host != at.Host {
		t.Fatalf("the provider answered the request with %s", next)
	}
}

// authorizationEndpoint reads the provider's discovery document.
func authorizationEndpoint(t *testing.T, issuer string) string {
	t.Helper()
	resp, err := http.Get(issuer + ".well-known/openid-configuration")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var meta struct {
		AuthorizationEndpoint string `json:"authorization_endpoint"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&meta); err != nil || meta.AuthorizationEndpoint == "" {
		t.Fatalf("discovery: %v", err)
	}
	return meta.AuthorizationEndpoint
}
