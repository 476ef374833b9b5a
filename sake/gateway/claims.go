package gateway

import (
	"strings"
	"sync"

	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/proxy"
)

// claims says which remote serves each name that two remotes could both
// bring: an MCP Apps view's ui:// URI (a mount keeps it as it is), and
// every name of a merged remote (namespace ""). The first remote to
// bring a name keeps it while it is mounted; a later one is left without
// that component (logged), never without its whole mount, and never
// takes it from the first.
type claims struct {
	mu     sync.Mutex
	owners map[string]string // "tool:" name, "prompt:" name or "uri:" URI → remote key
}

// claim gives name to key unless another remote has it.
func (c *claims) claim(name, key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	owner, ok := c.owners[name]
	if !ok {
		if c.owners == nil {
			c.owners = map[string]string{}
		}
		c.owners[name] = key
		return true
	}
	return owner == key
}

// release gives back every name of key (its mount is gone).
func (c *claims) release(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for name, owner := range c.owners {
		if owner == key {
			delete(c.owners, name)
		}
	}
}

// filters are the proxy filters of r: a namespaced remote claims its
// views; a merged one claims all its names, and leaves out those inside
// another entry's namespace (a namespace belongs to its remote).
func (g *Gateway) filters(r *remote) []proxy.Option {
	merged := r.ns == ""
	var others []string
	g.mu.RLock()
	for _, o := range g.remotes {
		if o != r && o.ns != "" {
			others = append(others, o.ns)
		}
	}
	g.mu.RUnlock()
	inOther := func(name, sep string) bool {
		for _, ns := range others {
			if strings.HasPrefix(name, ns+sep) {
				return true
			}
		}
		return false
	}
	keep := func(kind, name string) bool {
		ok := g.claims.claim(kind+name, r.key)
		if !ok {
			r.logger.Warn("gateway: another remote serves this name already; left out", "server", r.key, "name", name)
		}
		return ok
	}
	resources := proxy.FilterResources(func(uri string) bool {
		switch {
		case merged && inOther(uri, "+"):
			r.logger.Warn("gateway: a URI inside another entry's namespace; left out", "server", r.key, "uri", uri)
			return false
		case merged || strings.HasPrefix(uri, "ui://"):
			return keep("uri:", uri)
		}
		return true
	})
	if !merged {
		return []proxy.Option{resources}
	}
	return []proxy.Option{resources,
		proxy.FilterTools(func(t protocol.ToolInfo) bool {
			if inOther(t.Name, "_") {
				r.logger.Warn("gateway: a tool name inside another entry's namespace; left out", "server", r.key, "tool", t.Name)
				return false
			}
			return keep("tool:", publishedName("", t.Name))
		}),
		proxy.FilterPrompts(func(p protocol.PromptInfo) bool {
			if inOther(p.Name, "_") {
				r.logger.Warn("gateway: a prompt name inside another entry's namespace; left out", "server", r.key, "prompt", p.Name)
				return false
			}
			return keep("prompt:", publishedName("", p.Name))
		}),
	}
}
