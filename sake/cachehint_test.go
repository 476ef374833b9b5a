package sake_test

import (
	"context"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// hinted has a read-only tool, a tool that changes things, a read-only
// tool that needs a scope, and a resource.
type hinted struct{}

func (hinted) Look(ctx *sake.Context) (string, error)    { return "seen", nil }
func (hinted) Change(ctx *sake.Context) (string, error)  { return "changed", nil }
func (hinted) Secret(ctx *sake.Context) (string, error)  { return "secret", nil }
func (hinted) Page(ctx *sake.Context) (string, error)    { return "page", nil }
func (hinted) Private(ctx *sake.Context) (string, error) { return "private", nil }

func (hinted) Declare(d *sake.Declarations) {
	d.Tool("Look").ReadOnly()
	d.Tool("Secret").ReadOnly().Scopes("secret:read")
	d.Resource("Page", "test://page")
	d.Resource("Private", "test://private").Scopes("secret:read")
}

// CacheHint answers for read-only tools and resources the caller may use,
// and for nothing else: a cache that asks it never serves a caller the
// handler would refuse.
func TestCacheHint(t *testing.T) {
	var got map[string]bool
	var hints map[string]sake.CacheHint
	probe := func(next sake.Handler) sake.Handler {
		return func(ctx context.Context, req *sake.Request) (any, error) {
			if req.Server() == nil {
				t.Errorf("%s: the request does not know its server", req.Method)
			}
			h, ok := req.Server().CacheHint(req)
			key := req.Params.Name + req.Params.URI
			got[key], hints[key] = ok, h
			return next(ctx, req)
		}
	}
	srv := sake.MustNew(hinted{}, sake.Use(probe), sake.CacheHints(0, 5*time.Second, "private"))
	for _, scopes := range [][]string{nil, {"secret:read"}} {
		got, hints = map[string]bool{}, map[string]sake.CacheHint{}
		c := saketest.Connect(t, srv, saketest.Scopes(scopes...), saketest.Subject("alice"))
		for _, tool := range []string{"look", "change", "secret", "missing"} {
			_, _ = c.CallTool(tool, nil)
		}
		for _, uri := range []string{"test://page", "test://private", "test://missing"} {
			_, _ = c.ReadResource(uri)
		}
		allowed := len(scopes) > 0
		want := map[string]bool{"look": true, "change": false, "secret": allowed, "missing": false,
			"test://page": true, "test://private": allowed, "test://missing": false}
		for k, w := range want {
			if got[k] != w {
				t.Errorf("scopes %v: CacheHint(%s) = %v, want %v", scopes, k, got[k], w)
			}
		}
		if h := hints["test://page"]; h.Kind != "resource" || h.TTL != 5*time.Second || h.Scope != "private" {
			t.Errorf("resource hint = %+v", h)
		}
		if h := hints["look"]; h.Kind != "tool" || h.TTL != 0 || h.Scope != "" {
			t.Errorf("tool hint = %+v", h)
		}
	}
}
