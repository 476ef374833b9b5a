package proxy_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/internal/kittest"
	"github.com/sakemcp/sake-go/sake/plug"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// The kit and the connections are shared with sake/client's tests.
type (
	kit    = kittest.Kit
	pyWire = kittest.PyWire
)

var (
	newKit     = kittest.NewKit
	transports = kittest.Transports
	eras       = kittest.Eras
	connect    = kittest.Connect
)

// newKitServer builds the kit's server with tasks and small pages.
func newKitServer(t *testing.T) (*sake.Server, *kit) { return kittest.NewServer(t) }

// recorder wraps a handler and counts what reaches it.
type recorder struct {
	h       http.Handler
	mu      sync.Mutex
	methods []string
	bodies  [][]byte
	headers []http.Header
	forget  atomic.Bool // answer 404 to the next session request
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	r.mu.Lock()
	r.methods = append(r.methods, req.Method)
	r.bodies = append(r.bodies, body)
	r.headers = append(r.headers, req.Header.Clone())
	r.mu.Unlock()
	if req.Method == http.MethodPost && req.Header.Get("Mcp-Session-Id") != "" && r.forget.CompareAndSwap(true, false) {
		http.Error(w, "session not found", http.StatusNotFound)
		return
	}
	r.h.ServeHTTP(w, req)
}

func askOptions(asked *[]string, mu *sync.Mutex) []client.Option {
	note := func(s string) {
		mu.Lock()
		*asked = append(*asked, s)
		mu.Unlock()
	}
	return []client.Option{
		client.OnElicit(func(_ context.Context, r *protocol.ElicitRequest) (*protocol.ElicitResult, error) {
			note("elicit " + r.Mode + " " + r.Message)
			return client.Accept(map[string]any{"name": "Ada"}), nil
		}),
		client.OnSample(func(_ context.Context, r *sake.SamplingRequest) (*sake.SamplingResult, error) {
			note("sample")
			return &sake.SamplingResult{Content: sake.Text("model says hi"), Model: "m"}, nil
		}),
		client.Roots(sake.Root{URI: "file:///work", Name: "work"}),
	}
}

// httpKitFor serves srv over HTTP through a recorder.
func httpKitFor(t *testing.T, srv *sake.Server) (*sake.Server, *recorder, string) {
	h := plug.New(srv)
	rec := &recorder{h: h}
	ts := httptest.NewServer(rec)
	t.Cleanup(func() { ts.Close(); h.Close() })
	return srv, rec, ts.URL
}

func isCode(err error, code int) bool {
	var e *sake.Error
	return errors.As(err, &e) && e.Code == code
}
