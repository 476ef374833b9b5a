package proxy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/client/memory"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/proxy"
)

// forgetfulServer is a handshake-era HTTP server that forgets its first
// session at the first call (404), and asks for the roots of each new
// session while it answers the session's logging/setLevel, as a server
// asks its own startup questions.
func forgetfulServer(t *testing.T) (url string, answers chan string) {
	t.Helper()
	answers = make(chan string, 4)
	var sessions atomic.Int32
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
		if m.Method == "" && m.ID != nil {
			answers <- string(body) // the client's answer to a question
			w.WriteHeader(http.StatusAccepted)
			return
		}
		if m.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		session := r.Header.Get("Mcp-Session-Id")
		reply := func(result string) string {
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, result)
		}
		w.Header().Set("Content-Type", "application/json")
		switch {
		case m.Method == "initialize":
			w.Header().Set("Mcp-Session-Id", fmt.Sprintf("s%d", sessions.Add(1)))
			_, _ = io.WriteString(w, reply(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"logging":{}},"serverInfo":{"name":"forgetful","version":"1"}}`))
		case m.Method == "tools/call" && session == "s1":
			http.Error(w, "no such session", http.StatusNotFound)
		case m.Method == "logging/setLevel" && session != "s1":
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, "event: message\ndata: "+`{"jsonrpc":"2.0","id":"startup-roots","method":"roots/list"}`+"\n\n")
			_, _ = io.WriteString(w, "event: message\ndata: "+reply(`{}`)+"\n\n")
		case m.Method == "logging/setLevel", m.Method == "ping":
			_, _ = io.WriteString(w, reply(`{}`))
		case m.Method == "tools/list":
			_, _ = io.WriteString(w, reply(`{"tools":[{"name":"work","inputSchema":{"type":"object"}}]}`))
		case m.Method == "tools/call":
			_, _ = io.WriteString(w, reply(`{"content":[{"type":"text","text":"done"}]}`))
		default:
			_, _ = fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}`, m.ID)
		}
	}))
	t.Cleanup(ts.Close)
	return ts.URL, answers
}

// A remote that forgets the proxy's session gets a new handshake within
// the call that found it gone; the new session's own questions (asked
// while the proxy sets its log level) are the session's, not that
// caller's: they are refused, and the caller is not asked.
func TestProxyRenewedSessionAsksNoCaller(t *testing.T) {
	t.Parallel()
	url, answers := forgetfulServer(t)
	remote, err := client.Connect(t.Context(), client.HTTP(url, nil), client.ForwardQuestions())
	if err != nil {
		t.Fatal(err)
	}
	defer remote.Close()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	p, err := proxy.New(ctx, remote)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var asked []string
	caller, err := client.Connect(t.Context(), memory.Transport(p), client.ProtocolVersion(protocol.LegacyVersion),
		client.OnRoots(func(context.Context) ([]sake.Root, error) {
			mu.Lock()
			asked = append(asked, "roots")
			mu.Unlock()
			return []sake.Root{{URI: "file:///home/caller/secret"}}, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	defer caller.Close()
	if res, err := caller.CallTool(t.Context(), "work", nil); err != nil || res.Text() != "done" {
		t.Fatalf("work across the renewal = %v, %v", res, err)
	}
	select {
	case a := <-answers:
		if !strings.Contains(a, `"error"`) || strings.Contains(a, "secret") {
			t.Errorf("the new session's roots/list was answered %s, want a refusal", a)
		}
	case <-time.After(waitFor):
		t.Fatal("the new session's roots/list was never answered")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 0 {
		t.Errorf("the caller was asked %v", asked)
	}
}
