package sake

import "sync"

// List names one of the server's component lists.
type List string

// The lists whose changes are broadcast.
const (
	ListTools     List = "tools"
	ListResources List = "resources"
	ListPrompts   List = "prompts"
)

// Broadcast is a change the server announces to every interested client:
// a list changed (List set), or a resource changed (URI set).
type Broadcast struct {
	List List
	URI  string
}

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

func (l *listeners) listChanged(list List) { l.send(Broadcast{List: list}) }

// Watch calls fn with every broadcast from now until stop is called:
// list changes when components are added or removed, and resource updates
// announced with ResourceUpdated. Transports use it to tell their clients;
// fn must not block.
func (s *Server) Watch(fn func(Broadcast)) (stop func()) { return s.listeners.add(fn) }

// ResourceUpdated announces that the resource at uri changed, to the
// clients that subscribed to it.
func (s *Server) ResourceUpdated(uri string) { s.listeners.send(Broadcast{URI: uri}) }
