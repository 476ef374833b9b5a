package gateway_test

import (
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// completions are the notifications/elicitation/complete c was sent.
func completions(c *saketest.Client) []string {
	var out []string
	for _, n := range c.Notifications() {
		if n.Method == "notifications/elicitation/complete" {
			out = append(out, string(n.Params))
		}
	}
	return out
}

// TestPerUserTellsTheClientTheSignInCompleted: once the callback lands,
// the 2025-11-25 client that was asked to open the page is sent
// notifications/elicitation/complete naming that elicitation; the
// 2026-07-28 one, which has no such notification, is sent none.
func TestPerUserTellsTheClientTheSignInCompleted(t *testing.T) {
	t.Parallel()
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		remote := newAccounts(t)
		g, _, _ := perUserGateway(t, remote.url)
		var asked atomic.Int32
		ann := saketest.Connect(t, g.Server(), append(opts, saketest.Subject("ann"), signingIn(t, "ann", &asked))...)
		if _, err := ann.CallTool("accounts_sign_in", nil); err != nil {
			t.Fatal(err)
		}
		got := completions(ann)
		if ann.Session().Era == sake.EraModern {
			if len(got) != 0 {
				t.Fatalf("the modern client was sent %v", got)
			}
			return
		}
		if len(got) != 1 || !strings.HasPrefix(got[0], `{"elicitationId":"sign_in_accounts-`) {
			t.Fatalf("completions = %v, want one naming the sign-in's elicitation", got)
		}
	})
}
