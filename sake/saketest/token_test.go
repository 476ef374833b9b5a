package saketest_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/auth"
	"github.com/sakemcp/sake-go/sake/plug"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// BothEras returns once both eras have run: assertions written after it
// see what the subtests did.
func TestBothErasReturnsAfterItsSubtests(t *testing.T) {
	t.Parallel()
	var ran atomic.Int32
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		c := saketest.Connect(t, vault{}, opts...)
		if _, err := c.CallTool("whoami", nil); err != nil {
			t.Error(err)
		}
		ran.Add(1)
	})
	if n := ran.Load(); n != 2 {
		t.Fatalf("after BothEras, %d of the 2 subtests have run", n)
	}
}

// Subject, ClientID, ACR and AuthTime describe a token: each gives the
// client one, without scopes, so that components are gated as for such a
// caller and see its identity.
func TestTokenOptionsImplyAToken(t *testing.T) {
	t.Parallel()
	signedIn := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for name, tc := range map[string]struct {
		opt   saketest.Option
		check func(*sake.Identity) bool
	}{
		"Subject":  {saketest.Subject("alice"), func(id *sake.Identity) bool { return id.Subject == "alice" }},
		"ClientID": {saketest.ClientID("cli"), func(id *sake.Identity) bool { return id.ClientID == "cli" }},
		"ACR":      {saketest.ACR("urn:mfa"), func(id *sake.Identity) bool { return id.ACR == "urn:mfa" }},
		"AuthTime": {saketest.AuthTime(signedIn), func(id *sake.Identity) bool { return id.AuthTime.Equal(signedIn) }},
		"Claims":   {saketest.Claims(map[string]any{"role": "staff"}), func(id *sake.Identity) bool { return id.Claims["role"] == "staff" }},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var seen atomic.Pointer[sake.Identity]
			srv := sake.MustNew(vault{})
			if err := srv.AddTool(sake.NewTool("me", func(ctx *sake.Context) (string, error) {
				seen.Store(ctx.Identity())
				return "ok", nil
			})); err != nil {
				t.Fatal(err)
			}
			c := saketest.Connect(t, srv, tc.opt)
			if _, err := c.CallTool("me", nil); err != nil {
				t.Fatal(err)
			}
			if id := seen.Load(); id == nil || !id.FromToken || len(id.Scopes) != 0 || !tc.check(id) {
				t.Fatalf("identity = %+v, want a token without scopes as the option says", id)
			}
			_, err := c.CallTool("read", nil)
			var se *protocol.InsufficientScopeError
			if !errors.As(err, &se) {
				t.Fatalf("read without its scope = %v, want insufficient scope", err)
			}
		})
	}
}

// The examples of docs/composing.md that read claims, tested in memory:
// a hidden tenant computed from the token, and a list policy by role.
type docShop struct{}

type docRefundArgs struct {
	Order  string `json:"order"`
	Tenant string `json:"tenant"`
}

func (docShop) Declare(d *sake.Declarations) {
	d.Tool("Refund").Tags("admin")
	d.Tool("Status")
}

func (docShop) Refund(_ *sake.Context, a docRefundArgs) (string, error) {
	return fmt.Sprintf("refunded %s for %s", a.Order, a.Tenant), nil
}

func (docShop) Status(*sake.Context) (string, error) { return "all good", nil }

