package saketest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/plug"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// The same questions work through the real HTTP stack: modern rounds as
// retries, legacy requests on the POST's stream answered by later POSTs.
func TestQuestionsThroughTheHTTPStack(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, era saketest.Option) {
		srv := sake.MustNew(interview{})
		h := plug.New(srv)
		t.Cleanup(h.Close)
		mux := http.NewServeMux()
		mux.Handle("/mcp", h)
		c := saketest.Connect(t, srv, era, saketest.Handler(mux, "/mcp"),
			saketest.OnInput(func(p protocol.ElicitRequest) protocol.ElicitResult {
				if p.Message == "Name?" {
					return saketest.Accept(map[string]any{"name": "Ana"})
				}
				return saketest.Accept(map[string]any{"color": "green"})
			}),
			saketest.SamplingText("Paris"),
			saketest.Roots(sake.Root{URI: "file:///x"}))
		res, err := c.CallTool("steps", nil)
		if err != nil || res.Text() != "Ana likes green" {
			t.Fatalf("steps = %v, %v", res, err)
		}
		res, err = c.CallTool("survey", nil)
		if err != nil || res.Text() != "Ana|Paris|1 roots" {
			t.Fatalf("survey = %v, %v", res, err)
		}
		saketest.AssertAsked(t, c, "roots/list", nil)
	})
}

// A panic in a tool served through the host's stack fails the test, as
// in memory, and once: the stack's server reports it through the
// request's context.
func TestPanicThroughTheHTTPStackFailsTheTest(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, era saketest.Option) {
		srv := sake.MustNew(bomb{})
		h := plug.New(srv)
		t.Cleanup(h.Close)
		p := &panicTB{T: t, helpers: map[string]bool{}}
		c := saketest.Connect(p, srv, era, saketest.Handler(h, "/mcp"))
		res, err := c.CallTool("boom", nil)
		if err == nil && (res == nil || !res.IsError) {
			t.Errorf("a panicking tool answered %v", res)
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		if len(p.errs) != 1 || !strings.Contains(p.errs[0], "kaboom") {
			t.Fatalf("reported %d errors: %q; want the panic, once", len(p.errs), p.errs)
		}
	})
}
