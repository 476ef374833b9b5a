package client

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// cacheOwner is a transport whose results a Cache can keep: it names the
// server it reaches and the credential it speaks with.
type cacheOwner interface {
	// cacheServer names the server: two transports with the same name
	// reach the same server.
	cacheServer() string
	// cacheIdentity is a digest of the credential the next request goes
	// with; ok is false when it cannot be known (the cache is then not
	// used).
	cacheIdentity(ctx context.Context) (id string, ok bool)
}

func cacheOwnerOf(t Transport) cacheOwner {
	if tt, ok := t.(*tapTransport); ok {
		t = tt.Transport
	}
	o, _ := t.(cacheOwner)
	return o
}

func (h *httpTransport) cacheServer() string { return "http " + h.url }

// cacheIdentity digests the headers a request to the endpoint carries:
// those given with Header and what the Authorizer sets (a DPoP proof,
// new for every request, left out: its token is in Authorization). When
// the *http.Client adds headers of its own (see addsHeaders), those are
// seen only once a request is sent: the identity is then the digest of
// the headers the last request went with, as they reached the network
// (http.Response.Request), and unknown (no cache) before the first.
func (h *httpTransport) cacheIdentity(ctx context.Context) (string, bool) {
	if h.opaque {
		if sent := h.sent.Load(); sent != nil {
			return *sent, true
		}
		return "", false
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.url, nil)
	if err != nil {
		return "", false
	}
	for k, v := range h.header {
		req.Header[k] = v
	}
	if h.auth != nil {
		if err := h.auth.Authorize(ctx, req); err != nil {
			return "", false
		}
	}
	return digestHeaders(req.Header), true
}

// noteSent keeps the digest of the headers a request was sent with, as
// the innermost transport saw them; without them the credential is
// unknown again.
func (h *httpTransport) noteSent(resp *http.Response) {
	if resp.Request == nil {
		h.sent.Store(nil)
		return
	}
	d := digestHeaders(resp.Request.Header)
	h.sent.Store(&d)
}

// perMessageHeaders are the headers the transport sets for each message,
// or that tracing sets for each request: they say nothing about who asks.
var perMessageHeaders = map[string]bool{
	"Accept": true, "Accept-Encoding": true, "Content-Type": true, "Content-Length": true, "User-Agent": true,
	"Dpop": true, "Last-Event-Id": true, "Mcp-Protocol-Version": true, "Mcp-Session-Id": true, "Mcp-Method": true, "Mcp-Name": true,
	"Traceparent": true, "Tracestate": true, "Baggage": true, "Sentry-Trace": true, "Uber-Trace-Id": true, "X-Request-Id": true, "X-Amzn-Trace-Id": true,
}

// digestHeaders digests the headers that may carry a credential: all but
// the per-message ones (and the Mcp-Param-* and B3 tracing families).
func digestHeaders(hdr http.Header) string {
	keys := make([]string, 0, len(hdr))
	for k := range hdr {
		ck := http.CanonicalHeaderKey(k)
		if perMessageHeaders[ck] || strings.HasPrefix(ck, "Mcp-Param-") || strings.HasPrefix(ck, "X-B3-") {
			continue
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	d := sha256.New()
	for _, k := range keys {
		for _, v := range hdr[k] {
			fmt.Fprintf(d, "%s\x00%s\x00", http.CanonicalHeaderKey(k), v)
		}
	}
	return hex.EncodeToString(d.Sum(nil))
}

// addsHeaders says the client may add headers to a request the transport
// cannot see beforehand: a RoundTripper other than *http.Transport (such
// as golang.org/x/oauth2's, which sets Authorization), or a cookie jar.
func addsHeaders(hc *http.Client) bool {
	rt := hc.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	_, std := rt.(*http.Transport)
	return !std || hc.Jar != nil
}

// CacheKeyer is implemented by an Endpoint whose results a Cache may
// keep (package sake/client/memory's endpoints do); an Endpoint that does
// not is never cached.
type CacheKeyer interface {
	// CacheKey names the server the endpoint reaches (two endpoints with
	// the same name reach the same server) and digests the identity the
	// next request goes with; ok is false when the identity cannot be
	// known, and the cache is then not used.
	CacheKey(ctx context.Context) (server, identity string, ok bool)
}

func (t *inProcess) cacheServer() string {
	if k, ok := t.e.(CacheKeyer); ok {
		server, _, _ := k.CacheKey(context.Background())
		return server
	}
	return ""
}

func (t *inProcess) cacheIdentity(ctx context.Context) (string, bool) {
	k, ok := t.e.(CacheKeyer)
	if !ok {
		return "", false
	}
	_, id, ok := k.CacheKey(ctx)
	return id, ok
}

// cacheServer names a stream's server by the transport itself: a process
// (or a pipe's peer) is reached by one client only, so its results are
// never shared.
func (t *streamTransport) cacheServer() string { return fmt.Sprintf("stream %p", t) }

func (t *streamTransport) cacheIdentity(context.Context) (string, bool) { return "", true }