func docServer(t *testing.T) *sake.Server {
	t.Helper()
	srv := sake.MustNew(docShop{}, sake.PerCallerLists(func(req *sake.Request, c sake.ComponentInfo) bool {
		if slices.Contains(c.Tags, "admin") {
			return req.Identity != nil && req.Identity.Claims["role"] == "staff"
		}
		return true
	}))
	err := srv.Transform(sake.Transform{Tool: "refund", Args: map[string]sake.ArgTransform{
		"tenant": {ValueFunc: func(c *sake.Context) (any, error) {
			id := c.Identity()
			if id == nil || id.Claims["tenant"] == nil {
				return nil, errors.New("sign in with an account that belongs to a tenant")
			}
			return id.Claims["tenant"], nil
		}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

func TestClaimsReachComponents(t *testing.T) {
	t.Parallel()
	secret := []byte("a test secret of at least 32 bytes!")
	iss := &auth.Issuer{Issuer: "https://issuer.test", Secret: secret, Audience: "http://example.com/mcp"}
	v, err := auth.NewJWTVerifier(auth.JWTConfig{Issuer: iss.Issuer, Audience: []string{iss.Audience}, HMACSecret: secret})
	if err != nil {
		t.Fatal(err)
	}
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		srv := docServer(t)
		h := plug.New(srv, plug.Authorization(v, "http://example.com/.well-known/oauth-protected-resource/mcp"))
		t.Cleanup(h.Close)
		for _, via := range []struct {
			name string
			opts []saketest.Option
		}{
			{"in memory", nil},
			{"through HTTP", []saketest.Option{saketest.Handler(h, "/mcp"), saketest.TokenIssuer(iss)}},
		} {
			staff := saketest.Connect(t, srv, slices.Concat(opts, via.opts, []saketest.Option{
				saketest.Subject("ann"), saketest.Claims(map[string]any{"role": "staff", "tenant": "acme"})})...)
			guest := saketest.Connect(t, srv, slices.Concat(opts, via.opts, []saketest.Option{
				saketest.Subject("bob"), saketest.Claims(map[string]any{"tenant": "globex"})})...)
			res, err := staff.CallTool("refund", map[string]any{"order": "A1"})
			if err != nil || res.Text() != "refunded A1 for acme" {
				t.Errorf("%s: staff's refund = %v, %v", via.name, res, err)
			}
			tools, err := guest.ListTools()
			if err != nil || len(tools) != 1 || tools[0].Name != "status" {
				t.Errorf("%s: guest's tools = %+v, %v", via.name, tools, err)
			}
			var e *sake.Error
			if _, err := guest.CallTool("refund", map[string]any{"order": "A1"}); !errors.As(err, &e) || !strings.Contains(e.Message, "Unknown tool") {
				t.Errorf("%s: guest's refund = %v, want unknown", via.name, err)
			}
		}
	})
}

// Claims may not set what the other options set.
func TestClaimsRefusesTheTokensOwnClaims(t *testing.T) {
	t.Parallel()
	ft := &fatalRecorder{T: t}
	func() {
		defer func() { _ = recover() }()
		saketest.Connect(ft, vault{}, saketest.Claims(map[string]any{"sub": "mallory"}))
	}()
	if !strings.Contains(ft.msg, `Claims sets "sub"`) || !strings.Contains(ft.msg, "Subject") {
		t.Fatalf("Connect with Claims{sub} = %q, want it refused naming Subject", ft.msg)
	}
}

// fatalRecorder records a Fatal and stops the calling function there.
type fatalRecorder struct {
	*testing.T
	msg string
}

func (f *fatalRecorder) Fatal(args ...any) { f.msg = fmt.Sprint(args...); panic(f) }
func (f *fatalRecorder) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	panic(f)
}

// Over HTTP, completing a prompt the caller may not get is the same 403
// challenge as getting it.
func TestCompletionOfAScopedPromptIsChallengedOverHTTP(t *testing.T) {
	t.Parallel()
	const resource = "http://example.com/mcp"
	const metadata = "http://example.com/.well-known/oauth-protected-resource/mcp"
	secret := []byte("a test secret of at least 32 bytes!")
	iss := &auth.Issuer{Issuer: "https://issuer.test", Secret: secret, Audience: resource}
	v, err := auth.NewJWTVerifier(auth.JWTConfig{Issuer: iss.Issuer, Audience: []string{resource}, HMACSecret: secret})
	if err != nil {
		t.Fatal(err)
	}
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		srv := sake.MustNew(nil)
		err := srv.AddPrompt(sake.NewPrompt("audit", func(_ *sake.Context, a struct {
			Ledger string `json:"ledger"`
		}) (string, error) {
			return a.Ledger, nil
		}).Scopes("vault:audit").Complete("ledger", func(*sake.Context, sake.CompleteRequest) ([]string, error) {
			return []string{"secret-ledger"}, nil
		}))
		if err != nil {
			t.Fatal(err)
		}
		h := plug.New(srv, plug.Authorization(v, metadata))
		t.Cleanup(h.Close)
		c := saketest.Connect(t, srv, append(opts, saketest.Handler(h, "/mcp"), saketest.TokenIssuer(iss), saketest.Subject("ana"))...)
		_, getErr := c.GetPrompt("audit", map[string]string{"ledger": "x"})
		got, err := c.Complete(protocol.PromptRef("audit"), "ledger", "", nil)
		var se, getSE *protocol.InsufficientScopeError
		if !errors.As(err, &se) || !errors.As(getErr, &getSE) || se.ResourceMetadata != metadata || strings.Join(se.Scopes, " ") != "vault:audit" {
			t.Fatalf("completion = %+v, %#v; prompts/get = %#v; want the same insufficient-scope challenge", got, err, getErr)
		}
		var he *saketest.HTTPError
		if errors.As(err, &he) && he.StatusCode != 403 {
			t.Errorf("status = %d, want 403", he.StatusCode)
		}
	})
}

// A claim's value reaches components as a verified token's JSON gives it,
// in memory as over HTTP.
func TestClaimsAreJSONValues(t *testing.T) {
	t.Parallel()
	var got atomic.Value
	srv := sake.MustNew(nil)
	if err := srv.AddTool(sake.NewTool("level", func(ctx *sake.Context) (string, error) {
		got.Store(ctx.Identity().Claims["level"])
		return "ok", nil
	})); err != nil {
		t.Fatal(err)
	}
	c := saketest.Connect(t, srv, saketest.Claims(map[string]any{"level": 3}))
	if _, err := c.CallTool("level", nil); err != nil {
		t.Fatal(err)
	}
	if v, ok := got.Load().(float64); !ok || v != 3 {
		t.Fatalf("level = %#v, want float64 3 as a token's JSON gives it", got.Load())
	}
	ft := &fatalRecorder{T: t}
	func() {
		defer func() { _ = recover() }()
		saketest.Connect(ft, srv, saketest.Claims(map[string]any{"bad": make(chan int)}))
	}()
	if !strings.Contains(ft.msg, "saketest: Claims: json: unsupported type") {
		t.Fatalf("Connect with a claim JSON cannot encode = %q", ft.msg)
	}
}
