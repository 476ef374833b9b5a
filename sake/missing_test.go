package sake_test

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// ExplainMissing answers for a tool, prompt or resource the server has
// not got, in place of the usual answer; never for one a list policy
// hides; and its nil keeps the usual answer.
func TestExplainMissing(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var asked []string
	srv := sake.MustNew(nil, sake.ExplainMissing(func(kind, name string) error {
		mu.Lock()
		asked = append(asked, kind+" "+name)
		mu.Unlock()
		if strings.HasPrefix(name, "gone") {
			return errors.New(kind + " " + name + " is coming back")
		}
		return nil
	}), sake.PerCallerLists(func(_ *sake.Request, c sake.ComponentInfo) bool { return c.Name != "hidden" }))
	if err := srv.AddTool(sake.NewTool("hidden", func(*sake.Context) (string, error) { return "", nil })); err != nil {
		t.Fatal(err)
	}
	if err := srv.AddResource(sake.NewResource("notes://here", func(*sake.Context) (string, error) { return "", nil })); err != nil {
		t.Fatal(err)
	}
	if err := srv.AddPrompt(sake.NewPrompt("p", func(*sake.Context, map[string]string) (*sake.PromptResult, error) { return nil, nil })); err != nil {
		t.Fatal(err)
	}
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		c := saketest.Connect(t, srv, opts...)
		var e *sake.Error
		for _, call := range []func() error{
			func() error { _, err := c.CallTool("gone_tool", nil); return err },
			func() error { _, err := c.GetPrompt("gone_prompt", nil); return err },
			func() error { _, err := c.ReadResource("gone+notes://x"); return err },
		} {
			if err := call(); !errors.As(err, &e) || e.Code != sake.CodeInternalError || !strings.Contains(e.Message, "is coming back") {
				t.Errorf("a missing component = %v; want the explanation", err)
			}
		}
		if _, err := c.CallTool("other", nil); !errors.As(err, &e) || e.Code != sake.CodeInvalidParams || e.Message != "Unknown tool: other" {
			t.Errorf("a missing tool with no explanation = %v", err)
		}
		if _, err := c.CallTool("hidden", nil); !errors.As(err, &e) || e.Code != sake.CodeInvalidParams || e.Message != "Unknown tool: hidden" {
			t.Errorf("a hidden tool = %v; want unknown", err)
		}
	})
	mu.Lock()
	defer mu.Unlock()
	for _, a := range asked {
		if strings.Contains(a, "hidden") {
			t.Errorf("ExplainMissing was asked about a hidden tool: %v", asked)
		}
	}
}
