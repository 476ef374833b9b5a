package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/auth"
	"github.com/sakemcp/sake-go/sake/auth/server"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/plug"
)

// protected is an MCP server behind an authorization server whose login
// is a DevLogin.
type protected struct {
	url        string
	authorizes atomic.Int32 // requests of the authorization endpoint
	devices    atomic.Int32 // device authorization requests
}

func serveProtected(t *testing.T, cfg server.Config) *protected {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	p := &protected{url: base + "/mcp"}
	cfg.Issuer, cfg.Resources = base, []string{p.url}
	dev := server.NewDevLogin("ada", nil)
	cfg.Login = dev
	cfg.Scopes = append(cfg.Scopes, server.Scope{Name: "fixture:use"})
	as, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	v, err := as.Verifier(p.url)
	if err != nil {
		t.Fatal(err)
	}
	r := chi.NewRouter()
	r.Use(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch path.Base(r.URL.Path) {
			case "authorize":
				p.authorizes.Add(1)
			case "device_authorization":
				p.devices.Add(1)
			}
			next.ServeHTTP(w, r)
		})
	})
	as.Mount(r)
	dev.Mount(r)
	r.Handle(auth.WellKnownPath(p.url), as.ResourceMetadata(p.url, "fixture:use").Handler())
	h := plug.New(sake.MustNew(&fixture{}, sake.Name("fixture", "0.1.0")), plug.Authorization(v, auth.MetadataURL(p.url), "fixture:use"))
	r.Handle("/mcp", h)
	ts := httptest.NewUnstartedServer(r)
	ts.Listener.Close()
	ts.Listener = ln
	ts.Start()
	t.Cleanup(func() {
		ts.Close()
		h.Close()
	})
	return p
}

// started is a run of the command in the background.
type started struct {
	lines chan string // the lines of its standard error
	done  chan result
}

// sakeStart runs the command like sakeRun, in the background, handing
// out its standard error a line at a time.
func sakeStart(t *testing.T, vars map[string]string, args ...string) *started {
	t.Helper()
	pr, pw := io.Pipe()
	s := &started{lines: make(chan string, 100), done: make(chan result, 1)}
	var errText strings.Builder
	scanned := make(chan struct{})
	go func() {
		defer close(scanned)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			errText.WriteString(sc.Text() + "\n")
			select {
			case s.lines <- sc.Text():
			default:
			}
		}
	}()
	go func() {
		var out strings.Builder
		e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: pw,
			getenv: func(k string) string { return vars[k] }, goos: runtime.GOOS, lookPath: lookPathNone,
			userConfigDir: func() (string, error) { return vars["XDG_CONFIG_HOME"], nil }}
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		code := run(ctx, args, e)
		pw.Close()
		<-scanned
		s.done <- result{out.String(), errText.String(), code}
	}()
	return s
}

func lookPathNone(name string) (string, error) { return "", fmt.Errorf("%s: not in this test", name) }

// waitLine returns the first line of the run's standard error that
// matches re (the run's result instead when it ends first).
func (s *started) waitLine(t *testing.T, re *regexp.Regexp) string {
	t.Helper()
	for {
		select {
		case l := <-s.lines:
			if m := re.FindStringSubmatch(l); m != nil {
				return m[len(m)-1]
			}
		case r := <-s.done:
			t.Fatalf("the command ended before printing %v: %+v", re, r)
		}
	}
}

var (
	pageForm    = regexp.MustCompile(`<form method="post" action="([^"]+)"`)
	hiddenInput = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)
	allowButton = regexp.MustCompile(`name="decision" value="allow"`)
)

