package gateway

import (
	"strings"

	"github.com/sakemcp/sake-go/sake"
)

// missing explains a call of a tool or prompt, or a read of a resource,
// under the namespace of an entry that is not connected (a stdio server
// that exited and is being restarted, a URL being reconnected): the
// caller is told which entry and why, not that the name is unknown
// (sake.ExplainMissing).
func (g *Gateway) missing(kind, name string) error {
	sep := "_"
	if kind == "resource" {
		sep = "+"
	}
	g.mu.RLock() // a reload changes the remotes
	defer g.mu.RUnlock()
	for _, r := range g.remotes {
		if r.ns == "" || !strings.HasPrefix(name, r.ns+sep) {
			continue
		}
		r.mu.Lock()
		up, lastErr := r.up, r.lastErr
		r.mu.Unlock()
		if up {
			return nil
		}
		why := "it has not connected yet"
		if lastErr != nil {
			why = lastErr.Error()
		}
		return sake.NewError(sake.CodeInternalError, "%s %s belongs to the server %q, which is not connected (%s); the gateway is bringing it back: retry shortly", kind, name, r.key, why)
	}
	return nil
}
