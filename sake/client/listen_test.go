package client_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/internal/kittest"
	"github.com/sakemcp/sake-go/sake/plug"
	"github.com/sakemcp/sake-go/sake/protocol"
)

func TestListen(t *testing.T) {
	each(t, func(t *testing.T, tr transport, era protocol.Era, opts []client.Option) {
		srv, _ := newKitServer(t)
		c := connect(t, tr, srv, opts...)
		got := make(chan protocol.Notification, 16)
		sub, err := c.Listen(t.Context(), client.Filter{ToolsListChanged: true, Resources: []string{"kit://readme"}}, func(n protocol.Notification) { got <- n })
		if err != nil {
			t.Fatalf("listen: %v", err)
		}
		if ack := sub.Acknowledged(); !ack.ToolsListChanged {
			t.Fatalf("acknowledged = %+v", ack)
		}
		srv.NotifyListChanged(sake.ListTools)
		if n := <-got; n.Method != "notifications/tools/list_changed" {
			t.Fatalf("first = %+v", n)
		}
		srv.ResourceUpdated("kit://readme")
		if n := <-got; n.Method != "notifications/resources/updated" {
			t.Fatalf("second = %+v", n)
		}
		if err := sub.Close(); err != nil {
			t.Fatalf("close: %v", err)
		}
		<-sub.Done()
		if sub.Err() != nil {
			t.Fatalf("err after close: %v", sub.Err())
		}
		// The client still works after the subscription ended.
		if _, err := c.ListTools(t.Context()); err != nil {
			t.Fatal(err)
		}
	})
}

func httpKit(t *testing.T) (*sake.Server, *kittest.Recorder, string) {
	srv, _ := newKitServer(t)
	h := plug.New(srv)
	rec := kittest.NewRecorder(h)
	ts := httptest.NewServer(rec)
	t.Cleanup(func() { ts.Close(); h.Close() })
	return srv, rec, ts.URL
}

func TestLegacySessionOverHTTP(t *testing.T) {
	t.Parallel()
	_, rec, url := httpKit(t)
	c, err := client.Connect(t.Context(), client.HTTP(url, nil), client.ProtocolVersion("2025-06-18"))
	if err != nil {
		t.Fatal(err)
	}
	if v := c.Info().ProtocolVersion; v != "2025-06-18" {
		t.Fatalf("version = %q", v)
	}
	if _, err := c.ListTools(t.Context()); err != nil {
		t.Fatal(err)
	}
	headers := rec.Headers()
	last := headers[len(headers)-1]
	if last.Get("Mcp-Session-Id") == "" || last.Get("MCP-Protocol-Version") != "2025-06-18" {
		t.Fatalf("headers of a session request = %v", last)
	}
	// The server forgets the session: the client starts a new one and
	// the call goes through.
	rec.Forget.Store(true)
	res, err := c.CallTool(t.Context(), "echo", map[string]string{"text": "again"})
	if err != nil || res.Text() != "again" {
		t.Fatalf("after a lost session = %v, %v", res, err)
	}
	if n := countInitialize(rec); n != 2 {
		t.Fatalf("initialize sent %d times", n)
	}
	// A call whose stream closes half-way finishes on the resumed stream.
	var progress []client.Progress
	ctx := client.WithProgress(t.Context(), func(p client.Progress) { progress = append(progress, p) })
	res, err = c.CallTool(ctx, "poll", nil)
	if err != nil || res.Text() != "polled" || len(progress) != 2 {
		t.Fatalf("poll = %v, %v, progress %+v", res, err, progress)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if rec.Count(http.MethodDelete) != 1 {
		t.Fatalf("DELETE sent %d times", rec.Count(http.MethodDelete))
	}
	if rec.Count(http.MethodGet) == 0 {
		t.Fatal("no GET stream was opened")
	}
}

func countInitialize(rec *kittest.Recorder) int {
	n := 0
	for _, b := range rec.Bodies() {
		if bytes.Contains(b, []byte(`"method":"initialize"`)) {
			n++
		}
	}
	return n
}

func TestModernHeaders(t *testing.T) {
	t.Parallel()
	_, rec, url := httpKit(t)
	c, err := client.Connect(t.Context(), client.HTTP(url, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.ListTools(t.Context()); err != nil {
		t.Fatal(err)
	}
	res, err := c.CallTool(t.Context(), "region", map[string]string{"region": " eu-west "})
	if err != nil || res.Text() != "region  eu-west " {
		t.Fatalf("region = %v, %v", res, err)
	}
	headers := rec.Headers()
	h := headers[len(headers)-1]
	if h.Get("Mcp-Method") != "tools/call" || h.Get("Mcp-Name") != "region" || h.Get("MCP-Protocol-Version") != protocol.ModernVersion ||
		h.Get("Mcp-Param-Region") != "=?base64?IGV1LXdlc3Qg?=" || h.Get("Mcp-Session-Id") != "" {
		t.Fatalf("headers = %v", h)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if rec.Count(http.MethodDelete)+rec.Count(http.MethodGet) != 0 {
		t.Fatal("a modern client sent GET or DELETE")
	}
}

// httpKitFor serves srv over HTTP through a recorder.
func httpKitFor(t *testing.T, srv *sake.Server) (*sake.Server, *kittest.Recorder, string) {
	h := plug.New(srv)
	rec := kittest.NewRecorder(h)
	ts := httptest.NewServer(rec)
	t.Cleanup(func() { ts.Close(); h.Close() })
	return srv, rec, ts.URL
}
