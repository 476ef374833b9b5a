package kittest

import (
	"bytes"
	"io"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
)

// Recorder wraps an HTTP handler and records what reaches it: each
// request's method, body and headers.
type Recorder struct {
	h http.Handler
	// Forget, once set, answers the next request of a session with 404
	// (the server no longer knows the session), then clears itself.
	Forget atomic.Bool

	mu      sync.Mutex
	methods []string
	bodies  [][]byte
	headers []http.Header
}

// NewRecorder records what reaches h.
func NewRecorder(h http.Handler) *Recorder { return &Recorder{h: h} }

// ServeHTTP records the request and hands it to the wrapped handler.
func (r *Recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
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
	if req.Method == http.MethodPost && req.Header.Get("Mcp-Session-Id") != "" && r.Forget.CompareAndSwap(true, false) {
		http.Error(w, "session not found", http.StatusNotFound)
		return
	}
	r.h.ServeHTTP(w, req)
}

// Count returns how many requests of the HTTP method arrived.
func (r *Recorder) Count(method string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, m := range r.methods {
		if m == method {
			n++
		}
	}
	return n
}

// Headers returns the headers of every request so far, in order.
func (r *Recorder) Headers() []http.Header {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.headers)
}

// Bodies returns the body of every request so far, in order.
func (r *Recorder) Bodies() [][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.bodies)
}
