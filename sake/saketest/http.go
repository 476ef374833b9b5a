package saketest

import (
	"bufio"
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/auth"
)

// HTTPError is an HTTP answer that carries no JSON-RPC response: the
// endpoint refused the request itself (no or bad token, foreign origin,
// unknown session).
type HTTPError struct {
	StatusCode int
	// Challenge is the WWW-Authenticate header, if any.
	Challenge string
	Body      string
}

// Unwrap returns what an authorization challenge says, so errors.As
// finds *sake.InsufficientScopeError or *sake.InsufficientAuthenticationError
// (with the challenge's resource_metadata) in a refusal by the endpoint
// itself, as in one by a component.
func (e *HTTPError) Unwrap() error {
	return challengeError(e.Challenge)
}

// Error implements error.
func (e *HTTPError) Error() string {
	s := fmt.Sprintf("saketest: HTTP %d", e.StatusCode)
	if e.Challenge != "" {
		s += " (WWW-Authenticate: " + e.Challenge + ")"
	}
	return s + ": " + e.Body
}

// httpTransport sends the client's messages through an http.Handler.
type httpTransport struct {
	t       testing.TB
	h       http.Handler
	url     string
	headers http.Header
	token   string
	key     crypto.Signer // DPoP key, nil for bearer tokens

	mu      sync.Mutex
	session string
}

func newHTTPTransport(t testing.TB, o *options) (*httpTransport, error) {
	ht := &httpTransport{t: t, h: o.handler, url: endpointURL(o.baseURL, o.path), headers: o.headers}
	if o.withToken && o.issuer != nil {
		var jkt string
		if o.dpop {
			key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
			if err != nil {
				return nil, err
			}
			ht.key = key
			if jkt, err = auth.Thumbprint(key.Public()); err != nil {
				return nil, err
			}
		}
		tok, err := mint(o, jkt)
		if err != nil {
			return nil, err
		}
		ht.token = tok
	}
	return ht, nil
}

// endpointURL is where requests go: BaseURL when it names a path (it is
// the endpoint's URL), else BaseURL's origin (default
// http://example.com) with the Handler's path.
func endpointURL(baseURL, path string) string {
	if u, err := url.Parse(baseURL); err == nil && u.Host != "" && strings.Trim(u.Path, "/") != "" {
		return baseURL
	}
	base := strings.TrimSuffix(baseURL, "/")
	if base == "" {
		base = "http://example.com"
	}
	return base + path
}

// mint issues a real token for the options' identity.
func mint(o *options, jkt string) (string, error) {
	sub := "saketest-user"
	if o.subject != nil {
		sub = *o.subject
	}
	client := o.clientID
	if client == "" {
		client = "sake-test"
	}
	return o.issuer.Issue(sub, client, o.scopes, o.acr, o.authTime, jkt)
}

// AccessToken mints a real access token with iss, for a request through a
// host's endpoint: Subject (default "saketest-user"; "" for a machine
// client), ClientID, Scopes, ACR and AuthTime say what it carries.
func AccessToken(t testing.TB, iss *auth.Issuer, opts ...Option) string {
	t.Helper()
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	o.issuer = iss
	tok, err := mint(&o, "")
	if err != nil {
		t.Fatalf("saketest: AccessToken: %v", err)
	}
	return tok
}

func (ht *httpTransport) sessionID() string {
	ht.mu.Lock()
	defer ht.mu.Unlock()
	return ht.session
}

// close ends a legacy session with DELETE, as a client leaving does.
func (ht *httpTransport) close() {
	sid := ht.sessionID()
	if sid == "" {
		return
	}
	req := httptest.NewRequest(http.MethodDelete, ht.url, nil)
	ht.setHeaders(req)
	req.Header.Set("Mcp-Session-Id", sid)
	ht.authorize(req)
	rec := httptest.NewRecorder()
	ht.h.ServeHTTP(rec, req)
}

// setHeaders adds the headers given with Header.
func (ht *httpTransport) setHeaders(req *http.Request) {
	for k, vs := range ht.headers {
		req.Header[k] = append([]string(nil), vs...)
	}
}

func (ht *httpTransport) authorize(req *http.Request) {
	if ht.token == "" {
		return
	}
	if ht.key == nil {
		req.Header.Set("Authorization", "Bearer "+ht.token)
		return
	}
	proof, err := auth.NewDPoPProof(ht.key, req.Method, req.URL.String(), ht.token, time.Now())
	if err != nil {
		ht.t.Errorf("saketest: DPoP proof: %v", err)
	}
	req.Header.Set("Authorization", "DPoP "+ht.token)
	req.Header.Set("DPoP", proof)
}

