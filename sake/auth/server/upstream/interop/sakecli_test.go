package interop

import (
	"bufio"
	"bytes"
	"context"
	"html"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/auth"
	"github.com/sakemcp/sake-go/sake/auth/server"
	"github.com/sakemcp/sake-go/sake/auth/server/upstream"
	"github.com/sakemcp/sake-go/sake/plug"
)

var (
	formAction  = regexp.MustCompile(`<form method="(?i:post)" action="([^"]+)"`)
	formInput   = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)
	allowButton = regexp.MustCompile(`name="decision" value="allow"`)
	signInLine  = regexp.MustCompile(`^\t(http://\S+)$`)
)

// TestSakeCallSignsInAtZitadel runs the sake command against an MCP
// server whose authorization server signs people in at zitadel's example
// provider: sake call prints the sign-in URL and waits on its loopback;
// the person (this test, with an HTTP client and a cookie jar) types the
// password at zitadel and allows at Sake's consent page; the call
// answers with the person's email from zitadel's userinfo. A second call
// uses the kept token with no sign-in.
func TestSakeCallSignsInAtZitadel(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cmd/sake")
	}
	sakeLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	issuer := "http://" + sakeLn.Addr().String()
	resource := issuer + "/mcp"
	zitadel := startZitadel(t, issuer+"/login/callback")
	store := server.NewMemoryStore()
	login, err := upstream.New(context.Background(), upstream.Config{Provider: upstream.OIDC(zitadel),
		ClientID: zitadelClientID, ClientSecret: zitadelSecret, BaseURL: issuer + "/login", Store: store,
		Allow: []upstream.Rule{upstream.AllowDomains("zitadel.ch")}})
	if err != nil {
		t.Fatal(err)
	}
	as, err := server.New(server.Config{Issuer: issuer, Login: login, Store: store, Resources: []string{resource},
		Scopes: []server.Scope{{Name: "profile:read", Description: "See who you are at your identity provider"}}})
	if err != nil {
		t.Fatal(err)
	}
	v, err := as.Verifier(resource)
	if err != nil {
		t.Fatal(err)
	}
	mcp := plug.New(sake.MustNew(&tools{login: login, userinfo: zitadel + "userinfo"}),
		plug.Authorization(v, auth.MetadataURL(resource)))
	t.Cleanup(mcp.Close)
	r := chi.NewRouter()
	as.Mount(r)
	login.Mount(r)
	r.Handle(auth.WellKnownPath(resource), as.ResourceMetadata(resource, "profile:read").Handler())
	r.Handle("/mcp", mcp)
	srv := &http.Server{Handler: r, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(sakeLn) }()
	t.Cleanup(func() { _ = srv.Close() })

	dir := t.TempDir()
	bin := filepath.Join(dir, "sake")
	build := exec.Command("go", "build", "-o", bin, "./cmd/sake")
	build.Dir = "../../../../.."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building cmd/sake: %v\n%s", err, out)
	}
	config := filepath.Join(dir, "config")
	sakeCmd := func(ctx context.Context) *exec.Cmd {
		cmd := exec.CommandContext(ctx, bin, "call", resource, "userinfo")
		// No display: the URL is printed, no browser opened.
		cmd.Env = []string{"HOME=" + dir, "XDG_CONFIG_HOME=" + config, "PATH=" + os.Getenv("PATH")}
		cmd.WaitDelay = 5 * time.Second
		return cmd
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := sakeCmd(ctx)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var printed strings.Builder
	authURL := ""
	lines := bufio.NewScanner(stderr)
	for authURL == "" && lines.Scan() {
		printed.WriteString(lines.Text() + "\n")
		if m := signInLine.FindStringSubmatch(lines.Text()); m != nil {
			authURL = m[1]
		}
	}
	if authURL == "" {
		_ = cmd.Wait()
		t.Fatalf("sake call printed no sign-in URL:\n%s", printed.String())
	}
	done := signInAtZitadel(t, authURL)
	if !strings.Contains(done, "You are signed in") {
		t.Fatalf("the browser ended at: %s", done)
	}
	rest, _ := io.ReadAll(stderr)
	if err := cmd.Wait(); err != nil || stdout.String() != "test-user@zitadel.ch\n" {
		t.Fatalf("sake call: %v; stdout %q; stderr:\n%s%s", err, stdout.String(), printed.String(), rest)
	}

	// The next call: the kept token, no sign-in.
	again := sakeCmd(ctx)
	out, err := again.CombinedOutput()
	if err != nil || string(out) != "test-user@zitadel.ch\n" {
		t.Fatalf("the second sake call: %v\n%s", err, out)
	}
}

// signInAtZitadel is the person's browser: it follows the sign-in URL to
// zitadel's login form, types the password, allows at Sake's consent page
// and follows the redirect to the sake command's loopback listener,
// returning the last page.
func signInAtZitadel(t *testing.T, authURL string) string {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	resp, err := hc.Get(authURL)
	for range 5 {
		if err != nil {
			t.Fatalf("the browser: %v", err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		page := string(body)
		action := formAction.FindStringSubmatch(page)
		if action == nil {
			return page
		}
		form := url.Values{}
		for _, m := range formInput.FindAllStringSubmatch(page, -1) {
			form.Set(m[1], html.UnescapeString(m[2]))
		}
		if strings.Contains(page, `name="password"`) {
			form.Set("username", zitadelUser)
			form.Set("password", zitadelPassword)
		}
		if allowButton.MatchString(page) {
			form.Set("decision", "allow")
		}
		target, _ := resp.Request.URL.Parse(html.UnescapeString(action[1]))
		resp, err = hc.PostForm(target.String(), form)
	}
	t.Fatal("five pages without reaching the sake command's loopback")
	return ""
}
