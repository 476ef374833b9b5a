package proxy

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// follow keeps the lists in step with the remote server's, and passes on
// the updates of the resources it serves when the remote server takes
// resource subscriptions (resources.subscribe): it asks for those only
// then. A session's subscriptions are one per resource, so that a
// resource the remote server refuses to subscribe to costs only its own
// updates, never the others' nor the list changes.
func (p *proxy) follow(ctx context.Context) {
	info := p.remote.Info()
	var uris []string
	if declaresSubscribe(info) {
		p.mu.Lock()
		for uri := range p.resources {
			if !strings.Contains(uri, "{") {
				uris = append(uris, uri)
			}
		}
		p.mu.Unlock()
	}
	changes := make(chan string, 8)
	onChange := func(n protocol.Notification) {
		select {
		case changes <- n.Method:
		default: // a change is pending already: the next sync takes it in
		}
	}
	// The remote's log messages outside any call go to the proxy's
	// sessions whose level admits them.
	f := client.Filter{ToolsListChanged: true, PromptsListChanged: true, ResourcesListChanged: true, Logs: true}
	if info.Era == sake.EraModern {
		// One stream: the server acknowledges the subscriptions it honours.
		f.Resources = uris
		uris = nil
	}
	sub, err := p.remote.Listen(ctx, f, func(n protocol.Notification) {
		switch n.Method {
		case "notifications/resources/updated":
			p.updated(n.Params, "")
		case "notifications/message":
			p.passLog(n.Params)
		default:
			onChange(n)
		}
	})
	if err != nil {
		p.remote.Logger().Warn("client: the proxy cannot follow the remote server's changes", "err", err)
		return
	}
	resourceSubs := p.subscribeEach(ctx, uris)
	go func() {
		defer func() {
			sub.Close()
			for _, s := range resourceSubs {
				s.Close()
			}
		}()
		for {
			select {
			case <-ctx.Done():
				return
			case <-sub.Done():
				return
			case m := <-changes:
				var err error
				switch m {
				case "notifications/tools/list_changed":
					err = p.syncTools(ctx)
				case "notifications/prompts/list_changed":
					err = p.syncPrompts(ctx)
				case "notifications/resources/list_changed":
					err = p.syncResources(ctx)
				}
				if err != nil && ctx.Err() == nil {
					p.remote.Logger().Warn("client: the proxy could not follow a list change", "change", m, "err", err)
				}
			}
		}
	}()
}

// subscribeEach subscribes to each resource of a session on its own; the
// ones the remote server refuses are left out, with a warning.
func (p *proxy) subscribeEach(ctx context.Context, uris []string) []*client.Subscription {
	var subs []*client.Subscription
	for _, uri := range uris {
		// Marked before it is asked for: its updates may come at once.
		p.mu.Lock()
		if p.followed == nil {
			p.followed = map[string]bool{}
		}
		p.followed[uri] = true
		p.mu.Unlock()
		s, err := p.remote.Listen(ctx, client.Filter{Resources: []string{uri}}, func(n protocol.Notification) {
			if n.Method == "notifications/resources/updated" {
				p.updated(n.Params, uri)
			}
		})
		if err != nil {
			p.mu.Lock()
			delete(p.followed, uri)
			p.mu.Unlock()
			if ctx.Err() != nil {
				break
			}
			p.remote.Logger().Warn("client: the remote server refused a resource subscription; the proxy's callers get no updates of it", "uri", uri, "err", err)
			continue
		}
		subs = append(subs, s)
	}
	return subs
}

// updated passes a remote resources/updated on to the proxy's callers.
// A session's update reaches every subscription whose resource it is
// under; it goes on once, by the subscription of the nearest one (by).
func (p *proxy) updated(params json.RawMessage, by string) {
	var u struct {
		URI string `json:"uri"`
	}
	if json.Unmarshal(params, &u) != nil || u.URI == "" {
		return
	}
	if by != "" {
		p.mu.Lock()
		near := nearest(u.URI, p.followed)
		p.mu.Unlock()
		if near != by {
			return
		}
	}
	p.srv.ResourceUpdated(u.URI)
}

// nearest returns the URI among followed that uri is, or else the longest
// one uri is a sub-resource of (as client.Subscription matches them), or "".
func nearest(uri string, followed map[string]bool) string {
	if followed[uri] {
		return uri
	}
	for i := len(uri) - 1; i > 0; i-- {
		if uri[i] != '/' {
			continue
		}
		if followed[uri[:i+1]] {
			return uri[:i+1]
		}
		if followed[uri[:i]] {
			return uri[:i]
		}
	}
	return ""
}

// declaresSubscribe reports whether the server declared
// resources.subscribe true (a server that declares it false, or leaves it
// out, answers resources/subscribe with an error, if at all).
func declaresSubscribe(info client.ServerInfo) bool {
	var caps struct {
		Resources *struct {
			Subscribe bool `json:"subscribe"`
		} `json:"resources"`
	}
	return json.Unmarshal(info.Capabilities, &caps) == nil && caps.Resources != nil && caps.Resources.Subscribe
}

// passLog passes on a log message of the remote server's that belongs to
// no call (sake.Server.Log).
func (p *proxy) passLog(params json.RawMessage) {
	var m struct {
		Level  sake.LogLevel   `json:"level"`
		Logger string          `json:"logger"`
		Data   json.RawMessage `json:"data"`
	}
	if json.Unmarshal(params, &m) != nil || len(m.Data) == 0 {
		return
	}
	p.srv.Log(m.Level, m.Logger, m.Data)
}
