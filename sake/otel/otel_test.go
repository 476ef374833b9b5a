package otel_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/sakemcp/sake-go/sake"
	sakeotel "github.com/sakemcp/sake-go/sake/otel"
	"github.com/sakemcp/sake-go/sake/plug"
	"github.com/sakemcp/sake-go/sake/saketest"
)

var wantBuckets = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}

func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:16])
}

func TestToolsCallModern(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	c := saketest.Connect(t, &weather{}, saketest.ServerOptions(w.tel.Option()))
	ctx, client := w.tp.Tracer("test").Start(context.Background(), "client")
	if _, err := c.WithContext(ctx).CallTool("forecast", map[string]any{"city": "Porto"}); err != nil {
		t.Fatal(err)
	}
	client.End()
	s := w.span("tools/call forecast")
	if s.SpanKind() != trace.SpanKindServer {
		t.Errorf("kind = %v", s.SpanKind())
	}
	childOf(t, s, client.SpanContext())
	want(t, s, map[string]string{
		"mcp.method.name": "tools/call", "gen_ai.tool.name": "forecast", "gen_ai.operation.name": "execute_tool",
		"mcp.protocol.version": "2026-07-28", "mcp.session.id": "",
		"error.type": "", "rpc.response.status_code": "", "gen_ai.tool.call.arguments": "", "gen_ai.tool.call.result": "",
	})
	if _, ok := attrs(s)["jsonrpc.request.id"]; !ok {
		t.Error("no jsonrpc.request.id")
	}
	if s.Status().Code != codes.Unset {
		t.Errorf("status = %v", s.Status())
	}
	m := w.metrics()
	n, bounds := histogramCount(m["mcp.server.operation.duration"],
		attribute.String("mcp.method.name", "tools/call"), attribute.String("gen_ai.tool.name", "forecast"),
		attribute.String("gen_ai.operation.name", "execute_tool"), attribute.String("mcp.protocol.version", "2026-07-28"))
	if n != 1 {
		t.Errorf("operation duration count = %d; metric %+v", n, m["mcp.server.operation.duration"])
	}
	if !equalFloats(bounds, wantBuckets) {
		t.Errorf("bounds = %v", bounds)
	}
}

func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestToolsCallLegacy(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	c := saketest.Connect(t, &weather{}, saketest.Legacy(), saketest.ServerOptions(w.tel.Option()))
	sid := c.Session().SessionID
	if _, err := c.CallTool("forecast", map[string]any{"city": "Lima"}); err != nil {
		t.Fatal(err)
	}
	if got := w.metrics()["sake.server.sessions.open"]; true {
		if v, _ := sum(got, attribute.String("mcp.protocol.version", "2025-11-25")); v != 1 {
			t.Errorf("open sessions = %d, want 1", v)
		}
	}
	c.Close()
	init := w.span("initialize")
	want(t, init, map[string]string{"mcp.method.name": "initialize", "mcp.protocol.version": "2025-11-25", "jsonrpc.request.id": "1"})
	s := w.span("tools/call forecast")
	want(t, s, map[string]string{
		"mcp.method.name": "tools/call", "gen_ai.tool.name": "forecast", "gen_ai.operation.name": "execute_tool",
		"mcp.protocol.version": "2025-11-25", "mcp.session.id": digest(sid),
	})
	if strings.Contains(attrs(s)["mcp.session.id"], sid) {
		t.Error("the raw session id is recorded")
	}
	if s.Parent().IsValid() {
		t.Errorf("a call without trace context has a parent: %v", s.Parent())
	}
	w.span("notifications/initialized")
	m := w.metrics()
	if v, _ := sum(m["sake.server.sessions.open"], attribute.String("mcp.protocol.version", "2025-11-25")); v != 0 {
		t.Errorf("open sessions after close = %d", v)
	}
	if n, bounds := histogramCount(m["mcp.server.session.duration"], attribute.String("mcp.protocol.version", "2025-11-25")); n != 1 || !equalFloats(bounds, wantBuckets) {
		t.Errorf("session duration count = %d, bounds %v", n, bounds)
	}
}

