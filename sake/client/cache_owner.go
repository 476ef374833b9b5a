package client

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"slices"
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
// new for every request, left out: its token is in Authorization).
func (h *httpTransport) cacheIdentity(ctx context.Context) (string, bool) {
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
	req.Header.Del("DPoP")
	keys := make([]string, 0, len(req.Header))
	for k := range req.Header {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	d := sha256.New()
	for _, k := range keys {
		for _, v := range req.Header[k] {
			fmt.Fprintf(d, "%s\x00%s\x00", k, v)
		}
	}
	return hex.EncodeToString(d.Sum(nil)), true
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
