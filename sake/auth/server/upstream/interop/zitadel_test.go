package interop

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/go-chi/chi/v5"
	"github.com/zitadel/oidc/v3/example/server/exampleop"
	"github.com/zitadel/oidc/v3/example/server/storage"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/auth"
	"github.com/sakemcp/sake-go/sake/auth/server"
	"github.com/sakemcp/sake-go/sake/auth/server/upstream"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/plug"
)

const (
	zitadelClientID = "sake"
	zitadelSecret   = "sake-secret"
	zitadelUser     = "test-user@localhost"
	zitadelPassword = "verysecure"
	mcpClientID     = "mcp-client"
)

// startZitadel starts zitadel's example OpenID provider, whose issuer is
// http://localhost:PORT/, with a confidential client for Sake whose
// redirect URI is redirect(issuer).
func startZitadel(t *testing.T, redirect ...string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	issuer := fmt.Sprintf("http://localhost:%d/", port)
	storage.RegisterClients(storage.WebClient(zitadelClientID, zitadelSecret, redirect...))
	st := storage.NewStorage(storage.NewUserStore(issuer))
	router := exampleop.SetupServer(issuer, st, slog.New(slog.DiscardHandler), false)
	srv := &http.Server{Handler: router, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return issuer
}

// tools are what the MCP client calls: userinfo reads the caller's
// upstream token and asks the provider with it who they are.
type tools struct {
	login    *upstream.Login
	userinfo string
}

// Userinfo asks the provider's userinfo endpoint as the caller.
func (x *tools) Userinfo(ctx *sake.Context) (string, error) {
	hc, err := x.login.HTTPClient(ctx, ctx.Identity())
	if err != nil {
		return "", err
	}
	resp, err := hc.Get(x.userinfo)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("userinfo answered %d", resp.StatusCode)
	}
	var c struct {
		Email string `json:"email"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&c); err != nil {
		return "", err
	}
	return c.Email, nil
}

func TestZitadelSignInWithChromium(t *testing.T) {
	ctx := chromium(t, 2*time.Minute)
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
	cb, got := callbackServer(t)
	as, err := server.New(server.Config{Issuer: issuer, Login: login, Store: store, Resources: []string{resource},
		Scopes:  []server.Scope{{Name: "profile:read", Description: "See who you are at your identity provider"}},
		Clients: []server.Client{{ID: mcpClientID, Name: "Interop client", RedirectURIs: []string{cb}}}})
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

	var pages []string
	browser := func(_ context.Context, authURL string) (*url.URL, error) {
		// Sake sends the browser to zitadel's login; its form signs the
		// person in; back at Sake, the consent page.
		if err := chromedp.Do(ctx, chromedp.Navigate(authURL), chromedp.WaitVisible("#username")); err != nil {
			return nil, fmt.Errorf("zitadel's login page: %w", err)
		}
		if loc, err := chromedp.Run(ctx, chromedp.Location()); err != nil || !strings.HasPrefix(loc, zitadel) {
			return nil, fmt.Errorf("the login page is at %s, not at zitadel (%v)", loc, err)
		}
		if err := chromedp.Do(ctx, chromedp.SendKeys("#username", zitadelUser), chromedp.SendKeys("#password", zitadelPassword),
			chromedp.Click(`button[type="submit"]`), chromedp.WaitVisible(`button[value="allow"]`)); err != nil {
			return nil, fmt.Errorf("signing in at zitadel: %w", err)
		}
		consent, err := chromedp.Run(ctx, chromedp.OuterHTML("html"))
		if err != nil {
			return nil, err
		}
		pages = append(pages, consent)
		if err := chromedp.Do(ctx, chromedp.Click(`button[value="allow"]`)); err != nil {
			return nil, err
		}
		select {
		case q := <-got:
			u, _ := url.Parse(cb)
			u.RawQuery = q.Encode()
			return u, nil
		case <-ctx.Done():
			return nil, fmt.Errorf("the browser never came back to the client: %w", ctx.Err())
		}
	}
	authz := client.OAuth(client.OAuthConfig{Browser: browser, RedirectURL: cb, ClientID: mcpClientID, Issuer: issuer})
	c, err := client.Connect(context.Background(), client.HTTP(resource, nil, client.WithAuthorizer(authz)))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := c.CallTool(context.Background(), "userinfo", nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || res.Text() != "test-user@zitadel.ch" {
		t.Fatalf("the tool answered %s; want the person's email from zitadel's userinfo", res)
	}
	if len(pages) != 1 || !strings.Contains(pages[0], "Interop client") || !strings.Contains(pages[0], zitadel+"#") {
		t.Fatalf("consent page %v: want the client and the subject namespaced by zitadel's issuer", pages)
	}
}

// callbackServer is the MCP client's redirect URI: it hands over the
// query of the first request.
func callbackServer(t *testing.T) (string, <-chan url.Values) {
	got := make(chan url.Values, 1)
	cb := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case got <- r.URL.Query():
		default:
		}
		_, _ = w.Write([]byte("<!doctype html><title>done</title><p>Back in the application.</p>"))
	}))
	t.Cleanup(cb.Close)
	return cb.URL + "/callback", got
}

// chromium starts headless Chromium with page scripts disabled, and
// saves a screenshot in the test's artifact directory when the test
// fails. It skips the test when no Chromium is installed.
func chromium(t *testing.T, timeout time.Duration) context.Context {
	t.Helper()
	path := ""
	for _, b := range []string{os.Getenv("SAKE_CHROMIUM"), "chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(b); b != "" && err == nil {
			path = p
			break
		}
	}
	if path == "" {
		t.Skip("Chromium is not installed: run scripts/chromium.sh (or set SAKE_CHROMIUM)")
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.WindowSize(1000, 900))
	tab, cancelTab := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(tab, timeout)
	err := chromedp.Do(ctx)
	if err == nil {
		_, err = chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
	}
	t.Cleanup(func() {
		if t.Failed() {
			shot, cancel := context.WithTimeout(tab, 10*time.Second)
			if png, err := chromedp.Run(shot, chromedp.FullScreenshot(90)); err == nil {
				name := filepath.Join(t.ArtifactDir(), "page.png")
				if os.WriteFile(name, png, 0o644) == nil {
					t.Logf("screenshot of the page: %s", name)
				}
			}
			cancel()
		}
		cancelTimeout()
		cancelTab()
		cancelAlloc()
	})
	if err != nil {
		t.Skipf("Chromium at %s does not start (%v): run scripts/chromium.sh", path, err)
	}
	return ctx
}
