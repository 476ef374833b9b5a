package gateway_test

import (
	"slices"
	"sync/atomic"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// TestPerUserFollowsTheRemotesToolChanges: a tool the remote adds while
// a user's session is open (tools/list_changed) reaches that user's list,
// with the gateway's callers told, and answers their calls; one it
// removes leaves their list.
func TestPerUserFollowsTheRemotesToolChanges(t *testing.T) {
	t.Parallel()
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		remote := newAccounts(t)
		g, _, _ := perUserGateway(t, remote.url)
		var asked atomic.Int32
		ann := saketest.Connect(t, g.Server(), append(opts, saketest.Subject("ann"), signingIn(t, "ann", &asked))...)
		if _, err := ann.CallTool("accounts_sign_in", nil); err != nil {
			t.Fatal(err)
		}
		if slices.Contains(names(t, ann), "accounts_greet") {
			t.Fatal("greet listed before the remote has it")
		}
		if err := remote.srv.AddTool(sake.NewTool("greet", func(c *sake.Context) (string, error) {
			return "hello " + c.Identity().Subject, nil
		}).Description("Greets the caller.")); err != nil {
			t.Fatal(err)
		}
		until(t, g.Server(), "ann's list shows greet", func() bool { return slices.Contains(names(t, ann), "accounts_greet") })
		if res, err := ann.CallTool("accounts_greet", nil); err != nil || res.Text() != "hello ann" {
			t.Fatalf("greet: %v, %v", res, err)
		}
		remote.srv.RemoveTool("greet")
		until(t, g.Server(), "greet leaves ann's list", func() bool { return !slices.Contains(names(t, ann), "accounts_greet") })
		if _, err := ann.CallTool("accounts_greet", nil); err == nil {
			t.Fatal("a tool the remote removed answered")
		}
		if asked.Load() != 1 {
			t.Fatalf("asked %d times", asked.Load())
		}
	})
}
