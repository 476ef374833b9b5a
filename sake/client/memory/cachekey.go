package memory

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// CacheKey names the server the endpoint reaches and digests the identity
// its next request arrives as ("" when anonymous), so that a client.Cache
// keeps one caller's private results apart from another's.
func (m *endpoint) CacheKey(context.Context) (server, identity string, ok bool) {
	server = fmt.Sprintf("memory %p", m.srv)
	if m.identity == nil {
		return server, "", true
	}
	id := m.identity()
	if id == nil {
		return server, "", true
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
		return server, "", false
	}
	sum := sha256.Sum256(b)
	return server, hex.EncodeToString(sum[:]), true
}
