package client

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
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

func (m *memoryTransport) cacheServer() string { return fmt.Sprintf("memory %p", m.srv) }

// cacheIdentity digests the identity the next in-memory request arrives
// as ("" when anonymous).
func (m *memoryTransport) cacheIdentity(context.Context) (string, bool) {
	if m.identity == nil {
		return "", true
	}
	id := m.identity()
	if id == nil {
		return "", true
	}
	b, err := json.Marshal(struct {
		Principal string
		Subject   string
		ClientID  string
		Scopes    []string
		ACR       string
		AuthTime  int64
		Claims    map[string]any
		FromToken bool
	}{fmt.Sprintf("%T %v", id.Principal, id.Principal), id.Subject, id.ClientID, id.Scopes, id.ACR, id.AuthTime.UnixNano(), id.Claims, id.FromToken})
	if err != nil {
		return "", false
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), true
}

// cacheServer names a stream's server by the transport itself: a process
// (or a pipe's peer) is reached by one client only, so its results are
// never shared.
func (t *streamTransport) cacheServer() string { return fmt.Sprintf("stream %p", t) }

func (t *streamTransport) cacheIdentity(context.Context) (string, bool) { return "", true }