// pressLogin is the person: it opens authURL with a browser of its own
// (a cookie jar), submits each page's form (the DevLogin's button,
// "Allow" on the consent page) and follows the redirects to the end: the
// command's loopback listener.
func pressLogin(t *testing.T, authURL string) string {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar}
	resp, err := hc.Get(authURL)
	for range 5 {
		if err != nil {
			t.Fatalf("the browser: %v", err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		page := string(body)
		action := pageForm.FindStringSubmatch(page)
		if action == nil {
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("the browser ended at %s with %d: %s", resp.Request.URL, resp.StatusCode, page)
			}
			return page // the loopback's "you are signed in" page
		}
		form := url.Values{}
		for _, m := range hiddenInput.FindAllStringSubmatch(page, -1) {
			form.Set(m[1], html.UnescapeString(m[2]))
		}
		if allowButton.MatchString(page) {
			form.Set("decision", "allow")
		}
		target, _ := resp.Request.URL.Parse(html.UnescapeString(action[1]))
		resp, err = hc.PostForm(target.String(), form)
	}
	t.Fatal("the browser went through five pages without reaching the redirect")
	return ""
}

var signInURL = regexp.MustCompile(`^\t(http://\S+)$`)

// The first call signs in through the browser (the test presses the
// DevLogin's button and allows on the consent page) while the command
// waits on its loopback listener; the token is kept in the configuration
// directory, readable by its owner only; the next call uses it with no
// sign-in, a token past its expiry is refreshed, and sake logout
// removes it.
func TestCallSignsInAndKeepsTheToken(t *testing.T) {
	t.Parallel()
	p := serveProtected(t, server.Config{})
	config := t.TempDir()
	vars := map[string]string{"XDG_CONFIG_HOME": config}

	s := sakeStart(t, vars, "call", p.url, "echo", `{"text":"signed in"}`)
	authURL := s.waitLine(t, signInURL)
	if !strings.Contains(authURL, "/authorize?") || !strings.Contains(authURL, "code_challenge_method=S256") || !strings.Contains(authURL, "redirect_uri=http%3A%2F%2F127.0.0.1%3A") {
		t.Fatalf("the sign-in URL is not an authorization request with PKCE and a loopback redirect: %s", authURL)
	}
	if page := pressLogin(t, authURL); !strings.Contains(page, "You are signed in") {
		t.Fatalf("the loopback answered: %s", page)
	}
	r := <-s.done
	if r.code != exitOK || r.stdout != "signed in\n" {
		t.Fatalf("the first call: %+v", r)
	}

	dir := filepath.Join(config, "sake", "tokens")
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) != 1 {
		t.Fatalf("token files = %v, want one", files)
	}
	if st, _ := os.Stat(dir); st == nil || st.Mode().Perm() != 0o700 {
		t.Errorf("the token directory's mode = %v, want 0700", st.Mode().Perm())
	}
	if st, _ := os.Stat(files[0]); st == nil || st.Mode().Perm() != 0o600 {
		t.Errorf("the token file's mode = %v, want 0600", st.Mode().Perm())
	}
	first := readStored(t, files[0])
	if first.Token.RefreshToken == "" || first.URL != p.url {
		t.Fatalf("the kept sign-in = %+v", first)
	}

	// The next call: no sign-in.
	if r := sakeRun(t, "", vars, "call", p.url, "echo", `{"text":"again"}`); r.code != exitOK || r.stdout != "again\n" || strings.Contains(r.stderr, "sign in") {
		t.Fatalf("the second call: %+v", r)
	}
	if n := p.authorizes.Load(); n != 1 {
		t.Fatalf("the authorization endpoint was asked %d times, want once", n)
	}

	// An expired token is refreshed, with no sign-in.
	expired := first
	expired.Token.Expiry = expired.Token.Expiry.Add(-24 * 60 * 60 * 1e9)
	writeStored(t, files[0], expired)
	if r := sakeRun(t, "", vars, "inspect", p.url); r.code != exitOK || !strings.Contains(r.stdout, "echo") {
		t.Fatalf("inspect with an expired token: %+v", r)
	}
	if got := readStored(t, files[0]); got.Token.AccessToken == first.Token.AccessToken || !got.Token.Expiry.After(first.Token.Expiry.Add(-1)) {
		t.Fatal("the expired token was not refreshed")
	}
	if n := p.authorizes.Load(); n != 1 {
		t.Fatalf("the refresh signed in again (%d authorizations)", n)
	}

	if r := sakeRun(t, "", vars, "logout", p.url+"/"); r.code != exitOK || !strings.Contains(r.stdout, "signed out of "+p.url) {
		t.Fatalf("logout: %+v", r)
	}
	if _, err := os.Stat(files[0]); !os.IsNotExist(err) {
		t.Fatalf("logout left the token: %v", err)
	}
	if r := sakeRun(t, "", vars, "logout", p.url); r.code != exitOK || !strings.Contains(r.stdout, "no sign-in is kept") {
		t.Fatalf("logout again: %+v", r)
	}
}

