package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// collector is a fake OTLP/HTTP collector that keeps what it receives.
type collector struct {
	mu     sync.Mutex
	bodies map[string][][]byte
}

func newCollector(t *testing.T) (*collector, string) {
	c := &collector{bodies: map[string][][]byte{}}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		c.mu.Lock()
		c.bodies[r.URL.Path] = append(c.bodies[r.URL.Path], b)
		c.mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	t.Cleanup(ts.Close)
	return c, ts.URL
}

// got reports whether a body sent to path holds every one of the strings
// (OTLP protobuf carries strings as they are).
func (c *collector) got(path string, subs ...string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	all := bytes.Join(c.bodies[path], nil)
	for _, s := range subs {
		if !bytes.Contains(all, []byte(s)) {
			return false
		}
	}
	return true
}

// With -otlp the spans and metrics of a call reach the collector when the
// exporter is shut down, and the span continues the caller's trace.
func TestOTLP(t *testing.T) {
	t.Parallel()
	col, base := newCollector(t)
	x, err := newExporter(context.Background(), base+"/")
	if err != nil {
		t.Fatal(err)
	}
	_, ts := start(t, config{ToolTimeout: time.Minute, Log: &syncBuffer{}, OTel: x.options()})
	req, _ := http.NewRequest(http.MethodPost, ts.URL+"/mcp", strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"query":"kettle"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "search")
	req.Header.Set("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Contains(b, []byte("electric kettle")) {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	if err := x.shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	// The span continues the trace of the traceparent header (its id
	// travels as raw bytes).
	traceID := string([]byte{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36})
	if !col.got("/v1/traces", "tools/call search", "tcp", "production", traceID) {
		t.Error("the traces lack the call or its trace")
	}
	if !col.got("/v1/metrics", "mcp.server.operation.duration") {
		t.Error("the metrics lack the duration")
	}
}

func TestOTLPFlagRefusesABadURL(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"127.0.0.1:4318", "ftp://x", "http://"} {
		if _, err := newExporter(context.Background(), bad); err == nil || !strings.Contains(err.Error(), "-otlp") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
