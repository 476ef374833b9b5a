package main

import (
	"encoding/json"
	"errors"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake/auth/server"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// browser is a cookie-keeping HTTP client that does not follow redirects,
// standing in for a person's browser.
type browser struct {
	t      *testing.T
	client *http.Client
	base   string
}

func startApp(t *testing.T) (*App, *browser) {
	t.Helper()
	ts := httptest.NewUnstartedServer(nil)
	issuer := "http://" + ts.Listener.Addr().String()
	app, err := NewApp(issuer, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	ts.Config.Handler = app.Router
	ts.Start()
	t.Cleanup(ts.Close)
	jar, _ := cookiejar.New(nil)
	return app, &browser{t: t, base: issuer, client: &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (b *browser) do(req *http.Request) (*http.Response, string) {
	b.t.Helper()
	resp, err := b.client.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}

func (b *browser) get(u string) (*http.Response, string) {
	if strings.HasPrefix(u, "/") {
		u = b.base + u
	}
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	return b.do(req)
}

func (b *browser) post(u string, form url.Values) (*http.Response, string) {
	if strings.HasPrefix(u, "/") {
		u = b.base + u
	}
	req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return b.do(req)
}

var inputRE = regexp.MustCompile(`<input type="hidden" name="([a-z_]+)" value="([^"]*)">`)

func hiddenFields(page string) url.Values {
	v := url.Values{}
	for _, m := range inputRE.FindAllStringSubmatch(page, -1) {
		v.Set(m[1], html.UnescapeString(m[2]))
	}
	return v
}

const callback = "http://127.0.0.1:5555/callback"

// authorize runs the browser part: authorization request, login (with
// the one-time code when otp is set), consent if asked; it returns the
// code.
func (b *browser) authorize(extra url.Values, otp string, verifierChallenge string) string {
	b.t.Helper()
	q := url.Values{"response_type": {"code"}, "client_id": {DemoClientID}, "redirect_uri": {callback},
		"code_challenge": {verifierChallenge}, "code_challenge_method": {"S256"}, "state": {"xyz"},
		"resource": {b.base + "/mcp"}}
	for k, v := range extra {
		q[k] = v
	}
	resp, _ := b.get("/oauth/authorize?" + q.Encode())
	for range 5 {
		loc := resp.Header.Get("Location")
		switch {
		case resp.StatusCode == http.StatusOK:
			// The consent page.
			_, page := b.get(resp.Request.URL.String())
			f := hiddenFields(page)
			f.Set("decision", "allow")
			resp, _ = b.post("/oauth/consent", f)
		case strings.HasPrefix(loc, "/login"):
			lu, _ := url.Parse(loc)
			_, page := b.get(loc)
			if lu.Query().Get("mfa") == "1" && !strings.Contains(page, "needs a multi-factor sign-in") {
				b.t.Fatal("the login page does not ask for the second factor")
			}
			form := url.Values{"username": {DemoUser}, "password": {DemoPassword}, "return": {lu.Query().Get("return")}}
			if otp != "" {
				form.Set("otp", otp)
			}
			resp, _ = b.post("/login", form)
		case strings.HasPrefix(loc, callback):
			cu, _ := url.Parse(loc)
			if e := cu.Query().Get("error"); e != "" {
				b.t.Fatalf("authorization error %s: %s", e, cu.Query().Get("error_description"))
			}
			return cu.Query().Get("code")
		case loc != "":
			resp, _ = b.get(loc)
		default:
			b.t.Fatalf("stuck at %d", resp.StatusCode)
		}
	}
	b.t.Fatal("too many steps")
	return ""
}

func (b *browser) token(form url.Values) map[string]any {
	b.t.Helper()
	form.Set("client_id", DemoClientID)
	resp, body := b.post("/oauth/token", form)
	var m map[string]any
	_ = json.Unmarshal([]byte(body), &m)
	if resp.StatusCode != 200 {
		b.t.Fatalf("token: %d %s", resp.StatusCode, body)
	}
	return m
}

func pkcePair() (string, string) {
	v := strings.Repeat("v", 20) + "-verifier-" + strings.Repeat("x", 20)
	return v, server.S256(v)
}

func TestWholeFlowWithStepUp(t *testing.T) {
	t.Parallel()
	app, b := startApp(t)
	verifier, challenge := pkcePair()
	code := b.authorize(nil, "", challenge)
	tok := b.token(url.Values{"grant_type": {"authorization_code"}, "code": {code}, "code_verifier": {verifier},
		"redirect_uri": {callback}, "resource": {app.Resource}})
	connect := func(token string) *saketest.Client {
		return saketest.Connect(t, app.MCP, saketest.Handler(app.Router, "/mcp"), saketest.BaseURL(b.base),
			saketest.Header("Authorization", "Bearer "+token))
	}
	c := connect(tok["access_token"].(string))
	if _, err := c.CallTool("add_note", map[string]any{"text": "buy tea"}); err != nil {
		t.Fatal(err)
	}
	res, err := c.CallTool("whoami", nil)
	if err != nil || !strings.Contains(res.Text(), "subject=alice") || !strings.Contains(res.Text(), "acr="+Password) {
		t.Fatalf("whoami: %v %v", res, err)
	}
	// Deleting needs a multi-factor sign-in: the server challenges...
	_, err = c.CallTool("delete_all_notes", nil)
	var ae *protocol.InsufficientAuthenticationError
	if !errors.As(err, &ae) || len(ae.ACRValues) != 1 || ae.ACRValues[0] != MFA || ae.MaxAge == nil {
		t.Fatalf("delete without MFA: %v", err)
	}
	// ...and the authorization request with acr_values makes the login
	// ask for the one-time code.
	verifier, challenge = pkcePair()
	code = b.authorize(url.Values{"acr_values": {MFA}, "max_age": {"600"}}, DemoCode, challenge)
	tok2 := b.token(url.Values{"grant_type": {"authorization_code"}, "code": {code}, "code_verifier": {verifier},
		"redirect_uri": {callback}, "resource": {app.Resource}})
	res, err = connect(tok2["access_token"].(string)).CallTool("delete_all_notes", nil)
	if err != nil || !strings.Contains(res.Text(), "Deleted 1 notes") {
		t.Fatalf("delete with MFA: %v %v", res, err)
	}
	// Refresh rotates; a disabled account gets no more tokens.
	tok3 := b.token(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok["refresh_token"].(string)}})
	if tok3["access_token"] == nil || tok3["refresh_token"] == tok["refresh_token"] {
		t.Fatalf("refresh: %v", tok3)
	}
	app.Accounts.SetActive(DemoUser, false)
	resp, body := b.post("/oauth/token", url.Values{"grant_type": {"refresh_token"}, "client_id": {DemoClientID},
		"refresh_token": {tok3["refresh_token"].(string)}})
	if resp.StatusCode != 400 || !strings.Contains(body, "invalid_grant") {
		t.Fatalf("refresh of a disabled account: %d %s", resp.StatusCode, body)
	}
}

func TestLoginRefusesWrongPasswordAndForeignReturn(t *testing.T) {
	t.Parallel()
	_, b := startApp(t)
	resp, body := b.post("/login", url.Values{"username": {DemoUser}, "password": {"nope"}, "return": {"/"}})
	if resp.StatusCode != 401 || !strings.Contains(body, "Wrong username or password") {
		t.Fatalf("%d", resp.StatusCode)
	}
	resp, _ = b.post("/login", url.Values{"username": {DemoUser}, "password": {DemoPassword}, "return": {"https://evil.example/"}})
	if loc := resp.Header.Get("Location"); loc != "/" {
		t.Fatalf("open redirect after login: %q", loc)
	}
	resp, _ = b.post("/login", url.Values{"username": {DemoUser}, "password": {DemoPassword}, "otp": {"000000"}, "return": {"/"}})
	if resp.StatusCode != 401 {
		t.Fatalf("wrong one-time code: %d", resp.StatusCode)
	}
}

func TestUnauthenticatedMCPGetsChallenge(t *testing.T) {
	t.Parallel()
	app, b := startApp(t)
	req, _ := http.NewRequest(http.MethodPost, app.Resource, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, _ := b.do(req)
	ch := resp.Header.Get("WWW-Authenticate")
	if resp.StatusCode != 401 || !strings.Contains(ch, `resource_metadata="`+b.base+`/.well-known/oauth-protected-resource/mcp"`) {
		t.Fatalf("%d %q", resp.StatusCode, ch)
	}
	_, prm := b.get("/.well-known/oauth-protected-resource/mcp")
	if !strings.Contains(prm, `"authorization_servers":["`+b.base+`"]`) {
		t.Fatal(prm)
	}
}

// callbackListener is a client's loopback redirect URI; it hands over the
// query of the first request.
func callbackListener(t *testing.T) (string, <-chan map[string][]string) {
	got := make(chan map[string][]string, 1)
	cb := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case got <- r.URL.Query():
		default:
		}
		_, _ = io.WriteString(w, "<!doctype html><title>done</title><p>Signed in.</p>")
	}))
	t.Cleanup(cb.Close)
	return cb.URL + "/callback", got
}
