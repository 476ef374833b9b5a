package proxy

import (
	"context"

	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// remoteVersion is the version a remote list entry declares in its _meta
// (protocol.MetaComponentVersion), or "".
func remoteVersion(meta protocol.Meta) string {
	v, _ := meta[protocol.MetaComponentVersion].(string)
	return v
}

// askVersion makes a forwarded call ask the remote server for version v of
// the component, the one its list entry gave, when it has one.
func askVersion(ctx context.Context, v string) context.Context {
	if v == "" {
		return ctx
	}
	return client.WithVersion(ctx, v)
}

// replaceVersion records that the component key (its kind and local name
// or URI) is now proxied at version v, and removes the one proxied before
// when its version differs: the local server serves versions of one name
// side by side, but the proxy serves the one version the remote lists.
func (p *proxy) replaceVersion(key, v string, remove func() bool) {
	p.mu.Lock()
	if p.versions == nil {
		p.versions = map[string]string{}
	}
	prev, had := p.versions[key]
	p.versions[key] = v
	p.mu.Unlock()
	if had && prev != v {
		remove()
	}
}

// forgetVersion drops the record of a component no longer proxied.
func (p *proxy) forgetVersion(key string) {
	p.mu.Lock()
	delete(p.versions, key)
	p.mu.Unlock()
}
