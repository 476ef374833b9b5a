package server_test

import (
	"context"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/auth"
	"github.com/sakemcp/sake-go/sake/auth/server"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/plug"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// adaLogin signs everyone in as ada.
type adaLogin struct{}

func (adaLogin) Current(*http.Request) (*server.Authentication, error) {
	return &server.Authentication{Subject: "ada", ACR: "urn:pwd", AuthTime: time.Now()}, nil
}
func (adaLogin) LoginURL(_ *http.Request, req server.LoginRequest) string { return req.ReturnTo }
func (adaLogin) Lookup(context.Context, string) (*server.Subject, error) {
	return &server.Subject{Active: true}, nil
}

var (
	consentAction = regexp.MustCompile(`<form method="post" action="([^"]+)"`)
	consentField  = regexp.MustCompile(`<input type="hidden" name="(request|csrf)" value="([^"]+)"`)
)

// allowingBrowser allows on the consent page and returns the redirect
// to redirectURL.
func allowingBrowser(redirectURL string) func(ctx context.Context, authURL string) (*url.URL, error) {
	jar, _ := cookiejar.New(nil)
	return func(ctx context.Context, authURL string) (*url.URL, error) {
		var got *url.URL
		hc := &http.Client{Jar: jar, CheckRedirect: func(req *http.Request, _ []*http.Request) error {
			if strings.HasPrefix(req.URL.String(), redirectURL) {
				got = req.URL
				return http.ErrUseLastResponse
			}
			return nil
		}}
		resp, err := hc.Get(authURL)
		for range 3 {
			if err != nil || got != nil {
				break
			}
			page := make([]byte, 64<<10)
			n, _ := resp.Body.Read(page)
			resp.Body.Close()
			action := consentAction.FindSubmatch(page[:n])
			if action == nil {
				return nil, fmt.Errorf("no consent form (%d): %.300s", resp.StatusCode, page[:n])
			}
			form := url.Values{"decision": {"allow"}}
			for _, m := range consentField.FindAllSubmatch(page[:n], -1) {
				form.Set(string(m[1]), html.UnescapeString(string(m[2])))
			}
			target, _ := resp.Request.URL.Parse(html.UnescapeString(string(action[1])))
			resp, err = hc.PostForm(target.String(), form)
		}
		if err != nil {
			return nil, err
		}
		if got == nil {
			return nil, errors.New("never redirected to the client")
		}
		return got, nil
	}
}

// downstream is server B: it tells who calls and through whom.
type downstream struct{ calls *atomic.Int32 }

func (downstream) Declare(d *sake.Declarations) {
	d.Tool("Whoami").Description("Says who calls, and who acts for them.").Scopes("notes:read")
}

func (d downstream) Whoami(c *sake.Context) (string, error) {
	d.calls.Add(1)
	id := c.Identity()
	var chain []string
	for _, a := range auth.Actors(id) {
		chain = append(chain, a.Subject)
	}
	return fmt.Sprintf("%s as %s via [%s] with %s", id.Subject, id.ClientID, strings.Join(chain, " "),
		strings.Join(id.Scopes, " ")), nil
}

// upstream is server A: its tools call B as their caller.
type upstream struct {
	x *server.Exchanger
	b string // B's resource
}

func (upstream) Declare(d *sake.Declarations) {
	d.Tool("Report").Description("Asks B who calls.").Scopes("notes:read")
	d.Tool("Escalate").Description("Asks B with a scope the caller lacks.").Scopes("notes:read")
}

func (u upstream) call(c *sake.Context, scopes ...string) (string, error) {
	cl, err := client.Connect(c, client.HTTP(u.b, nil, client.WithAuthorizer(u.x.For(c.Identity(), u.b, scopes...))))
	if err != nil {
		return "", err
	}
	defer cl.Close()
	res, err := cl.CallTool(c, "whoami", nil)
	if err != nil {
		return "", err
	}
	return "B says: " + res.Text(), nil
}

func (u upstream) Report(c *sake.Context) (string, error)   { return u.call(c, "notes:read") }
func (u upstream) Escalate(c *sake.Context) (string, error) { return u.call(c, "notes:write") }

func TestTokenExchangeEndToEnd(t *testing.T) {
	t.Parallel()
	for _, era := range []struct {
		name string
		opts []client.Option
	}{{"negotiated", nil}, {"legacy", []client.Option{client.ProtocolVersion(protocol.LegacyVersion)}}} {
		t.Run(era.name, func(t *testing.T) {
			t.Parallel()
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			base := "http://" + ln.Addr().String()
			resA, resB := base+"/a/mcp", base+"/b/mcp"
			secret := "the-secret-of-server-a-0123456789"
			hash, _ := server.HashSecret(secret)
			as, err := server.New(server.Config{Issuer: base, Login: adaLogin{}, Resources: []string{resA, resB},
				Scopes: []server.Scope{{Name: "notes:read"}, {Name: "notes:write"}},
				Clients: []server.Client{{ID: "server-a", SecretHash: hash,
					GrantTypes: []string{server.GrantTokenExchange}, ExchangeFrom: []string{resA}}}})
			if err != nil {
				t.Fatal(err)
			}
			r := chi.NewRouter()
			as.Mount(r)
			var bCalls atomic.Int32
			x := &server.Exchanger{TokenEndpoint: as.Metadata().TokenEndpoint, ClientID: "server-a", ClientSecret: secret}
			for _, s := range []struct {
				res  string
				impl any
			}{{resA, upstream{x: x, b: resB}}, {resB, downstream{calls: &bCalls}}} {
				v, err := as.Verifier(s.res)
				if err != nil {
					t.Fatal(err)
				}
				r.Handle(auth.WellKnownPath(s.res), as.ResourceMetadata(s.res, "notes:read").Handler())
				h := plug.New(sake.MustNew(s.impl), plug.Authorization(v, auth.MetadataURL(s.res), "notes:read"))
				t.Cleanup(func() { h.Close() })
				r.Handle(strings.TrimPrefix(s.res, base), h)
			}
			ts := httptest.NewUnstartedServer(r)
			ts.Listener.Close()
			ts.Listener = ln
			ts.Start()
			t.Cleanup(ts.Close)

			redirect := "http://127.0.0.1:9/callback"
			cfg := client.OAuthConfig{Browser: allowingBrowser(redirect), RedirectURL: redirect, Scopes: []string{"notes:read"}}
			c, err := client.Connect(t.Context(), client.HTTP(resA, nil, client.WithAuthorizer(client.OAuth(cfg))), era.opts...)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()

			res, err := c.CallTool(t.Context(), "report", nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Text(); !strings.HasPrefix(got, "B says: ada as server-a via [server-a] with notes:read") || res.IsError {
				t.Fatalf("report: %q", got)
			}
			if bCalls.Load() != 1 {
				t.Fatalf("B was called %d times", bCalls.Load())
			}

			// A scope the caller's token lacks: the exchange is refused,
			// and B is never called.
			res, err = c.CallTool(t.Context(), "escalate", nil)
			if err == nil && !res.IsError {
				t.Fatalf("escalate succeeded: %q", res.Text())
			}
			msg := fmt.Sprint(err)
			if res != nil {
				msg += res.Text()
			}
			if !strings.Contains(msg, "invalid_scope") {
				t.Fatalf("escalate: %s, want the exchange's invalid_scope", msg)
			}
			if bCalls.Load() != 1 {
				t.Fatalf("B was called with a refused exchange (%d calls): %s", bCalls.Load(), msg)
			}
		})
	}
}

func TestExchangerWithoutCallerToken(t *testing.T) {
	t.Parallel()
	x := &server.Exchanger{TokenEndpoint: "http://127.0.0.1:9/token", ClientID: "rs"}
	a := x.For(&sake.Identity{Subject: "ada"}, "https://b.example/mcp")
	req, _ := http.NewRequest(http.MethodPost, "https://b.example/mcp", nil)
	if err := a.Authorize(t.Context(), req); !errors.Is(err, server.ErrNoCallerToken) {
		t.Fatalf("Authorize = %v, want ErrNoCallerToken", err)
	}
	if req.Header.Get("Authorization") != "" {
		t.Fatal("a request was authorized without a caller token")
	}
}
