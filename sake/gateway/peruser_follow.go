package gateway

import (
	"context"
	"fmt"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/proxy"
)

// follow keeps s's tools in step with the remote's list as the user's
// session sees it: on the remote's tools/list_changed, the session lists
// its tools again, the new ones are published (named and pinned as the
// first), the user's catalog becomes the new list, and the gateway's
// callers are told the list changed. It ends with the session.
func (pu *perUser) follow(s *userSession) {
	// The subscription is in place (acknowledged) before the session
	// serves a call: no change after its list is missed.
	ctx, cancel := context.WithCancel(context.Background())
	changes := make(chan string, 3)
	sub, err := s.cl.Listen(ctx, client.Filter{ToolsListChanged: true, PromptsListChanged: true, ResourcesListChanged: true}, func(n protocol.Notification) {
		select {
		case changes <- n.Method:
		default: // some pending already: their lists take this change in
		}
	})
	if err != nil {
		cancel()
		pu.r.logger.Warn("gateway: a user's session does not follow its server's tool changes", "server", pu.r.key, "err", upstreamDetail(err))
		return
	}
	go func() {
		defer cancel()
		defer sub.Close()
		for {
			select {
			case <-sub.Done():
				return
			case <-s.closed:
				return
			case <-s.cl.Lost():
				return
			case m := <-changes:
				if m == "notifications/resources/list_changed" {
					lctx, lcancel := context.WithTimeout(ctx, pu.g.o.startTimeout)
					resources := pu.listResources(lctx, s.cl)
					lcancel()
					s.res.Store(&resources)
					pu.rememberIfCurrent(s)
					pu.g.srv.NotifyListChanged(sake.ListResources)
					continue
				}
				if m == "notifications/prompts/list_changed" {
					lctx, lcancel := context.WithTimeout(ctx, pu.g.o.startTimeout)
					prompts := pu.listPrompts(lctx, s.cl)
					lcancel()
					s.prompts.Store(&prompts)
					pu.rememberIfCurrent(s)
					pu.g.srv.NotifyListChanged(sake.ListPrompts)
					continue
				}
			}
			lctx, lcancel := context.WithTimeout(ctx, pu.g.o.startTimeout)
			go func() {
				select {
				case <-s.closed:
					lcancel()
				case <-lctx.Done():
				}
			}()
			tools, err := s.cl.ListTools(lctx)
			lcancel()
			if err == nil && len(tools) > proxy.DefaultMaxListItems {
				err = fmt.Errorf("it lists %d tools, more than the %d the gateway takes", len(tools), proxy.DefaultMaxListItems)
			}
			if err != nil {
				pu.r.logger.Warn("gateway: a user's session could not follow its server's tool changes", "server", pu.r.key, "err", upstreamDetail(err))
				continue
			}
			listed := pu.publish(tools)
			s.tools.Store(&listed)
			pu.rememberIfCurrent(s)
			pu.g.srv.NotifyListChanged(sake.ListTools)
		}
	}()
}