// post sends one message. Notifications and server requests that come on
// an SSE response are handled as they arrive.
func (ht *httpTransport) post(ctx context.Context, c *Client, body []byte) (sake.Reply, error) {
	var peek struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name   string `json:"name"`
			URI    string `json:"uri"`
			TaskID string `json:"taskId"`
			Meta   *struct {
				Version string `json:"io.modelcontextprotocol/protocolVersion"`
			} `json:"_meta"`
		} `json:"params"`
	}
	_ = json.Unmarshal(body, &peek)
	req := httptest.NewRequestWithContext(ctx, http.MethodPost, ht.url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	ht.setHeaders(req)
	modern := peek.Params.Meta != nil && peek.Params.Meta.Version != ""
	switch {
	case modern:
		req.Header.Set("MCP-Protocol-Version", peek.Params.Meta.Version)
		req.Header.Set("Mcp-Method", peek.Method)
		switch peek.Method {
		case "tools/call", "prompts/get":
			req.Header.Set("Mcp-Name", peek.Params.Name)
		case "resources/read":
			req.Header.Set("Mcp-Name", peek.Params.URI)
		case "tasks/get", "tasks/update", "tasks/cancel":
			req.Header.Set("Mcp-Name", peek.Params.TaskID)
		}
	default:
		c.mu.Lock()
		version := c.legacyVersion
		c.mu.Unlock()
		if version != "" {
			req.Header.Set("MCP-Protocol-Version", version)
		}
		if sid := ht.sessionID(); sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
		}
	}
	ht.authorize(req)

	w := newStreamWriter()
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer w.finish()
		ht.h.ServeHTTP(w, req)
	}()
	<-w.headerWritten
	defer func() { <-done }()
	if sid := w.header.Get("Mcp-Session-Id"); sid != "" && peek.Method == "initialize" {
		ht.mu.Lock()
		ht.session = sid
		ht.mu.Unlock()
	}
	reply := sake.Reply{Method: peek.Method}
	if strings.HasPrefix(w.header.Get("Content-Type"), "text/event-stream") {
		var final []byte
		err := readEvents(w.reader, func(data []byte) {
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if json.Unmarshal(data, &m) != nil {
				return
			}
			switch {
			case m.Method != "":
				c.record(append([]byte(nil), data...)) // a notification, or a request answered by POST
			case m.ID != nil:
				final = append([]byte(nil), data...)
			}
		})
		if err != nil {
			return reply, err
		}
		reply.Body = final
		return reply, nil
	}
	b, err := io.ReadAll(w.reader)
	if err != nil {
		return reply, err
	}
	if w.status >= 400 {
		var e struct {
			ID json.RawMessage `json:"id"`
		}
		challenge := w.header.Get("WWW-Authenticate")
		if json.Unmarshal(b, &e) != nil || e.ID == nil || string(e.ID) == "null" {
			return reply, &HTTPError{StatusCode: w.status, Challenge: challenge, Body: string(b)}
		}
		if challenge != "" {
			// A component's refusal: its JSON-RPC error, with what only
			// the challenge says.
			_, err := decodeReply(b)
			return reply, withChallenge(err, challenge)
		}
	}
	if len(b) > 0 {
		reply.Body = b
	}
	return reply, nil
}

// readEvents calls fn with the data of each SSE event.
func readEvents(r io.Reader, fn func(data []byte)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var data []byte
	for sc.Scan() {
		line := sc.Bytes()
		switch {
		case len(line) == 0:
			if len(data) > 0 {
				fn(data)
			}
			data = data[:0]
		case bytes.HasPrefix(line, []byte("data:")):
			if len(data) > 0 {
				data = append(data, '\n')
			}
			data = append(data, bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("data:")), []byte(" "))...)
		}
	}
	if len(data) > 0 {
		fn(data)
	}
	return sc.Err()
}

// streamWriter is an http.ResponseWriter whose body the client reads as
// the handler writes it, so streamed responses work in process.
type streamWriter struct {
	header        http.Header
	status        int
	once          sync.Once
	headerWritten chan struct{}
	reader        *io.PipeReader
	writer        *io.PipeWriter
}

func newStreamWriter() *streamWriter {
	r, w := io.Pipe()
	return &streamWriter{header: http.Header{}, headerWritten: make(chan struct{}), reader: r, writer: w}
}

func (s *streamWriter) Header() http.Header { return s.header }

func (s *streamWriter) WriteHeader(status int) {
	s.once.Do(func() {
		s.status = status
		h := http.Header{}
		for k, v := range s.header {
			h[k] = v
		}
		s.header = h
		close(s.headerWritten)
	})
}

func (s *streamWriter) Write(p []byte) (int, error) {
	s.WriteHeader(http.StatusOK)
	return s.writer.Write(p)
}

// Flush implements http.Flusher; writes reach the reader at once.
func (s *streamWriter) Flush() { s.WriteHeader(http.StatusOK) }

func (s *streamWriter) finish() {
	s.WriteHeader(http.StatusOK)
	_ = s.writer.Close()
}
