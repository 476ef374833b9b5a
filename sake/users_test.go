package sake_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// A capability a legacy session was offered at initialize stays
// answerable when the last component of its kind is removed: an empty
// list, not -32601.
func TestOfferedCapabilityStaysAnswerable(t *testing.T) {
	t.Parallel()
	s := sake.MustNew(nil)
	hello := func(ctx *sake.Context) (string, error) { return "hi", nil }
	if err := s.AddPrompt(sake.NewPrompt("hello", hello)); err != nil {
		t.Fatal(err)
	}
	if err := s.AddResource(sake.NewResource("notes://a", hello)); err != nil {
		t.Fatal(err)
	}
	c := saketest.Connect(t, s, saketest.Legacy())
	s.RemovePrompt("hello")
	s.RemoveResource("notes://a")
	if ps, err := c.ListPrompts(); err != nil || len(ps) != 0 {
		t.Errorf("prompts/list after removing the last prompt = %v, %v; want an empty list", ps, err)
	}
	if rs, err := c.ListResources(); err != nil || len(rs) != 0 {
		t.Errorf("resources/list after removing the last resource = %v, %v; want an empty list", rs, err)
	}
	var e *sake.Error
	if _, err := c.GetPrompt("hello", nil); !errors.As(err, &e) || e.Code != sake.CodeInvalidParams {
		t.Errorf("prompts/get of the removed prompt = %v, want -32602", err)
	}
	// A session that was not offered prompts still gets -32601.
	bare := sake.MustNew(nil)
	lc := saketest.Connect(t, bare, saketest.Legacy())
	if _, err := lc.ListPrompts(); !errors.As(err, &e) || e.Code != sake.CodeMethodNotFound {
		t.Errorf("prompts/list on a server without prompts = %v, want -32601", err)
	}
}

type namer struct{ calls int }

type nameAnswer struct {
	Name string `json:"name"`
}

func (n *namer) Name(ctx *sake.Context) (string, error) {
	n.calls++
	var a nameAnswer
	action, err := ctx.Elicit("who", "Who?", &a)
	if err != nil {
		return "", err
	}
	if action == sake.Accept && a.Name == "" {
		return "", errors.New("the tool saw an accepted answer without its required name")
	}
	return "Hello, " + a.Name, nil
}

// An accepted answer must fit the schema the tool asked with: the modern
// era asks again (so a client that keeps answering wrongly runs out of
// rounds), the legacy era gives the tool an error; the tool never sees
// the invalid answer as a valid one.
func TestElicitationAnswerIsValidated(t *testing.T) {
	t.Parallel()
	for _, legacy := range []bool{false, true} {
		t.Run(fmt.Sprint("legacy=", legacy), func(t *testing.T) {
			t.Parallel()
			opts := []saketest.Option{saketest.OnInput(func(protocol.ElicitRequest) protocol.ElicitResult {
				return saketest.Accept(map[string]any{"wrong": 1})
			})}
			if legacy {
				opts = append(opts, saketest.Legacy())
			}
			n := &namer{}
			c := saketest.Connect(t, n, opts...)
			res, err := c.CallTool("name", nil)
			if err == nil {
				t.Fatalf("an invalid answer was taken: %v", res)
			}
			if strings.Contains(err.Error(), "without its required name") {
				t.Fatalf("the tool saw the invalid answer: %v", err)
			}
			if !strings.Contains(err.Error(), "name") {
				t.Errorf("the error does not name the field: %v", err)
			}
			good := saketest.Connect(t, &namer{}, append(opts[1:], saketest.OnInput(func(protocol.ElicitRequest) protocol.ElicitResult {
				return saketest.Accept(map[string]any{"name": "Ana"})
			}))...)
			if res, err := good.CallTool("name", nil); err != nil || res.Text() != "Hello, Ana" {
				t.Errorf("a valid answer: %v, %v", res, err)
			}
		})
	}
}

func TestToolErrorAndResultPrint(t *testing.T) {
	t.Parallel()
	te := &sake.ToolError{Result: sake.ErrorResult("the disk is full")}
	if te.Error() != "the disk is full" {
		t.Errorf("ToolError.Error() = %q, want the result's text", te.Error())
	}
	res := &sake.ToolResult{Content: []sake.Content{sake.Text("one"), sake.Text("two")}}
	if got := fmt.Sprintf("%v", res); got != "one\ntwo" {
		t.Errorf("%%v of a result = %q", got)
	}
	if got := fmt.Sprint(sake.ErrorResult("bad")); got != "isError: bad" {
		t.Errorf("%%v of an error result = %q", got)
	}
	var nilRes *sake.ToolResult
	if got := fmt.Sprint(nilRes); got != "<nil>" {
		t.Errorf("%%v of a nil result = %q", got)
	}
	structured := &sake.ToolResult{StructuredContent: map[string]int{"n": 1}}
	if got := fmt.Sprint(structured); got != `{"n":1}` {
		t.Errorf("%%v of a structured result = %q", got)
	}
}

// A server that has offered a kind of component keeps answering its list,
// empty, once the last one is removed at run time, in both eras and for
// clients that connect after the removal: clients told list_changed list
// again.
func TestRemovedKindsStayListable(t *testing.T) {
	t.Parallel()
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		s := sake.MustNew(nil)
		hello := func(ctx *sake.Context) (string, error) { return "hi", nil }
		note := func(ctx *sake.Context, v map[string]string) (string, error) { return v["id"], nil }
		if err := s.AddPrompt(sake.NewPrompt("hello", hello)); err != nil {
			t.Fatal(err)
		}
		if err := s.AddResource(sake.NewResource("notes://a", hello), sake.NewResourceTemplate("notes://{id}", note)); err != nil {
			t.Fatal(err)
		}
		before := saketest.Connect(t, s, opts...)
		if ps, err := before.ListPrompts(); err != nil || len(ps) != 1 {
			t.Fatalf("prompts/list = %v, %v", ps, err)
		}
		s.RemovePrompt("hello")
		s.RemoveResource("notes://a")
		s.RemoveResource("notes://{id}")
		after := saketest.Connect(t, s, opts...)
		for name, c := range map[string]*saketest.Client{"connected before": before, "connected after": after} {
			if ps, err := c.ListPrompts(); err != nil || len(ps) != 0 {
				t.Errorf("%s: prompts/list after removing the last prompt = %v, %v; want an empty list", name, ps, err)
			}
			if rs, err := c.ListResources(); err != nil || len(rs) != 0 {
				t.Errorf("%s: resources/list after removing the last resource = %v, %v; want an empty list", name, rs, err)
			}
			if ts, err := c.ListResourceTemplates(); err != nil || len(ts) != 0 {
				t.Errorf("%s: resources/templates/list after removing the last template = %v, %v; want an empty list", name, ts, err)
			}
			if ts, err := c.ListTools(); err != nil || len(ts) != 0 {
				t.Errorf("%s: tools/list = %v, %v; want an empty list", name, ts, err)
			}
		}
		var e *sake.Error
		if _, err := after.GetPrompt("hello", nil); !errors.As(err, &e) || e.Code != sake.CodeInvalidParams {
			t.Errorf("prompts/get of the removed prompt = %v, want -32602", err)
		}
	})
}
