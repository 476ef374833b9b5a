package sake_test

import (
	"context"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/transport"
)

// TestEncodedToolResultPassesOutcomeHooks: a Request hook given with
// ObserveOutcome sees each call's outcome and the reply, and the result
// still goes into the reply as it came; the same hook given with Observe
// has it decoded again.
func TestEncodedToolResultPassesOutcomeHooks(t *testing.T) {
	const failed = `{"isError":true,"content":[{"type":"text","text":"no\/go"}],"x-extra":2}`
	var calls, failures, replied int
	hooks := sake.Hooks{Request: func(ctx context.Context, req *sake.Request) (context.Context, func(sake.RequestDone)) {
		return nil, func(d sake.RequestDone) {
			calls++
			if d.ToolError {
				failures++
			}
			if d.Reply != nil && len(d.Reply.Body) > 0 {
				replied++
			}
		}
	}}
	call := func(srv *sake.Server) string {
		buf := make([]byte, 0, 512)
		return string(transport.Decode(srv, []byte(relayCall), nil).HandleInto(context.Background(), &buf).Body)
	}
	for _, raw := range []string{remoteResult, failed} {
		body := call(encodedServer(t, raw, sake.ObserveOutcome(hooks)))
		want := `"x-extra":true`
		if raw == failed {
			want = `{"isError":true,"content":[{"type":"text","text":"no\/go"}],"x-extra":2`
		}
		if !strings.Contains(body, want) {
			t.Errorf("observed, the result was not passed through (want %s): %s", want, body)
		}
	}
	if calls != 2 || failures != 1 || replied != 2 {
		t.Errorf("the hook saw %d calls, %d failures, %d replies, want 2, 1, 2", calls, failures, replied)
	}

	// Both kinds together: the hooks of each are called, and the
	// result is decoded for the one that may read it.
	var order []string
	named := func(name string) sake.Hooks {
		return sake.Hooks{Request: func(ctx context.Context, req *sake.Request) (context.Context, func(sake.RequestDone)) {
			order = append(order, name)
			return nil, func(sake.RequestDone) { order = append(order, name+" done") }
		}}
	}
	body := call(encodedServer(t, failed, sake.ObserveOutcome(named("outcome")), sake.Observe(named("reader"))))
	if strings.Contains(body, `x-extra`) || !strings.Contains(body, `"isError":true`) {
		t.Errorf("with an Observe Request hook the result must be decoded for it: %s", body)
	}
	if got := strings.Join(order, ", "); got != "outcome, reader, reader done, outcome done" {
		t.Errorf("hooks called in the order %s", got)
	}
}
