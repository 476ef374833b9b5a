package sake_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// TestElicitURLCompletable: in 2025-11-25 complete sends
// notifications/elicitation/complete with the id of the elicitation the
// client was asked, once however often it is called; in 2026-07-28 it
// sends nothing.
func TestElicitURLCompletable(t *testing.T) {
	t.Parallel()
	eras(t, func(t *testing.T, era saketest.Option) {
		srv := sake.MustNew(nil)
		var modern sync.Map // "era": whether the tool ran in the modern era
		if err := srv.AddTool(sake.NewTool("link", func(c *sake.Context) (string, error) {
			modern.Store("era", c.Request().Era == sake.EraModern)
			action, complete, err := c.ElicitURLCompletable("link", "Connect your account", "https://example.com/connect")
			if err != nil {
				return "", err
			}
			complete()
			complete()
			return string(action), nil
		})); err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		var asked string
		c := saketest.Connect(t, srv, era, saketest.OnInput(func(p protocol.ElicitRequest) protocol.ElicitResult {
			mu.Lock()
			asked = p.ElicitationID
			mu.Unlock()
			return protocol.ElicitResult{Action: sake.Accept}
		}))
		if res, err := c.CallTool("link", nil); err != nil || res.Text() != "accept" {
			t.Fatalf("link = %v, %v", res, err)
		}
		var completes []string
		for _, n := range c.Notifications() {
			if n.Method == "notifications/elicitation/complete" {
				completes = append(completes, string(n.Params))
			}
		}
		mu.Lock()
		defer mu.Unlock()
		if m, _ := modern.Load("era"); m == true {
			if len(completes) != 0 {
				t.Fatalf("the modern era was sent %v", completes)
			}
			return
		}
		if len(completes) != 1 || !strings.HasPrefix(completes[0], `{"elicitationId":"link-`) || (asked != "" && completes[0] != `{"elicitationId":"`+asked+`"}`) {
			t.Fatalf("completions = %v, want once, naming the elicitation %q", completes, asked)
		}
	})
}
