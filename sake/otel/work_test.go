package otel_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/sakemcp/sake-go/sake"
	sakeotel "github.com/sakemcp/sake-go/sake/otel"
	"github.com/sakemcp/sake-go/sake/plug"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/saketest"
	"github.com/sakemcp/sake-go/sake/tasks"
	"github.com/sakemcp/sake-go/sake/transport"
)

func answerAnn(protocol.ElicitRequest) protocol.ElicitResult {
	return saketest.Accept(map[string]any{"name": "Ann"})
}

func TestInputRoundTripModern(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	c := saketest.Connect(t, &weather{}, saketest.OnInput(answerAnn), saketest.ServerOptions(w.tel.Option()))
	res, err := c.CallTool("greet", nil)
	if err != nil || res.Text() != "hello Ann" {
		t.Fatalf("greet: %v %v", res, err)
	}
	var first, retry sdktrace.ReadOnlySpan
	for _, s := range w.spans.Ended() {
		if s.Name() != "tools/call greet" {
			continue
		}
		if attrs(s)["sake.result_type"] == "input_required" {
			first = s
		} else {
			retry = s
		}
	}
	if first == nil || retry == nil {
		t.Fatalf("spans: %v", w.names())
	}
	want(t, first, map[string]string{"sake.input.retry": "", "error.type": ""})
	if first.Status().Code == codes.Error {
		t.Error("asking for input is not an error")
	}
	want(t, retry, map[string]string{"sake.input.retry": "true", "sake.result_type": ""})
	q := w.span("elicitation/create")
	childOf(t, q, first.SpanContext())
	if q.SpanKind() != trace.SpanKindInternal {
		t.Errorf("kind = %v", q.SpanKind())
	}
	want(t, q, map[string]string{"mcp.method.name": "elicitation/create", "sake.input.key": "who", "jsonrpc.request.id": ""})
}

func TestInputRoundTripLegacy(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	c := saketest.Connect(t, &weather{}, saketest.Legacy(), saketest.OnInput(answerAnn), saketest.ServerOptions(w.tel.Option()))
	if res, err := c.CallTool("greet", nil); err != nil || res.Text() != "hello Ann" {
		t.Fatalf("greet: %v %v", res, err)
	}
	call := w.span("tools/call greet")
	q := w.span("elicitation/create")
	childOf(t, q, call.SpanContext())
	if q.SpanKind() != trace.SpanKindClient {
		t.Errorf("a request sent to the client is a CLIENT span, got %v", q.SpanKind())
	}
	want(t, q, map[string]string{"mcp.method.name": "elicitation/create", "sake.input.key": "who"})
	if attrs(q)["jsonrpc.request.id"] == "" {
		t.Error("no jsonrpc.request.id on the request sent to the client")
	}
}

func TestTaskSpanAndActiveTasks(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	m := tasks.New()
	t.Cleanup(func() { _ = m.Shutdown(context.Background()) })
	work := &slow{release: make(chan struct{})}
	c := saketest.Connect(t, work, saketest.ServerOptions(w.tel.Option(), sake.Tasks(m)))
	_, task, err := c.CallToolAsync("slow", nil)
	if err != nil || task == nil {
		t.Fatalf("CallToolAsync: %v %v", task, err)
	}
	active := attribute.String("gen_ai.tool.name", "slow")
	if v, _ := sum(w.metrics()["sake.server.tasks.active"], active); v != 1 {
		t.Errorf("active tasks = %d, want 1", v)
	}
	close(work.release)
	ts := w.waitSpan("task slow")
	call := w.span("tools/call slow")
	want(t, call, map[string]string{"sake.result_type": "task", "error.type": ""})
	childOf(t, ts, call.SpanContext())
	if l := ts.Links(); len(l) != 1 || l[0].SpanContext.SpanID() != call.SpanContext().SpanID() {
		t.Errorf("task links = %v, want the creating request", l)
	}
	want(t, ts, map[string]string{"sake.task.status": "completed", "sake.task.id": digest(task.ID), "gen_ai.tool.name": "slow", "error.type": ""})
	if v, _ := sum(w.metrics()["sake.server.tasks.active"], active); v != 0 {
		t.Errorf("active tasks after = %d, want 0", v)
	}
}

