package plug_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// benchPost sends body to the server over a keep-alive client, from
// GOMAXPROCS goroutines, and checks every status.
func benchPost(b *testing.B, url string, body []byte, hdr http.Header) {
	b.Helper()
	tr := &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
			if err != nil {
				b.Error(err)
				return
			}
			req.Header = hdr
			resp, err := client.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				b.Errorf("status %d", resp.StatusCode)
				return
			}
		}
	})
}

func BenchmarkHTTPToolsCallModern(b *testing.B) {
	ts, _, _ := serve(b, echo{})
	body, hdr := modernCall("hello")
	benchPost(b, ts.URL, []byte(body), hdr)
}

func BenchmarkHTTPToolsCallLegacy(b *testing.B) {
	ts, _, _ := serve(b, echo{})
	sid := initialize(b, ts, nil)
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`)
	benchPost(b, ts.URL, body, legacyHeaders(sid))
}

// benchWriter is a ResponseWriter that keeps nothing but the status, so
// that BenchmarkHandler counts the handler's own costs.
type benchWriter struct {
	hdr    http.Header
	status int
	n      int
}

func (w *benchWriter) Header() http.Header { return w.hdr }
func (w *benchWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}
func (w *benchWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	w.n += len(p)
	return len(p), nil
}

// benchBody is a request body that can be read again.
type benchBody struct{ bytes.Reader }

func (*benchBody) Close() error { return nil }

// BenchmarkHandler is one POST of tools/call through the handler alone,
// without a network or an HTTP client: what plug and the dispatcher cost
// per request.
func BenchmarkHandler(b *testing.B) {
	for _, era := range []string{"modern", "legacy"} {
		b.Run(era, func(b *testing.B) {
			_, h, _ := serve(b, echo{})
			body, hdr := modernCall("hello")
			if era == "legacy" {
				init := &benchWriter{hdr: http.Header{}}
				r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1.0.0"}}}`))
				r.Header = legacyHeaders("")
				h.ServeHTTP(init, r)
				if init.status != http.StatusOK {
					b.Fatalf("initialize: status %d", init.status)
				}
				body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`
				hdr = legacyHeaders(init.hdr.Get("Mcp-Session-Id"))
			}
			rb := &benchBody{}
			r := httptest.NewRequest(http.MethodPost, "/", rb)
			r.Header = hdr
			w := &benchWriter{hdr: http.Header{}}
			b.ReportAllocs()
			for b.Loop() {
				rb.Reset([]byte(body))
				r.ContentLength = int64(len(body))
				clear(w.hdr)
				w.status, w.n = 0, 0
				h.ServeHTTP(w, r)
				if w.status != http.StatusOK || w.n == 0 {
					b.Fatalf("status %d, %d bytes", w.status, w.n)
				}
			}
		})
	}
}
