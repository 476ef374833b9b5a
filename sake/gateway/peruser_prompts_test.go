package gateway_test

import (
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// TestPerUserPromptsRunAsEachUser: a per-user remote's prompts are
// listed to a user once their session listed them and got in their own
// session (the remote sees their subject); a caller not signed in is
// listed none and told to sign in, and the remote hears nothing of them.
// A prompt the remote adds later (prompts/list_changed) reaches the
// user's list.
func TestPerUserPromptsRunAsEachUser(t *testing.T) {
	t.Parallel()
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		remote := newAccounts(t)
		var asSubjects atomic.Value
		asSubjects.Store("")
		greeting := func(name string) *sake.PromptDef {
			return sake.NewPrompt(name, func(c *sake.Context, _ map[string]string) (*sake.PromptResult, error) {
				asSubjects.Store(asSubjects.Load().(string) + c.Identity().Subject + " ")
				return &sake.PromptResult{Messages: []sake.PromptMessage{{Role: "user", Content: &sake.TextContent{Text: "hello " + c.Identity().Subject}}}}, nil
			}).Description("Greets the caller.")
		}
		if err := remote.srv.AddPrompt(greeting("greeting")); err != nil {
			t.Fatal(err)
		}
		g, _, _ := perUserGateway(t, remote.url)
		var asked atomic.Int32
		ann := saketest.Connect(t, g.Server(), append(opts, saketest.Subject("ann"), signingIn(t, "ann", &asked))...)
		bob := saketest.Connect(t, g.Server(), append(opts, saketest.Subject("bob"), signingIn(t, "bob", &asked))...)
		if _, err := ann.CallTool("accounts_sign_in", nil); err != nil {
			t.Fatal(err)
		}
		if got := promptNames(t, ann); !slices.Equal(got, []string{"accounts_greeting"}) {
			t.Fatalf("ann's prompts = %v", got)
		}
		res, err := ann.GetPrompt("accounts_greeting", nil)
		if err != nil || len(res.Messages) != 1 || !strings.Contains(textOf(res.Messages[0].Content), "hello ann") {
			t.Fatalf("ann's greeting = %+v, %v", res, err)
		}
		if got := promptNames(t, bob); len(got) != 0 {
			t.Fatalf("bob, not signed in, is listed %v", got)
		}
		if _, err := bob.GetPrompt("accounts_greeting", nil); err == nil || !strings.Contains(err.Error(), "sign_in") {
			t.Fatalf("bob's greeting: %v, want to be told to sign in", err)
		}
		if got := asSubjects.Load().(string); got != "ann " {
			t.Fatalf("the remote's prompt ran as %q", got)
		}
		if err := remote.srv.AddPrompt(greeting("farewell")); err != nil {
			t.Fatal(err)
		}
		until(t, g.Server(), "ann's prompts show farewell", func() bool { return slices.Contains(promptNames(t, ann), "accounts_farewell") })
	})
}

func promptNames(t *testing.T, c *saketest.Client) []string {
	t.Helper()
	ps, err := c.ListPrompts()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range ps {
		out = append(out, p.Name)
	}
	slices.Sort(out)
	return out
}

func textOf(c sake.Content) string {
	if t, ok := c.(*sake.TextContent); ok {
		return t.Text
	}
	return ""
}
