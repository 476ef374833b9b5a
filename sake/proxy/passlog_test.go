package proxy_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/proxy"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// chattyLegacyServer answers like a 2025 SDK server (the TypeScript SDK
// 1.x, the Python SDK 1.x): it declares no logging and sends a log message
// within a call whatever level the client set, none included.
func chattyLegacyServer(t *testing.T) string {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(body, &m)
		if m.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		reply := func(result string) string {
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, result)
		}
		w.Header().Set("Content-Type", "application/json")
		switch m.Method {
		case "initialize":
			w.Header().Set("Mcp-Session-Id", "s1")
			_, _ = io.WriteString(w, reply(`{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"chatty","version":"1"}}`))
		case "tools/list":
			_, _ = io.WriteString(w, reply(`{"tools":[{"name":"talk","inputSchema":{"type":"object"}}]}`))
		case "tools/call":
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, `event: message`+"\ndata: "+`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"chatty","data":"said during the call"}}`+"\n\n")
			_, _ = io.WriteString(w, "event: message\ndata: "+reply(`{"content":[{"type":"text","text":"done"}]}`)+"\n\n")
		case "ping":
			_, _ = io.WriteString(w, reply(`{}`))
		default:
			_, _ = fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}`, m.ID)
		}
	}))
	t.Cleanup(ts.Close)
	return ts.URL
}

// TestProxyPassesTheRemotesLogs: a log message a remote server sends
// within a call reaches a 2025-11-25 caller that set no level, as it
// would directly; a level the caller set is respected.
func TestProxyPassesTheRemotesLogs(t *testing.T) {
	t.Parallel()
	remote, err := client.Connect(t.Context(), client.HTTP(chattyLegacyServer(t), nil), client.ForwardQuestions())
	if err != nil {
		t.Fatal(err)
	}
	defer remote.Close()
	p, err := proxy.New(t.Context(), remote)
	if err != nil {
		t.Fatal(err)
	}
	logs := func(c *saketest.Client) int {
		n := 0
		for _, note := range c.Notifications() {
			if note.Method == "notifications/message" && strings.Contains(string(note.Params), "said during the call") {
				n++
			}
		}
		return n
	}
	c := saketest.Connect(t, p, saketest.Legacy())
	if res, err := c.CallTool("talk", nil); err != nil || res.Text() != "done" {
		t.Fatalf("talk = %v, %v", res, err)
	}
	if n := logs(c); n != 1 {
		t.Errorf("a caller that set no level got %d of the remote's log messages; want 1, as directly", n)
	}
	quiet := saketest.Connect(t, p, saketest.Legacy())
	if err := quiet.SetLogLevel(sake.LevelError); err != nil {
		t.Fatal(err)
	}
	if _, err := quiet.CallTool("talk", nil); err != nil {
		t.Fatal(err)
	}
	if n := logs(quiet); n != 0 {
		t.Errorf("a caller at level error got %d info messages", n)
	}
}