func readStored(t *testing.T, path string) storedToken {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var st storedToken
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	return st
}

func writeStored(t *testing.T, path string, st storedToken) {
	t.Helper()
	b, _ := json.Marshal(st)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

var deviceLine = regexp.MustCompile(`\(or open (http://\S+)\)\.$`)

// With -device the command shows a page and a code; the person opens the
// page elsewhere and allows; the command, polling, gets the token.
func TestCallSignsInWithTheDeviceFlow(t *testing.T) {
	t.Parallel()
	p := serveProtected(t, server.Config{})
	vars := map[string]string{"XDG_CONFIG_HOME": t.TempDir()}
	s := sakeStart(t, vars, "call", "-device", p.url, "echo", `{"text":"from afar"}`)
	page := s.waitLine(t, deviceLine)
	if done := pressLogin(t, page); !strings.Contains(done, "return to your device") {
		t.Fatalf("the device page ended with: %s", done)
	}
	r := <-s.done
	if r.code != exitOK || r.stdout != "from afar\n" || !strings.Contains(r.stderr, "type the code") {
		t.Fatalf("the call: %+v", r)
	}
	if p.devices.Load() != 1 || p.authorizes.Load() != 0 {
		t.Fatalf("%d device authorizations and %d authorization requests, want 1 and 0", p.devices.Load(), p.authorizes.Load())
	}
}

// -client-id with -client-secret signs in as a machine client, with no
// person and no token left on disk; a wrong secret is refused with the
// authorization server's answer.
func TestCallSignsInAsAMachineClient(t *testing.T) {
	t.Parallel()
	const secret = "robot-secret-0123456789abcdef"
	hash, err := server.HashSecret(secret)
	if err != nil {
		t.Fatal(err)
	}
	p := serveProtected(t, server.Config{Clients: []server.Client{{ID: "robot", SecretHash: hash,
		GrantTypes: []string{"client_credentials"}, Scopes: []string{"fixture:use"}}}})
	config := t.TempDir()
	vars := map[string]string{"XDG_CONFIG_HOME": config}
	r := sakeRun(t, "", vars, "call", "-client-id", "robot", "-client-secret", secret, p.url, "echo", `{"text":"beep"}`)
	if r.code != exitOK || r.stdout != "beep\n" {
		t.Fatalf("the machine's call: %+v", r)
	}
	if files, _ := filepath.Glob(filepath.Join(config, "sake", "tokens", "*")); len(files) != 0 {
		t.Fatalf("a machine's token was kept: %v", files)
	}
	r = sakeRun(t, "", vars, "call", "-client-id", "robot", "-client-secret", "wrong", p.url, "echo", `{"text":"beep"}`)
	if r.code != exitFail || r.stdout != "" || !strings.Contains(r.stderr, "invalid_client") {
		t.Fatalf("a wrong secret: %+v", r)
	}
	if r := sakeRun(t, "", vars, "call", "-client-secret", secret, p.url, "echo"); r.code != exitUsage || !strings.Contains(r.stderr, "-client-secret needs -client-id") {
		t.Fatalf("a secret without a client id: %+v", r)
	}
	if p.authorizes.Load() != 0 {
		t.Fatal("a machine client went to the authorization endpoint")
	}
}

// A 401 that names no resource metadata starts no sign-in: the error says
// to pass credentials.
func TestCallWithoutResourceMetadataDoesNotSignIn(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="x"`)
		http.Error(w, "credentials required", http.StatusUnauthorized)
	}))
	defer ts.Close()
	r := sakeRun(t, "", map[string]string{"XDG_CONFIG_HOME": t.TempDir()}, "call", ts.URL, "echo")
	if r.code != exitFail || !strings.Contains(r.stderr, "401") || strings.Contains(r.stderr, "sign in") {
		t.Fatalf("%+v", r)
	}
}

var _ = client.Token{}
