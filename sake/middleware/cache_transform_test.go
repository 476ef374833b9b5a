package middleware_test

import (
	"errors"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/middleware"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// ledger answers with the invoices of the tenant it is given.
type ledger struct{ lib *library }

type invoiceArgs struct {
	Tenant string `json:"tenant"`
	Year   int    `json:"year,omitempty"`
}

func (l ledger) Invoices(ctx *sake.Context, a invoiceArgs) (string, error) {
	l.lib.ran("invoices")
	return "invoices of " + a.Tenant, nil
}

func (ledger) Declare(d *sake.Declarations) { d.Tool("Invoices").ReadOnly() }

// A read-only tool whose hidden argument is computed from the caller (the
// tenant, as docs/composing.md shows) is not cached: the same subject in
// another tenant gets its own tenant's result, never the first one's. A
// hidden argument with a fixed value is the same for every caller, and
// the tool is cached as before.
func TestCacheSkipsToolsWithComputedArguments(t *testing.T) {
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		lib := newLibrary()
		mw, err := middleware.Cache{}.Middleware()
		if err != nil {
			t.Fatal(err)
		}
		srv := sake.MustNew(ledger{lib}, sake.Use(mw), sake.Logger(quiet))
		err = srv.Transform(sake.Transform{Tool: "invoices", Args: map[string]sake.ArgTransform{
			"tenant": {ValueFunc: func(c *sake.Context) (any, error) {
				tenant, _ := c.Identity().Principal.(string)
				if tenant == "" {
					return nil, errors.New("sign in with an account that belongs to a tenant")
				}
				return tenant, nil
			}},
		}})
		if err != nil {
			t.Fatal(err)
		}
		acme := saketest.Connect(t, srv, append(as(opts, "alice"), saketest.Principal("acme"))...)
		globex := saketest.Connect(t, srv, append(as(opts, "alice"), saketest.Principal("globex"))...)
		if got := callText(t, acme, "invoices", map[string]any{"year": 2026}); got != "invoices of acme" {
			t.Fatalf("acme: %q", got)
		}
		if got := callText(t, globex, "invoices", map[string]any{"year": 2026}); got != "invoices of globex" {
			t.Fatalf("the same subject in another tenant got %q", got)
		}
		if got := callText(t, acme, "invoices", map[string]any{"year": 2026}); got != "invoices of acme" || lib.Runs("invoices") != 3 {
			t.Fatalf("acme again: %q after %d runs, want every call run", got, lib.Runs("invoices"))
		}

		// A fixed hidden value does not depend on the caller: cached.
		fixed := sake.MustNew(ledger{lib}, sake.Use(mw), sake.Logger(quiet))
		if err := fixed.Transform(sake.Transform{Tool: "invoices", Args: map[string]sake.ArgTransform{"tenant": {Value: "acme"}}}); err != nil {
			t.Fatal(err)
		}
		c := saketest.Connect(t, fixed, as(opts, "alice")...)
		before := lib.Runs("invoices")
		callText(t, c, "invoices", map[string]any{"year": 2026})
		callText(t, c, "invoices", map[string]any{"year": 2026})
		if runs := lib.Runs("invoices") - before; runs != 1 {
			t.Errorf("a tool with a fixed hidden value ran %d times for two equal calls, want 1", runs)
		}
	})
}
