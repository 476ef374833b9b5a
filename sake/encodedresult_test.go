package sake_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/saketest"
	"github.com/sakemcp/sake-go/sake/transport"
)

// remoteResult is a tools/call result as another server wrote it: an
// escape that encoding it again would write as the letter itself, the
// remote's resultType and serverInfo, a _meta member of its own and a
// member this server does not know.
const remoteResult = `{"content":[{"type":"text","text":"caf\u00e9"}],"structuredContent":{"n":1},"resultType":"complete","x-extra":true,` +
	`"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"remote","version":"9"},"trace":"t1"}}`

// encodedServer has a tool "relay" that returns raw left encoded, as a
// proxy does.
func encodedServer(t *testing.T, raw string, opts ...sake.Option) *sake.Server {
	t.Helper()
	srv := sake.MustNew(nil, append([]sake.Option{sake.Name("local", "1.0.0")}, opts...)...)
	err := srv.AddTool(sake.NewTool("relay", func(*sake.Context, json.RawMessage) (*sake.ToolResult, error) {
		return protocol.ToolResultFromWire([]byte(raw))
	}))
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

const relayCall = `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"relay","arguments":{}}}`

// TestEncodedToolResultPassesThrough: with nothing between the tool and
// the reply, a result left encoded goes into the reply as it came (its
// escapes and members kept), with this server's resultType and serverInfo
// instead of the remote's.
func TestEncodedToolResultPassesThrough(t *testing.T) {
	srv := encodedServer(t, remoteResult)
	buf := make([]byte, 0, 512)
	r := transport.Decode(srv, []byte(relayCall), nil).HandleInto(context.Background(), &buf)
	body := string(r.Body)
	for _, want := range []string{`"text":"caf\u00e9"`, `"structuredContent":{"n":1}`, `"x-extra":true`, `"trace":"t1"`, `"name":"local"`} {
		if !strings.Contains(body, want) {
			t.Errorf("reply lacks %s: %s", want, body)
		}
	}
	if strings.Count(body, `"resultType"`) != 1 || strings.Contains(body, `"remote"`) {
		t.Errorf("one resultType and no remote serverInfo expected: %s", body)
	}
	var v struct {
		Result struct {
			ResultType string `json:"resultType"`
			Content    []struct{ Text string }
			Meta       map[string]json.RawMessage `json:"_meta"`
		}
	}
	if err := json.Unmarshal(r.Body, &v); err != nil || v.Result.ResultType != "complete" || v.Result.Content[0].Text != "café" || len(v.Result.Meta) != 2 {
		t.Fatalf("reply %s: %+v, %v", body, v, err)
	}
}

// TestEncodedToolResultDecodedForMiddleware: a middleware, a Request hook
// and a transform's wrapper see the result decoded, and what they change
// is what the caller gets.
func TestEncodedToolResultDecodedForMiddleware(t *testing.T) {
	var seen string
	mw := func(next sake.Handler) sake.Handler {
		return func(ctx context.Context, req *sake.Request) (any, error) {
			res, err := next(ctx, req)
			if tr, ok := res.(*sake.ToolResult); ok && len(tr.Content) == 1 {
				seen = tr.Content[0].(*sake.TextContent).Text
				tr.Content = append(tr.Content, sake.Text("shaped"))
			}
			return res, err
		}
	}
	c := saketest.Connect(t, encodedServer(t, remoteResult, sake.Use(mw)))
	res, err := c.CallTool("relay", nil)
	if err != nil || seen != "café" || res.Text() != "café\nshaped" {
		t.Fatalf("middleware saw %q; result %v, %v", seen, res, err)
	}

	var hooked any
	hooks := sake.Observe(sake.Hooks{Request: func(ctx context.Context, _ *sake.Request) (context.Context, func(sake.RequestDone)) {
		return ctx, func(d sake.RequestDone) { hooked = d.Result }
	}})
	c = saketest.Connect(t, encodedServer(t, remoteResult, hooks))
	if _, err := c.CallTool("relay", nil); err != nil {
		t.Fatal(err)
	}
	if tr, ok := hooked.(*sake.ToolResult); !ok || len(tr.Content) != 1 || tr.StructuredContent == nil {
		t.Fatalf("the hook saw %#v", hooked)
	}

	srv := encodedServer(t, remoteResult)
	err = srv.Transform(sake.Transform{Tool: "relay",
		Wrap: func(c *sake.Context, args map[string]any, call func(map[string]any) (*sake.ToolResult, error)) (*sake.ToolResult, error) {
			res, err := call(args)
			if err != nil {
				return nil, err
			}
			res.Content = append(res.Content, sake.Text("wrapped"))
			return res, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	c = saketest.Connect(t, srv)
	if res, err := c.CallTool("relay", nil); err != nil || res.Text() != "café\nwrapped" {
		t.Fatalf("wrapped: %v, %v", res, err)
	}
}

// TestEncodedToolResultForOlderClients: a client of a revision without
// structuredContent gets the result shaped for it, and a result whose
// JSON spans lines still goes out on one line.
func TestEncodedToolResultForOlderClients(t *testing.T) {
	c := saketest.Connect(t, encodedServer(t, remoteResult), saketest.LegacyVersion("2025-03-26"))
	res, err := c.CallTool("relay", nil)
	if err != nil || res.Text() != "café" || res.StructuredContent != nil {
		t.Fatalf("2025-03-26: %#v, %v", res, err)
	}

	spread := "{\n  \"content\": [{\"type\": \"text\", \"text\": \"a\"}],\r\n  \"isError\": true\n}"
	r := transport.Decode(encodedServer(t, spread), []byte(relayCall), nil).Handle(context.Background())
	if bytes.ContainsAny(r.Body, "\r\n") || !bytes.Contains(r.Body, []byte(`"isError":true`)) {
		t.Fatalf("reply %q", r.Body)
	}
}

// TestEncodedToolResultRefusesWhatIsNotAResult: raw that is not a JSON
// object with an array of content is refused when it is made, and changes
// nothing.
func TestEncodedToolResultRefusesWhatIsNotAResult(t *testing.T) {
	for _, raw := range []string{``, `[]`, `{"content":`, `{"content":5}`, `{"content":[]}x`} {
		if r, err := protocol.ToolResultFromWire([]byte(raw)); err == nil {
			t.Errorf("%q: accepted as %v", raw, r)
		}
	}
}

// TestEncodedToolResultPassesObservingMiddleware: middleware added with
// UseObserving sees each call's outcome (IsError included) and the
// result still goes into the reply as it came; adding a Use middleware
// beside it has the result decoded again.
func TestEncodedToolResultPassesObservingMiddleware(t *testing.T) {
	const failed = `{"isError":true,"content":[{"type":"text","text":"no\/go"}],"x-extra":2}`
	var calls, failures int
	observe := func(next sake.Handler) sake.Handler {
		return func(ctx context.Context, req *sake.Request) (any, error) {
			res, err := next(ctx, req)
			if req.Method == "tools/call" {
				calls++
				if tr, ok := res.(*sake.ToolResult); err != nil || ok && tr.IsError {
					failures++
				}
			}
			return res, err
		}
	}
	call := func(srv *sake.Server) string {
		buf := make([]byte, 0, 512)
		return string(transport.Decode(srv, []byte(relayCall), nil).HandleInto(context.Background(), &buf).Body)
	}
	for _, raw := range []string{remoteResult, failed} {
		body := call(encodedServer(t, raw, sake.UseObserving(observe)))
		want := `"x-extra":true`
		if raw == failed {
			want = `{"isError":true,"content":[{"type":"text","text":"no\/go"}],"x-extra":2`
		}
		if !strings.Contains(body, want) {
			t.Errorf("observed, the result was not passed through (want %s): %s", want, body)
		}
	}
	if calls != 2 || failures != 1 {
		t.Errorf("the observer saw %d calls and %d failures, want 2 and 1", calls, failures)
	}

	passive := func(next sake.Handler) sake.Handler { return next }
	if body := call(encodedServer(t, failed, sake.UseObserving(observe), sake.Use(passive))); strings.Contains(body, `x-extra`) || !strings.Contains(body, `"isError":true`) {
		t.Errorf("with a Use middleware the result must be decoded for it: %s", body)
	}
	if calls != 3 || failures != 2 {
		t.Errorf("the observer saw %d calls and %d failures, want 3 and 2", calls, failures)
	}
}

// TestEncodedToolResultWithOnlyTheRemotesServerInfo: a remote result
// whose _meta holds nothing but the remote's serverInfo reaches a
// handshake-era caller (which gets no serverInfo of this server) with no
// _meta at all, as a result without one, not an empty one.
func TestEncodedToolResultWithOnlyTheRemotesServerInfo(t *testing.T) {
	srv := encodedServer(t, `{"content":[{"type":"text","text":"hi"}],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"remote","version":"9"}}}`)
	c := saketest.Connect(t, srv, saketest.Legacy())
	r := c.Send([]byte(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"relay","arguments":{}}}`))
	if want := `{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"hi"}]}}`; string(r.Body) != want {
		t.Fatalf("reply = %s\nwant    %s", r.Body, want)
	}
}
