package gateway_test

import (
	"context"
	"fmt"
	"html"
	"html/template"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/auth"
	"github.com/sakemcp/sake-go/sake/auth/server"
	"github.com/sakemcp/sake-go/sake/gateway"
	"github.com/sakemcp/sake-go/sake/gateway/usertokens"
	"github.com/sakemcp/sake-go/sake/plug"
)

// nameLogin signs in whoever types their name on its page (a cookie
// carries it): the accounts of the remote's authorization server.
type nameLogin struct{ base string }

const whoCookie = "who"

func (l nameLogin) Current(r *http.Request) (*server.Authentication, error) {
	c, err := r.Cookie(whoCookie)
	if err != nil || c.Value == "" {
		return nil, nil
	}
	return &server.Authentication{Subject: c.Value}, nil
}

func (l nameLogin) LoginURL(_ *http.Request, req server.LoginRequest) string {
	return l.base + "/login?" + url.Values{"return": {req.ReturnTo}}.Encode()
}

func (nameLogin) Lookup(context.Context, string) (*server.Subject, error) {
	return &server.Subject{Active: true}, nil
}

var loginPage = template.Must(template.New("login").Parse(`<!doctype html><html lang="en"><head><title>Sign in</title></head>
<body><main><h1>Sign in</h1><form method="post" action="/login"><input type="hidden" name="return" value="{{.}}">
<label for="user">Name</label><input id="user" name="user"><button type="submit" id="go">Sign in</button></form></main></body></html>`))

func (l nameLogin) serve(s *server.Server) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		back := r.FormValue("return")
		if !s.IsReturnURL(back) {
			http.Error(w, "bad return", http.StatusBadRequest)
			return
		}
		if r.Method == http.MethodGet {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_ = loginPage.Execute(w, back)
			return
		}
		http.SetCookie(w, &http.Cookie{Name: whoCookie, Value: r.FormValue("user"), Path: "/"})
		http.Redirect(w, r, back, http.StatusSeeOther)
	}
}

// accounts is a remote MCP server whose callers sign in with their own
// accounts at its authorization server; its tool whoami answers the
// subject of the token it was called with, and records it.
type accounts struct {
	url   string       // the MCP endpoint
	srv   *sake.Server // the MCP server
	opens atomic.Int32 // the connections opened (initialize, server/discover)
	inits atomic.Int32 // those of 2025-11-25 (initialize)
	// hold's calls say they entered on entered, and return once release
	// is closed (or their call ends).
	entered     chan struct{}
	release     chan struct{}
	releaseOnce sync.Once
	mu          sync.Mutex
	saw         []string
}

// releaseHold ends the calls of hold.
func (a *accounts) releaseHold() { a.releaseOnce.Do(func() { close(a.release) }) }

func (a *accounts) seen() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.saw...)
}

func newAccounts(t testing.TB) *accounts {
	t.Helper()
	return newAccountsWrapped(t, nil)
}

// newAccountsWrapped is newAccounts with its MCP endpoint wrapped in
// wrap (nil: as it is).
func newAccountsWrapped(t testing.TB, wrap func(http.Handler) http.Handler) *accounts {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	a := &accounts{url: base + "/mcp", entered: make(chan struct{}, 16), release: make(chan struct{})}
	login := nameLogin{base: base}
	as, err := server.New(server.Config{Issuer: base, Login: login, Resources: []string{a.url},
		Scopes: []server.Scope{{Name: "read"}}, DefaultScopes: []string{"read"}})
	if err != nil {
		t.Fatal(err)
	}
	v, err := as.Verifier(a.url)
	if err != nil {
		t.Fatal(err)
	}
	srv := sake.MustNew(nil, sake.Name("accounts", "1.0.0"), sake.Use(func(next sake.Handler) sake.Handler {
		return func(ctx context.Context, req *sake.Request) (any, error) {
			if req.Method == "initialize" || req.Method == "server/discover" {
				a.opens.Add(1)
			}
			if req.Method == "initialize" {
				a.inits.Add(1)
			}
			return next(ctx, req)
		}
	}))
	a.srv = srv
	if err := srv.AddTool(sake.NewTool("whoami", func(c *sake.Context) (string, error) {
		sub := c.Identity().Subject
		a.mu.Lock()
		a.saw = append(a.saw, sub)
		a.mu.Unlock()
		return sub, nil
	}).Description("Who the server sees."), sake.NewTool("hold", func(c *sake.Context) (string, error) {
		a.entered <- struct{}{}
		select {
		case <-a.release:
			return "released", nil
		case <-c.Done():
			return "", c.Err()
		}
	}).Description("Holds the call until the test releases it.")); err != nil {
		t.Fatal(err)
	}
	r := chi.NewRouter()
	as.Mount(r)
	r.Get("/login", login.serve(as))
	r.Post("/login", login.serve(as))
	r.Handle(auth.WellKnownPath(a.url), as.ResourceMetadata(a.url, "read").Handler())
	h := plug.New(srv, plug.Authorization(v, auth.MetadataURL(a.url), "read"))
	var mcp http.Handler = h
	if wrap != nil {
		mcp = wrap(h)
	}
	r.Handle("/mcp", mcp)
	ts := httptest.NewUnstartedServer(r)
	ts.Listener.Close()
	ts.Listener = ln
	ts.Start()
	t.Cleanup(func() { ts.Close(); h.Close() })
	t.Cleanup(a.releaseHold) // first: the server's Close waits for the calls held
	return a
}

