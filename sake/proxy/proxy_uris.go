package proxy

import (
	"strings"

	"github.com/sakemcp/sake-go/sake/protocol"
)

// URINamespace says the proxy's server is mounted under namespace
// (sake.Server.Mount, as sake/gateway mounts it): the URIs the remote
// server names in what it returns (resource links and embedded resources
// in tool results and prompts) are rewritten to their mounted form,
// namespace+uri, so that a caller can read them through the parent. MCP
// Apps views (ui://) keep their URIs, as a mount keeps them. "" (the
// default) rewrites nothing.
func URINamespace(namespace string) Option {
	return func(p *proxyConfig) { p.uriNS = namespace }
}

// localURI is the URI a caller of the mounted proxy reads the remote's
// resource u at.
func (p *proxyConfig) localURI(u string) string {
	if p.uriNS == "" || strings.HasPrefix(u, "ui://") || !hasScheme(u) {
		return u
	}
	return p.uriNS + "+" + u
}

// localContent rewrites the URIs of the resource links and embedded
// resources of content, in place (it was decoded for this call).
func (p *proxyConfig) localContent(content []protocol.Content) {
	if p.uriNS == "" {
		return
	}
	for _, c := range content {
		switch c := c.(type) {
		case *protocol.ResourceLink:
			c.URI = p.localURI(c.URI)
		case *protocol.EmbeddedResource:
			c.Resource.URI = p.localURI(c.Resource.URI)
		}
	}
}

// localToolResult rewrites the URIs of a tool result's content.
func (p *proxyConfig) localToolResult(res *protocol.ToolResult) {
	if res != nil {
		p.localContent(res.Content)
	}
}

// localPromptResult rewrites the URIs of a prompt's messages.
func (p *proxyConfig) localPromptResult(res *protocol.PromptResult) {
	if res == nil || p.uriNS == "" {
		return
	}
	for i := range res.Messages {
		p.localContent([]protocol.Content{res.Messages[i].Content})
	}
}

// hasScheme reports whether u starts with an RFC 3986 scheme and a colon.
func hasScheme(u string) bool {
	for i := 0; i < len(u); i++ {
		c := u[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			return true
		default:
			return false
		}
	}
	return false
}
