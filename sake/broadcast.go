package sake

import (
	"sync"

	"github.com/sakemcp/sake-go/sake/backend"

	"github.com/sakemcp/sake-go/sake/protocol"
)

// List names one of the server's component lists.
type List = protocol.List

// The lists whose changes are broadcast.
const (
	ListTools     = protocol.ListTools
	ListResources = protocol.ListResources
	ListPrompts   = protocol.ListPrompts
)

// Broadcast is a change the server announces to every interested client:
// a list changed (List set), or a resource changed (URI set). Its Origin
// is the context of the request whose code made it, nil for broadcasts
// made by the Server's methods.
type Broadcast = backend.Broadcast

// listeners holds the functions Watch registered.
type listeners struct {
	mu   sync.Mutex
	next int
	fns  map[int]func(Broadcast)
}

func (l *listeners) add(fn func(Broadcast)) func() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fns == nil {
		l.fns = map[int]func(Broadcast){}
	}
	id := l.next
	l.next++
	l.fns[id] = fn
	return func() {
		l.mu.Lock()
		delete(l.fns, id)
		l.mu.Unlock()
	}
}

func (l *listeners) send(b Broadcast) {
	l.mu.Lock()
	fns := make([]func(Broadcast), 0, len(l.fns))
	for _, fn := range l.fns {
		fns = append(fns, fn)
	}
	l.mu.Unlock()
	for _, fn := range fns {
		fn(b)
	}
}

// Watch calls fn with every broadcast from now until stop is called:
// list changes when components are added or removed, and resource updates
// announced with ResourceUpdated. Transports use it to tell their clients;
// fn must not block.
func (s *Server) Watch(fn func(Broadcast)) (stop func()) { return s.listeners.add(fn) }

// ResourceUpdated announces that the resource at uri changed, to the
// clients that subscribed to it.
func (s *Server) ResourceUpdated(uri string) { s.broadcast(Broadcast{URI: uri}) }

// NotifyListChanged announces that a list changed when the application
// changed it by other means than AddTool and its siblings (for example a
// list that depends on the database).
func (s *Server) NotifyListChanged(list List) { s.broadcast(Broadcast{List: list}) }

// broadcast tells this replica's clients and, through the broker, the
// other replicas'.
func (s *Server) broadcast(b Broadcast) {
	s.deliver(b)
	s.publish(b)
}

// deliver tells the watchers (modern subscriptions/listen streams, test
// listeners) and every initialized legacy session that wants it.
func (s *Server) deliver(b Broadcast) {
	s.listeners.send(b)
	msg := broadcastJSON(b, nil)
	s.sessions.Range(func(_, v any) bool {
		sess := v.(*Session)
		if !sess.initializedYet() || (b.URI != "" && !sess.subscribed(b.URI) && !s.subscribedElsewhere(sess, b.URI)) {
			return true
		}
		if err := sess.sendLocal(msg); err != nil && err != errNoStream {
			s.logger.Debug("sake: cannot send to session", "session", sess.id, "err", err)
		}
		return true
	})
}

// broadcastJSON renders a broadcast as a notification, tagged with a
// subscription id when one is given.
func broadcastJSON(b Broadcast, subscriptionID []byte) []byte {
	if b.URI != "" {
		out := protocol.AppendNotificationHead(nil, "notifications/resources/updated")
		out = append(out, `{"uri":`...)
		out = protocol.AppendString(out, b.URI)
		if subscriptionID != nil {
			out = append(out, `,"_meta":{"`+protocol.MetaSubscriptionID+`":`...)
			out = append(out, subscriptionID...)
			out = append(out, '}')
		}
		return append(out, "}}"...)
	}
	method := "notifications/" + string(b.List) + "/list_changed"
	if subscriptionID == nil {
		return protocol.AppendNotification(nil, method, nil)
	}
	out := protocol.AppendNotificationHead(nil, method)
	out = append(out, `{"_meta":{"`+protocol.MetaSubscriptionID+`":`...)
	out = append(out, subscriptionID...)
	return append(out, "}}}"...)
}
