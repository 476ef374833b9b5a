package saketest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/sakemcp/sake-go/sake/auth"
	"github.com/sakemcp/sake-go/sake/client"
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
// finds *protocol.InsufficientScopeError or *protocol.InsufficientAuthenticationError
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

// handlerTransport is the client's HTTP transport whose requests are
// served by the Handler's http.Handler in process.
func handlerTransport(t testing.TB, o *options) (client.Transport, error) {
	rt := &handlerTrip{t: t, h: o.handler, headers: o.headers}
	if o.withToken && o.issuer != nil {
		var jkt string
		if o.dpop {
			key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
			if err != nil {
				return nil, err
			}
			rt.key = key
			if jkt, err = auth.Thumbprint(key.Public()); err != nil {
				return nil, err
			}
		}
		tok, err := mint(o, jkt)
		if err != nil {
			return nil, err
		}
		rt.token = tok
	}
	hc := &http.Client{Transport: rt, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return client.HTTP(endpointURL(o.baseURL, o.path), hc), nil
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
	tok, err := o.issuer.Issue(sub, client, o.scopes, o.acr, o.authTime, jkt)
	if err != nil || len(o.claims) == 0 {
		return tok, err
	}
	return withClaims(tok, o.issuer.Secret, o.claims)
}

// withClaims re-signs the HS256 token tok with the claims added; those it
// has (checkClaims keeps the token's own) stay.
func withClaims(tok string, secret []byte, extra map[string]any) (string, error) {
	var claims jwt.MapClaims
	parsed, _, err := jwt.NewParser().ParseUnverified(tok, &claims)
	if err != nil {
		return "", err
	}
	for k, v := range extra {
		if _, ok := claims[k]; !ok {
			claims[k] = v
		}
	}
	t := jwt.NewWithClaims(jwt.SigningMethodHS256, claims)
	t.Header = parsed.Header
	return t.SignedString(secret)
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
	if err := o.checkClaims(); err != nil {
		t.Fatal(err)
	}
	tok, err := mint(&o, "")
	if err != nil {
		t.Fatalf("saketest: AccessToken: %v", err)
	}
	return tok
}

// handlerTrip is an http.RoundTripper that hands each request to an
// http.Handler in process, with the Header headers and the access token,
// and streams the handler's answer back as it is written.
type handlerTrip struct {
	t       testing.TB
	h       http.Handler
	headers http.Header
	token   string
	key     crypto.Signer // DPoP key, nil for bearer tokens
}

// RoundTrip implements http.RoundTripper.
func (rt *handlerTrip) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	sreq := httptest.NewRequestWithContext(ctx, req.Method, req.URL.String(), req.Body)
	sreq.ContentLength = req.ContentLength
	for k, vs := range req.Header {
		sreq.Header[k] = append([]string(nil), vs...)
	}
	for k, vs := range rt.headers {
		sreq.Header[k] = append([]string(nil), vs...)
	}
	rt.authorize(sreq)
	w := newStreamWriter()
	go func() {
		defer w.finish()
		rt.h.ServeHTTP(w, sreq)
	}()
	select {
	case <-w.headerWritten:
	case <-ctx.Done():
		_ = w.reader.CloseWithError(ctx.Err())
		return nil, ctx.Err()
	}
	return &http.Response{Status: fmt.Sprintf("%d %s", w.status, http.StatusText(w.status)), StatusCode: w.status,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: w.header, Body: w.reader, ContentLength: -1, Request: req}, nil
}

func (rt *handlerTrip) authorize(req *http.Request) {
	if rt.token == "" {
		return
	}
	if rt.key == nil {
		req.Header.Set("Authorization", "Bearer "+rt.token)
		return
	}
	proof, err := auth.NewDPoPProof(rt.key, req.Method, req.URL.String(), rt.token, time.Now())
	if err != nil {
		rt.t.Errorf("saketest: DPoP proof: %v", err)
	}
	req.Header.Set("Authorization", "DPoP "+rt.token)
	req.Header.Set("DPoP", proof)
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
