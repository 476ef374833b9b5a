package middleware_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/middleware"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// big has tools whose results are as large as asked.
type big struct{}

type sizeArgs struct {
	N int `json:"n"`
}

type report struct {
	Lines []string `json:"lines"`
}

func (big) Text(ctx *sake.Context, a sizeArgs) (string, error) {
	return strings.Repeat("é", a.N/2), nil
}

func (big) Blocks(ctx *sake.Context, a sizeArgs) (*sake.ToolResult, error) {
	return &sake.ToolResult{Content: []sake.Content{sake.Text(strings.Repeat("a", a.N)), sake.Image(make([]byte, a.N), "image/png"), sake.Text("tail")}}, nil
}

func (big) Report(ctx *sake.Context, a sizeArgs) (report, error) {
	return report{Lines: []string{strings.Repeat("r", a.N)}}, nil
}

func capped(t *testing.T, rc middleware.ResultCap) *sake.Server {
	return sake.MustNew(big{}, sake.Use(rc.Middleware()), sake.Logger(quiet))
}

// A result over the cap becomes an isError result that says its size and
// what to do; one within it is untouched.
func TestResultCap(t *testing.T) {
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		c := saketest.Connect(t, capped(t, middleware.ResultCap{MaxBytes: 1000}), opts...)
		if res, err := c.CallTool("text", map[string]any{"n": 1000}); err != nil || len(res.Text()) != 1000 {
			t.Fatalf("at the cap: %v", err)
		}
		_, err := c.CallTool("text", map[string]any{"n": 1002})
		te := toolError(t, err)
		if !strings.Contains(te.Error(), "The result of tool text was 1002 bytes, over this server's limit of 1000 bytes. Ask for less") {
			t.Errorf("over the cap: %q", te.Error())
		}
		if strings.Contains(te.Error(), "é") {
			t.Error("the refusal carries the result")
		}
		// Images count as their base64; structured content as its JSON.
		if _, err := c.CallTool("blocks", map[string]any{"n": 500}); err == nil {
			t.Error("500 bytes of text and 500 of image (668 in base64) passed a 1000-byte cap")
		}
		if _, err := c.CallTool("report", map[string]any{"n": 600}); err == nil {
			t.Error("structured content of 600+ bytes, with its text, passed a 1000-byte cap")
		}
	})
}

// With Truncate, an oversized result keeps its start, cut on a rune
// boundary, and ends with a note; structured content too large for the
// cap is refused all the same.
func TestResultCapTruncate(t *testing.T) {
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		c := saketest.Connect(t, capped(t, middleware.ResultCap{MaxBytes: 1000, Truncate: true}), opts...)
		res, err := c.CallTool("text", map[string]any{"n": 4000})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Content) != 2 {
			t.Fatalf("content: %v", res.Content)
		}
		kept := res.Content[0].(*sake.TextContent).Text
		note := res.Content[1].(*sake.TextContent).Text
		if !strings.HasPrefix(note, "[Result truncated: it was 4000 bytes, over this server's limit of 1000 bytes.") {
			t.Errorf("note: %q", note)
		}
		if len(kept)+len(note) > 1000 || len(kept) == 0 || strings.Trim(kept, "é") != "" {
			t.Errorf("kept %d bytes (%q...), note %d", len(kept), kept[:10], len(note))
		}
		// The image that does not fit is dropped with what follows it.
		res, err = c.CallTool("blocks", map[string]any{"n": 500})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Content) != 2 || res.Content[0].(*sake.TextContent).Text != strings.Repeat("a", 500) {
			t.Errorf("blocks: %v", res.Content)
		}
		if _, err := c.CallTool("report", map[string]any{"n": 1200}); err == nil {
			t.Error("structured content over the cap was kept")
		}
	})
}

// Tools limits the cap to the tools named.
func TestResultCapTools(t *testing.T) {
	t.Parallel()
	c := saketest.Connect(t, capped(t, middleware.ResultCap{MaxBytes: 10, Tools: []string{"report"}}))
	if _, err := c.CallTool("text", map[string]any{"n": 100}); err != nil {
		t.Errorf("an uncapped tool: %v", err)
	}
	if _, err := c.CallTool("report", map[string]any{"n": 100}); err == nil {
		t.Error("a capped tool passed")
	}
}

// Over HTTP the refusal is a result (200) the model reads.
func TestResultCapOverHTTP(t *testing.T) {
	t.Parallel()
	h := endpoint(t, capped(t, middleware.ResultCap{MaxBytes: 10}))
	for _, era := range eras {
		c := newHTTPCaller(t, h, era, "192.0.2.1", "")
		r := c.post("tools/call", "text", `{"name":"text","arguments":{"n":100}}`)
		if r.Code != http.StatusOK || !strings.Contains(r.Body.String(), `"isError":true`) || !strings.Contains(r.Body.String(), "100 bytes") {
			t.Errorf("%s: %d %s", era, r.Code, r.Body)
		}
	}
}

// Under any cap, small ones too, a truncated answer fits the cap with its
// note, and keeps the longest start of the text that fits, cut on a rune
// boundary.
func TestResultCapTruncateSmallCaps(t *testing.T) {
	t.Parallel()
	for _, max := range []int{1, 2, 10, 19, 20, 21, 60, 100, 250, 300, 1000} {
		c := saketest.Connect(t, capped(t, middleware.ResultCap{MaxBytes: max, Truncate: true}))
		res, err := c.CallTool("text", map[string]any{"n": 4000})
		if err != nil {
			t.Fatalf("cap %d: %v", max, err)
		}
		total, kept, note := 0, "", ""
		for i, b := range res.Content {
			text := b.(*sake.TextContent).Text
			total += len(text)
			if i == 0 && !strings.HasPrefix(text, "[") {
				kept = text
			} else {
				note = text
			}
		}
		if total > max {
			t.Errorf("cap %d: the answer is %d bytes", max, total)
		}
		if strings.Trim(kept, "é") != "" {
			t.Errorf("cap %d: kept %q, not a start of the text", max, kept)
		}
		// é is two bytes: the longest start that fits leaves at most one.
		if left := max - len(note) - len(kept); left > 1 {
			t.Errorf("cap %d: kept %d bytes and a note of %d, %d bytes unused", max, len(kept), len(note), left)
		}
		if max >= 20 && note == "" {
			t.Errorf("cap %d: no note says the result was cut", max)
		}
	}
}