func TestTaskCancelled(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	m := tasks.New()
	t.Cleanup(func() { _ = m.Shutdown(context.Background()) })
	c := saketest.Connect(t, &slow{release: make(chan struct{})}, saketest.ServerOptions(w.tel.Option(), sake.Tasks(m)))
	_, task, err := c.CallToolAsync("slow", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Request("tasks/cancel", map[string]any{"taskId": task.ID}); err != nil {
		t.Fatal(err)
	}
	ts := w.waitSpan("task slow")
	want(t, ts, map[string]string{"sake.task.status": "cancelled", "error.type": "cancelled"})
	if ts.Status().Code != codes.Error {
		t.Errorf("status = %v", ts.Status())
	}
}

func TestFailedCalls(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	c := saketest.Connect(t, &weather{}, saketest.ServerOptions(w.tel.Option()))

	// An unknown tool: a JSON-RPC error, and its name names nothing.
	_, err := c.CallTool("no_such_tool", nil)
	var e *sake.Error
	if !errors.As(err, &e) || e.Code != sake.CodeInvalidParams {
		t.Fatalf("err = %v", err)
	}
	s := w.span("tools/call")
	want(t, s, map[string]string{"error.type": "-32602", "rpc.response.status_code": "-32602", "gen_ai.tool.name": "no_such_tool"})
	if s.Status().Code != codes.Error || !strings.Contains(s.Status().Description, "no_such_tool") {
		t.Errorf("status = %+v", s.Status())
	}

	// A tool error: a result with isError.
	if _, err := c.CallTool("broken", map[string]any{"city": "Quito"}); err == nil {
		t.Fatal("broken did not fail")
	}
	b := w.span("tools/call broken")
	want(t, b, map[string]string{"error.type": "tool_error", "rpc.response.status_code": ""})
	if b.Status().Code != codes.Error {
		t.Errorf("status = %v", b.Status())
	}
	m := w.metrics()
	if v, _ := sum(m["sake.server.tool.errors"], attribute.String("gen_ai.tool.name", "broken")); v != 1 {
		t.Errorf("tool errors = %d", v)
	}
	if n, _ := histogramCount(m["mcp.server.operation.duration"], attribute.String("mcp.method.name", "tools/call"),
		attribute.String("gen_ai.operation.name", "execute_tool"), attribute.String("error.type", "-32602"),
		attribute.String("rpc.response.status_code", "-32602"), attribute.String("mcp.protocol.version", "2026-07-28")); n != 1 {
		t.Errorf("the unknown tool's duration is not recorded without its name: %+v", m["mcp.server.operation.duration"])
	}
	// A refused request (no capabilities in _meta) gets its span too.
	r := c.Server().Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`), nil)
	if r.ErrorCode != sake.CodeInvalidParams {
		t.Fatalf("%s", r.Body)
	}
	for _, s := range w.spans.Ended() {
		if attrs(s)["jsonrpc.request.id"] == "9" {
			want(t, s, map[string]string{"error.type": "-32602", "mcp.method.name": "tools/list"})
			return
		}
	}
	t.Errorf("no span for the refused request: %v", w.names())
}

func TestPanicIsAnExceptionAndTheLogCarriesTheTrace(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	var logs bytes.Buffer
	logger := slog.New(sakeotel.LogHandler(slog.NewJSONHandler(&logs, nil)))
	c := saketest.Connect(t, &weather{}, saketest.ReturnPanics(), saketest.ServerOptions(w.tel.Option(), sake.Logger(logger)))
	if _, err := c.CallTool("explode", nil); err == nil {
		t.Fatal("explode did not fail")
	}
	s := w.span("tools/call explode")
	want(t, s, map[string]string{"error.type": "tool_error"})
	var ev map[string]string
	for _, e := range s.Events() {
		if e.Name == "exception" {
			ev = map[string]string{}
			for _, kv := range e.Attributes {
				ev[string(kv.Key)] = kv.Value.String()
			}
		}
	}
	if ev["exception.message"] != "boom" || ev["exception.type"] != "panic: string" || !strings.Contains(ev["exception.stacktrace"], "Explode") {
		t.Errorf("exception event = %v", ev)
	}
	var line struct {
		Msg     string `json:"msg"`
		TraceID string `json:"trace_id"`
		SpanID  string `json:"span_id"`
	}
	if err := json.Unmarshal(logs.Bytes(), &line); err != nil {
		t.Fatalf("log: %v: %s", err, logs.Bytes())
	}
	if line.TraceID != s.SpanContext().TraceID().String() || line.SpanID != s.SpanContext().SpanID().String() {
		t.Errorf("log %+v, span %s/%s", line, s.SpanContext().TraceID(), s.SpanContext().SpanID())
	}
}

func TestToolIOOnlyWhenOptedIn(t *testing.T) {
	t.Parallel()
	w := newWorld(t, sakeotel.RecordToolIO("forecast"))
	c := saketest.Connect(t, &weather{}, saketest.ServerOptions(w.tel.Option()))
	if _, err := c.CallTool("forecast", map[string]any{"city": "Porto"}); err != nil {
		t.Fatal(err)
	}
	_, _ = c.CallTool("broken", map[string]any{"city": "secret-city"})
	want(t, w.span("tools/call forecast"), map[string]string{"gen_ai.tool.call.arguments": `{"city":"Porto"}`})
	if res := attrs(w.span("tools/call forecast"))["gen_ai.tool.call.result"]; !strings.Contains(res, "sunny in Porto") {
		t.Errorf("result = %q", res)
	}
	for _, s := range w.spans.Ended() {
		for _, kv := range s.Attributes() {
			if strings.Contains(kv.Value.String(), "secret-city") {
				t.Errorf("span %q records %s = %s", s.Name(), kv.Key, kv.Value.String())
			}
		}
	}
}

func TestListenStreams(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	srv := sake.MustNew(&weather{}, w.tel.Option())
	listen := attribute.String("sake.stream", "subscriptions/listen")

	// A modern subscriptions/listen counts while it runs.
	ctx, cancel := context.WithCancel(context.Background())
	acked := make(chan struct{}, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.Handle(ctx, []byte(`{"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`),
			&sake.Inbound{Stream: transport.StreamFunc(func([]byte) {
				select {
				case acked <- struct{}{}:
				default:
				}
			})})
	}()
	<-acked
	if v, _ := sum(w.metrics()["sake.server.listen_streams.open"], listen); v != 1 {
		t.Errorf("open listen streams = %d, want 1", v)
	}
	cancel()
	<-done
	if v, _ := sum(w.metrics()["sake.server.listen_streams.open"], listen); v != 0 {
		t.Errorf("open listen streams after = %d, want 0", v)
	}

	// A legacy GET stream counts through Handler while it is open.
	h := plug.New(srv)
	ts := httptest.NewServer(w.tel.Handler(h))
	post := func(body, sid string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	resp := post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`, "")
	sid := resp.Header.Get("Mcp-Session-Id")
	resp.Body.Close()
	post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, sid).Body.Close()
	get := func(sid string) *http.Response {
		req, _ := http.NewRequest(http.MethodGet, ts.URL, nil)
		req.Header.Set("Accept", "text/event-stream")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
		}
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	refused := get("")
	io.Copy(io.Discard, refused.Body)
	refused.Body.Close()
	if refused.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET without a session: %d", refused.StatusCode)
	}
	stream := get(sid)
	if stream.StatusCode != http.StatusOK {
		t.Fatalf("GET: %d", stream.StatusCode)
	}
	getAttr := attribute.String("sake.stream", "http_get")
	if v, _ := sum(w.metrics()["sake.server.listen_streams.open"], getAttr); v != 1 {
		t.Errorf("open GET streams = %d, want 1 (the refused GET does not count)", v)
	}
	stream.Body.Close()
	h.Close()
	ts.Close() // waits for the stream's handler to return
	if v, _ := sum(w.metrics()["sake.server.listen_streams.open"], getAttr); v != 0 {
		t.Errorf("open GET streams after = %d, want 0", v)
	}
}

func TestRoundTripperRecordsTransportFailures(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ts := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.Header.Get("traceparent") == "" {
			t.Error("no traceparent sent")
		}
		http.Error(rw, "nope", http.StatusUnauthorized)
	}))
	defer ts.Close()
	hc := &http.Client{Transport: w.tel.RoundTripper(nil)}
	req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(`{}`))
	req.Header.Set("Mcp-Method", "tools/list")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	s := w.span("tools/list")
	want(t, s, map[string]string{"error.type": "401", "mcp.method.name": "tools/list"})
	if s.SpanKind() != trace.SpanKindClient || s.Status().Code != codes.Error {
		t.Errorf("kind %v status %v", s.SpanKind(), s.Status())
	}
}