func TestRawIDs(t *testing.T) {
	t.Parallel()
	w := newWorld(t, sakeotel.RawIDs())
	c := saketest.Connect(t, &weather{}, saketest.Legacy(), saketest.ServerOptions(w.tel.Option()))
	if _, err := c.CallTool("forecast", map[string]any{"city": "Lima"}); err != nil {
		t.Fatal(err)
	}
	want(t, w.span("tools/call forecast"), map[string]string{"mcp.session.id": c.Session().SessionID})
}

func TestMetaTraceContextIsTheParentAndTheAmbientALink(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	srv := sake.MustNew(&weather{}, w.tel.Option())
	ambientCtx, ambient := w.tp.Tracer("test").Start(context.Background(), "http")
	defer ambient.End()
	msg := `{"jsonrpc":"2.0","id":"a-7","method":"tools/call","params":{"name":"forecast","arguments":{"city":"Oslo"},"_meta":{` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},` +
		`"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01","tracestate":"rojo=00f067aa0ba902b7","baggage":"tenant=acme"}}}`
	if r := srv.Handle(ambientCtx, []byte(msg), &sake.Inbound{Transport: "stdio"}); r.ErrorCode != 0 {
		t.Fatalf("%s", r.Body)
	}
	s := w.span("tools/call forecast")
	if got := s.Parent(); got.TraceID().String() != "4bf92f3577b34da6a3ce929d0e0e4736" || got.SpanID().String() != "00f067aa0ba902b7" || !got.IsRemote() {
		t.Errorf("parent = %v", got)
	}
	if got := s.SpanContext().TraceState().Get("rojo"); got != "00f067aa0ba902b7" {
		t.Errorf("tracestate rojo = %q", got)
	}
	if l := s.Links(); len(l) != 1 || l[0].SpanContext.SpanID() != ambient.SpanContext().SpanID() {
		t.Errorf("links = %v, want the ambient span", l)
	}
	want(t, s, map[string]string{"jsonrpc.request.id": "a-7", "network.transport": "pipe", "network.protocol.name": ""})

	// A malformed traceparent is ignored: the ambient context is the parent.
	bad := strings.Replace(msg, "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "zz", 1)
	bad = strings.Replace(bad, `"a-7"`, `8`, 1)
	srv.Handle(ambientCtx, []byte(bad), nil)
	for _, s := range w.spans.Ended() {
		if attrs(s)["jsonrpc.request.id"] == "8" {
			childOf(t, s, ambient.SpanContext())
			if len(s.Links()) != 0 {
				t.Errorf("links = %v", s.Links())
			}
		}
	}
}

func TestHTTPHeadersAndClientSpans(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	srv := sake.MustNew(&weather{}, w.tel.Option())
	h := plug.New(srv)
	defer h.Close()
	ts := httptest.NewServer(w.tel.Handler(h))
	defer ts.Close()
	hc := &http.Client{Transport: w.tel.RoundTripper(nil)}
	ctx, app := w.tp.Tracer("test").Start(context.Background(), "app")
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"forecast","arguments":{"city":"Rome"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, ts.URL, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "forecast")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Contains(b, []byte("sunny in Rome")) {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	if req.Header.Get("traceparent") != "" {
		t.Error("the caller's request was modified")
	}
	app.End()
	srvSpan, cliSpan := findKind(w, "tools/call forecast", trace.SpanKindServer), findKind(w, "tools/call forecast", trace.SpanKindClient)
	if srvSpan == nil || cliSpan == nil {
		t.Fatalf("spans: %v", w.names())
	}
	childOf(t, cliSpan, app.SpanContext())
	childOf(t, srvSpan, cliSpan.SpanContext())
	want(t, srvSpan, map[string]string{"network.transport": "tcp", "network.protocol.name": "http", "network.protocol.version": "1.1"})
	want(t, cliSpan, map[string]string{"mcp.method.name": "tools/call", "gen_ai.tool.name": "forecast", "mcp.protocol.version": "2026-07-28", "network.transport": "tcp", "server.address": "127.0.0.1"})
}