// perUserGateway starts a gateway fronting remote per user, with a memory
// vault, its sign-in callback served at its public URL.
func perUserGateway(t testing.TB, remote string, opts ...gateway.Option) (*gateway.Gateway, string, *usertokens.Vault) {
	t.Helper()
	return perUserGatewayOAuth(t, remote, `{"perUser": true}`, opts...)
}

// perUserGatewayOAuth is perUserGateway with the entry's "oauth" section.
func perUserGatewayOAuth(t testing.TB, remote, oauth string, opts ...gateway.Option) (*gateway.Gateway, string, *usertokens.Vault) {
	t.Helper()
	key := make([]byte, usertokens.KeySize)
	vault, err := usertokens.New(usertokens.Memory(0, 0), key)
	if err != nil {
		t.Fatal(err)
	}
	return perUserGatewayVault(t, remote, oauth, vault, opts...)
}

// perUserGatewayVault is perUserGatewayOAuth keeping the tokens in vault.
func perUserGatewayVault(t testing.TB, remote, oauth string, vault *usertokens.Vault, opts ...gateway.Option) (*gateway.Gateway, string, *usertokens.Vault) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
	return perUserGatewayFrom(t, fmt.Sprintf(`{"mcpServers": {"accounts": {"url": %q, "oauth": %s}}}`, remote, oauth), vault, opts...)
}

// perUserGatewayFrom starts a gateway on config, keeping the per-user
// tokens in vault, its sign-in callback served at its public URL.
func perUserGatewayFrom(t testing.TB, config string, vault *usertokens.Vault, opts ...gateway.Option) (*gateway.Gateway, string, *usertokens.Vault) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	public := "http://" + ln.Addr().String()
	g := startGateway(t, config, append([]gateway.Option{gateway.UserTokens(vault), gateway.PublicURL(public)}, opts...)...)
	mux := http.NewServeMux()
	mux.Handle(gateway.CallbackPath, g.SignInHandler())
	ts := httptest.NewUnstartedServer(mux)
	ts.Listener.Close()
	ts.Listener = ln
	ts.Start()
	t.Cleanup(ts.Close)
	return g, public, vault
}

var (
	consentAction = regexp.MustCompile(`<form method="post" action="([^"]+)"`)
	consentField  = regexp.MustCompile(`<input type="hidden" name="(request|csrf)" value="([^"]+)"`)
)

// visit plays user's browser on authURL: signed in at the remote's
// authorization server as user, it allows on the consent page and
// follows the redirect to the gateway's callback. It returns the
// callback's status and URL.
func visit(t testing.TB, user, authURL string) (int, string) {
	t.Helper()
	return browse(t, user, authURL, true)
}

// browse is visit; with follow false it stops short of the gateway's
// callback (the status is then the redirect's).
func browse(t testing.TB, user, authURL string, follow bool) (int, string) {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	u, _ := url.Parse(authURL)
	jar.SetCookies(&url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/"}, []*http.Cookie{{Name: whoCookie, Value: user, Path: "/"}})
	var callback string
	hc := &http.Client{Jar: jar, CheckRedirect: func(req *http.Request, _ []*http.Request) error {
		if strings.Contains(req.URL.Path, gateway.CallbackPath) {
			callback = req.URL.String()
			if !follow {
				return http.ErrUseLastResponse
			}
		}
		return nil
	}}
	resp, err := hc.Get(authURL)
	for range 3 {
		if err != nil || callback != "" {
			break
		}
		body := make([]byte, 64<<10)
		n, _ := resp.Body.Read(body)
		resp.Body.Close()
		page := string(body[:n])
		action := consentAction.FindStringSubmatch(page)
		if action == nil {
			t.Fatalf("no consent form on the page (%d): %.300s", resp.StatusCode, page)
		}
		form := url.Values{"decision": {"allow"}}
		for _, m := range consentField.FindAllStringSubmatch(page, -1) {
			form.Set(m[1], html.UnescapeString(m[2]))
		}
		target, _ := resp.Request.URL.Parse(html.UnescapeString(action[1]))
		resp, err = hc.PostForm(target.String(), form)
	}
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if callback == "" {
		t.Fatalf("the browser never reached the gateway's callback (status %d at %s)", resp.StatusCode, resp.Request.URL)
	}
	return resp.StatusCode, callback
}
