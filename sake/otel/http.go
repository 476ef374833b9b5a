package otel

import (
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

type httpVersionKey struct{}

// httpVersion returns the HTTP version Handler saw, or "".
func httpVersion(ctx context.Context) string {
	v, _ := ctx.Value(httpVersionKey{}).(string)
	return v
}

func protoVersion(r *http.Request) string {
	switch {
	case r.ProtoMajor == 1 && r.ProtoMinor == 1:
		return "1.1"
	case r.ProtoMajor == 2:
		return "2"
	case r.ProtoMajor == 3:
		return "3"
	case r.ProtoMajor == 1 && r.ProtoMinor == 0:
		return "1.0"
	}
	return ""
}

// Handler wraps an MCP endpoint's HTTP handler (sake/plug): requests whose
// _meta carries no trace context continue the one of the HTTP headers
// (traceparent, tracestate, baggage), their spans record the HTTP
// version, and legacy GET streams count as listen streams while open. It
// creates no HTTP span of its own; put otelhttp around it for those, and
// the MCP spans link to them.
func (t *Telemetry) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		if !trace.SpanContextFromContext(ctx).IsValid() {
			ctx = t.prop.Extract(ctx, propagation.HeaderCarrier(r.Header))
		}
		if v := protoVersion(r); v != "" {
			ctx = context.WithValue(ctx, httpVersionKey{}, v)
		}
		r = r.WithContext(ctx)
		if r.Method != http.MethodGet {
			next.ServeHTTP(w, r)
			return
		}
		sw := &streamWriter{ResponseWriter: w, t: t, ctx: ctx}
		defer sw.close()
		next.ServeHTTP(sw, r)
	})
}

// streamWriter counts a GET response as a listen stream once it starts
// as an event stream.
type streamWriter struct {
	http.ResponseWriter
	t       *Telemetry
	ctx     context.Context
	wrote   bool
	counted bool
}

var getStream = metric.WithAttributes(keyStream.String("http_get"))

func (w *streamWriter) WriteHeader(code int) {
	if !w.wrote {
		w.wrote = true
		if code == http.StatusOK && strings.HasPrefix(w.Header().Get("Content-Type"), "text/event-stream") {
			w.counted = true
			w.t.m.listenStreams.Add(w.ctx, 1, getStream)
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *streamWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// Flush sends buffered data, for writers that flush directly.
func (w *streamWriter) Flush() {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap gives http.ResponseController the underlying writer.
func (w *streamWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *streamWriter) close() {
	if w.counted {
		w.t.m.listenStreams.Add(context.WithoutCancel(w.ctx), -1, getStream)
	}
}

// RoundTripper instruments an MCP client's HTTP transport (base, or
// http.DefaultTransport when nil): each request gets a CLIENT span named
// from its Mcp-Method and Mcp-Name headers ("tools/call get_weather"; the
// HTTP method when they are absent, as for handshake-era requests), and
// the span's context travels in the traceparent header, where Handler
// finds it on the server. The span ends when the response body is closed
// or read to its end.
func (t *Telemetry) RoundTripper(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &roundTripper{t: t, base: base}
}

type roundTripper struct {
	t    *Telemetry
	base http.RoundTripper
}

func (rt *roundTripper) RoundTrip(r *http.Request) (*http.Response, error) {
	method := cut(strings.TrimSpace(r.Header.Get("Mcp-Method")), maxName)
	name := strings.TrimSpace(r.Header.Get("Mcp-Name"))
	spanName := r.Method
	attrs := make([]attribute.KeyValue, 0, 8)
	if method != "" {
		spanName = method
		attrs = append(attrs, keyMethod.String(method))
		if (method == "tools/call" || method == "prompts/get") && name != "" && len(name) <= maxName && !strings.HasPrefix(name, "=?") {
			spanName += " " + name
			key := keyToolName
			if method == "prompts/get" {
				key = keyPromptName
			} else {
				attrs = append(attrs, keyOperation.String(opTool))
			}
			attrs = append(attrs, key.String(name))
		}
	}
	if v := strings.TrimSpace(r.Header.Get("MCP-Protocol-Version")); v != "" {
		attrs = append(attrs, keyProtocolVersion.String(cut(v, maxName)))
	}
	if s := r.Header.Get("Mcp-Session-Id"); s != "" {
		attrs = append(attrs, keySessionID.String(rt.t.id(s)))
	}
	attrs = append(attrs, keyTransport.String("tcp"), keyProtocolName.String("http"))
	if host, port, err := net.SplitHostPort(r.URL.Host); err == nil {
		attrs = append(attrs, keyServerAddress.String(host))
		if p, err := strconv.Atoi(port); err == nil {
			attrs = append(attrs, keyServerPort.Int(p))
		}
	} else if r.URL.Host != "" {
		attrs = append(attrs, keyServerAddress.String(r.URL.Host))
	}
	ctx, span := rt.t.tracer.Start(r.Context(), spanName, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	out := r.Clone(ctx)
	rt.t.prop.Inject(ctx, propagation.HeaderCarrier(out.Header))
	resp, err := rt.base.RoundTrip(out)
	if err != nil {
		span.SetAttributes(keyErrorType.String(errorType(err)))
		span.SetStatus(codes.Error, cut(err.Error(), maxName))
		span.End()
		return nil, err
	}
	if resp.StatusCode >= 400 {
		code := strconv.Itoa(resp.StatusCode)
		span.SetAttributes(keyErrorType.String(code))
		span.SetStatus(codes.Error, "HTTP "+code)
	}
	if resp.Body == nil || resp.Body == http.NoBody {
		span.End()
		return resp, nil
	}
	resp.Body = &spanBody{ReadCloser: resp.Body, span: span}
	return resp, nil
}

// spanBody ends its span when the body is closed or read to its end.
type spanBody struct {
	io.ReadCloser
	span trace.Span
	once sync.Once
}

func (b *spanBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		b.once.Do(func() { b.span.End() })
	}
	return n, err
}

func (b *spanBody) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(func() { b.span.End() })
	return err
}
