package sake

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/sakemcp/sake-go/sake/backend"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// listenFilter is the notifications part of subscriptions/listen.
type listenFilter struct {
	ToolsListChanged      bool     `json:"toolsListChanged,omitempty"`
	PromptsListChanged    bool     `json:"promptsListChanged,omitempty"`
	ResourcesListChanged  bool     `json:"resourcesListChanged,omitempty"`
	ResourceSubscriptions []string `json:"resourceSubscriptions,omitempty"`
	TaskIDs               []string `json:"taskIds,omitempty"`
}

func (f *listenFilter) wants(b Broadcast) bool {
	if b.URI != "" {
		for _, u := range f.ResourceSubscriptions {
			if b.URI == u || strings.HasPrefix(b.URI, strings.TrimSuffix(u, "/")+"/") {
				return true
			}
		}
		return false
	}
	switch b.List {
	case ListTools:
		return f.ToolsListChanged
	case ListPrompts:
		return f.PromptsListChanged
	case ListResources:
		return f.ResourcesListChanged
	}
	return false
}

// mayHear reports whether the caller of req may be told of b: an update of
// a resource only when the caller may read it (its requirement, and the
// PerCallerLists predicate), so that a subscription (a prefix one
// included) never tells of changes to a resource the caller may not read.
func (s *Server) mayHear(req *Request, b Broadcast) bool {
	if b.URI == "" {
		return true
	}
	reg := s.comps.current()
	return s.authorizeURI(req, b.URI, reg) == nil && !s.refusesURI(req, b.URI, reg)
}

// checkListenURIs refuses the resource subscriptions of a listen as
// resources/subscribe refuses one: a URI the server does not serve, or
// serves but the list policy keeps from the caller, is -32602 naming it;
// one whose requirement the caller does not meet is the error
// resources/read gives (insufficient scope, 403 over HTTP). A URI no
// resource has is taken as a prefix ("notes://" for notes://1,
// notes://2) when the caller may read a resource or template under it.
// Nothing is acknowledged unless every URI is.
func (s *Server) checkListenURIs(req *Request, uris []string, reg *registry) error {
	if max := s.maxSubscriptions(); max > 0 && len(uris) > max {
		return InvalidParams("Invalid params: notifications.resourceSubscriptions names %d URIs; the server takes at most %d (Limits.MaxSubscriptions)", len(uris), max)
	}
	for _, uri := range uris {
		if uri == "" {
			return InvalidParams("Invalid params: notifications.resourceSubscriptions holds an empty URI")
		}
		if s.serves(uri, reg) {
			if err := s.checkSubscription(uri, reg); err != nil {
				return err
			}
			if s.refusesURI(req, uri, reg) {
				return notSubscribable(uri)
			}
			if err := s.authorizeURI(req, uri, reg); err != nil {
				return err
			}
			continue
		}
		if err := s.checkSubscription(uri, nil); err != nil {
			return err
		}
		if !s.readableUnder(req, uri, reg) && !s.claimsUnlisted() {
			return notSubscribable(uri)
		}
	}
	return nil
}

// readableUnder reports whether the caller may read a resource or
// template whose URI lies under prefix (as listenFilter.wants matches
// updates).
func (s *Server) readableUnder(req *Request, prefix string, reg *registry) bool {
	dir := strings.TrimSuffix(prefix, "/") + "/"
	for _, list := range [][]*resource{reg.resources, reg.templates} {
		for _, r := range list {
			if strings.HasPrefix(r.uri, dir) && s.permits(req, r) && s.authorize(r.require, req) == nil {
				return true
			}
		}
	}
	return false
}

// listen serves subscriptions/listen: an acknowledgement first, then every
// broadcast the filter asked for, each tagged with the listen request's id,
// until the client goes away (ctx) or the server shuts down (a final
// result).
func (s *Server) listen(ctx context.Context, req *Request, reg *registry) (any, error) {
	var f listenFilter
	if len(req.Params.Notifications) > 0 {
		if err := json.Unmarshal(req.Params.Notifications, &f); err != nil {
			return nil, InvalidParams("Invalid params: notifications: %v", err)
		}
	}
	// Honour only what the server offers.
	if !reg.offersPrompts() {
		f.PromptsListChanged = false
	}
	if !reg.offersResources() {
		f.ResourcesListChanged, f.ResourceSubscriptions = false, nil
	}
	if err := s.checkListenURIs(req, f.ResourceSubscriptions, reg); err != nil {
		return nil, err
	}
	release, err := s.claimListenURIs(ctx, req, f.ResourceSubscriptions, reg)
	if err != nil {
		return nil, err
	}
	defer release()
	if len(f.TaskIDs) > 0 {
		if s.opts.tasks == nil {
			f.TaskIDs = nil
		} else if !req.ClientCapabilities.HasExtension(protocol.TaskExtension) {
			return nil, missingTaskExtension()
		}
	}
	notify := req.in.send
	if !req.in.streams() {
		return nil, &Error{Code: CodeMethodNotFound, Message: "subscriptions/listen needs a transport that streams"}
	}
	events := make(chan Broadcast, 64)
	stop := s.Watch(func(b Broadcast) {
		if f.wants(b) && s.mayHear(req, b) {
			select {
			case events <- b:
			default: // a listener this far behind loses the event; list changes are idempotent hints
			}
		}
	})
	defer stop()
	taskEvents := make(chan *backend.Task, 64)
	if len(f.TaskIDs) > 0 {
		ids := map[string]bool{}
		for _, id := range f.TaskIDs {
			ids[id] = true
		}
		stopTasks := s.opts.tasks.Subscribe(req.Identity.Owner(), func(t *backend.Task) {
			if ids[t.ID] {
				select {
				case taskEvents <- t:
				default:
				}
			}
		})
		defer stopTasks()
	}
	ack := protocol.AppendNotificationHead(nil, "notifications/subscriptions/acknowledged")
	ack = append(ack, `{"_meta":{"`+protocol.MetaSubscriptionID+`":`...)
	ack = append(ack, req.ID...)
	ack = append(ack, `},"notifications":`...)
	fj, _ := json.Marshal(f)
	ack = append(ack, fj...)
	ack = append(ack, "}}"...)
	notify(ack)
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-s.done:
			return &listenClosed{id: req.ID}, nil
		case b := <-events:
			notify(broadcastJSON(b, req.ID))
		case t := <-taskEvents:
			msg := protocol.AppendNotificationHead(nil, "notifications/tasks")
			msg = append(msg, '{')
			msg = appendDetailed(msg, t)
			msg = append(msg, `,"_meta":{"`+protocol.MetaSubscriptionID+`":`...)
			msg = append(msg, req.ID...)
			msg = append(msg, "}}}"...)
			notify(msg)
		}
	}
}

// listenClosed is the result that ends a listen stream gracefully.
type listenClosed struct{ id json.RawMessage }

func (r *listenClosed) appendResult(dst []byte, w *resultWriter) ([]byte, error) {
	return w.tail(append(dst, '{'), true, Meta{protocol.MetaSubscriptionID: r.id}, cacheNone, "")
}
