package proxy

import (
	"context"
	"strings"
	"sync"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// MaxUnlistedSubscriptions bounds the resources a proxy subscribes to at
// its remote server on its callers' behalf without the remote listing
// them: 1024. A subscription beyond it is refused until one ends.
const MaxUnlistedSubscriptions = 1024

// MaxUnlistedSubscriptionsPerCaller bounds the subscriptions to resources
// the remote does not list that one caller (an identity's owner, every
// anonymous caller together) holds through a proxy, over all its
// sessions: 256, so that no caller takes the whole of
// MaxUnlistedSubscriptions.
const MaxUnlistedSubscriptionsPerCaller = 256

// onDemandSub is the proxy's subscription to a resource the remote server
// did not list, held while any of the proxy's subscribers holds one.
type onDemandSub struct {
	sub  *client.Subscription
	refs int
}

// claim takes a subscription to uri, a URI the remote server did not list
// (sake.SubscribeUnlisted): the remote is asked, and the URI is
// subscribable when it takes the subscription. Its updates then reach the
// proxy's subscribers. The URIs the proxy's filters leave out, and those
// of its copied skills, are not the remote's to serve through it.
func (p *proxy) claim(ctx context.Context, req *sake.Request, uri string) (func(), error) {
	if !declaresSubscribe(p.remote.Info()) {
		return nil, sake.NewError(sake.CodeInvalidParams, "Invalid params: no resource matches the uri, and the upstream server %q takes no resource subscriptions", p.name())
	}
	if (p.cfg.resources != nil && !p.cfg.resources(uri)) || (p.skills && strings.HasPrefix(uri, skillScheme)) {
		return nil, sake.NewError(sake.CodeInvalidParams, "Invalid params: no resource or resource template matches the uri; subscribe to a URI that resources/list or resources/templates/list names")
	}
	owner := req.Identity.Owner()
	p.mu.Lock()
	if p.claimsBy[owner] >= MaxUnlistedSubscriptionsPerCaller {
		p.mu.Unlock()
		return nil, sake.NewError(sake.CodeInvalidParams, "Invalid params: this caller holds %d subscriptions to resources the upstream server %q does not list, the most one caller holds (MaxUnlistedSubscriptionsPerCaller); unsubscribe from one first", MaxUnlistedSubscriptionsPerCaller, p.name())
	}
	if s := p.onDemand[uri]; s != nil {
		s.refs++
		p.countClaim(owner)
		p.mu.Unlock()
		return p.releaser(uri, owner), nil
	}
	if len(p.onDemand) >= MaxUnlistedSubscriptions {
		p.mu.Unlock()
		return nil, sake.NewError(sake.CodeInternalError, "the proxy holds %d subscriptions to resources the upstream server %q does not list, the most it takes (MaxUnlistedSubscriptions); retry once one ends", MaxUnlistedSubscriptions, p.name())
	}
	// Marked before it is asked for: its updates may come at once.
	markedHere := !p.followed[uri]
	if p.followed == nil {
		p.followed = map[string]bool{}
	}
	p.followed[uri] = true
	p.mu.Unlock()
	sub, err := p.remote.Listen(ctx, client.Filter{Resources: []string{uri}}, func(n protocol.Notification) {
		if n.Method == "notifications/resources/updated" {
			p.updated(n.Params, uri)
		}
	})
	p.mu.Lock()
	if err != nil {
		if markedHere && p.onDemand[uri] == nil {
			delete(p.followed, uri)
		}
		p.mu.Unlock()
		return nil, upstreamError(err)
	}
	if s := p.onDemand[uri]; s != nil {
		// Another subscriber's claim of the same URI got there first.
		s.refs++
		p.countClaim(owner)
		p.mu.Unlock()
		go sub.Close()
		return p.releaser(uri, owner), nil
	}
	if p.onDemand == nil {
		p.onDemand = map[string]*onDemandSub{}
	}
	p.onDemand[uri] = &onDemandSub{sub: sub, refs: 1}
	p.countClaim(owner)
	p.mu.Unlock()
	return p.releaser(uri, owner), nil
}

// countClaim counts a claim of owner's, under p.mu.
func (p *proxy) countClaim(owner string) {
	if p.claimsBy == nil {
		p.claimsBy = map[string]int{}
	}
	p.claimsBy[owner]++
}

// releaser returns the release of one claim of uri by owner: the last
// claim of uri ends the remote subscription.
func (p *proxy) releaser(uri, owner string) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			p.mu.Lock()
			if p.claimsBy[owner]--; p.claimsBy[owner] <= 0 {
				delete(p.claimsBy, owner)
			}
			s := p.onDemand[uri]
			if s == nil {
				p.mu.Unlock()
				return
			}
			s.refs--
			if s.refs > 0 {
				p.mu.Unlock()
				return
			}
			delete(p.onDemand, uri)
			delete(p.followed, uri)
			p.mu.Unlock()
			// A remote that does not answer holds no subscriber up.
			go s.sub.Close()
		})
	}
}
