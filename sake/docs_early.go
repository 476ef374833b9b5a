package sake

import (
	"reflect"
	"runtime"
	"strings"
	"sync"
)

// earlyServers are the servers built during package initialization (in a
// package-level variable, say), before the init functions that register
// their docs ran: RegisterDocs describes them again.
var earlyServers serverList

// serverList is a list of servers safe for concurrent use.
type serverList struct {
	sync.Mutex
	list []*Server
}

func (e *serverList) add(s *Server) {
	e.Lock()
	e.list = append(e.list, s)
	e.Unlock()
}

// duringInit reports whether its caller runs during package
// initialization: a package-level variable's initializer or an init
// function, which the runtime runs from runtime.doInit.
func duringInit() bool {
	var pcs [128]uintptr
	n := runtime.Callers(3, pcs[:])
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		if strings.HasPrefix(f.Function, "runtime.doInit") {
			return true
		}
		if !more {
			return false
		}
	}
}

// forgottenTypes are the types whose reflections redescribeEarly forgot:
// a RegisterDocs for one of them may come too late for a server built
// outside package initialization, as for a type reflected still.
var forgottenTypes sync.Map // reflect.Type -> true

func forgotten(t reflect.Type) bool {
	for _, u := range []reflect.Type{t, reflect.PointerTo(t)} {
		if _, ok := forgottenTypes.Load(u); ok {
			return true
		}
	}
	return false
}

// redescribeEarly forgets every reflection made so far (they may lack
// docs registered since) and describes again the servers built during
// package initialization.
func redescribeEarly() {
	earlyServers.Lock() // one redescription at a time
	defer earlyServers.Unlock()
	list := earlyServers.list
	if len(list) == 0 {
		return
	}
	for _, m := range []*sync.Map{&blueprints, &schemaCache} {
		m.Range(func(k, _ any) bool {
			forgottenTypes.Store(k, true)
			return true
		})
		m.Clear()
	}
	for _, s := range list {
		s.redescribe()
	}
}

// redescribe rebuilds the components made from the server's value and
// puts them in place of those it was built with, where they still are.
func (s *Server) redescribe() {
	bp := blueprintFor(s.impl.Type(), s.impl.Interface())
	if bp.err != nil { // it was built from this type once: not expected
		s.logger.Error("sake: describing the server again failed", "err", bp.err)
		return
	}
	old, now := s.declared, bp.reg
	s.comps.edit(func(p *changes, base *registry) {
		replaceEntries(&p.tools, base.toolsByName, old.toolsByName, now.toolsByName)
		replaceEntries(&p.prompts, base.promptsByName, old.promptsByName, now.promptsByName)
		replaceEntries(&p.resources, base.resourcesByURI, old.resourcesByURI, now.resourcesByURI)
		replaceEntries(&p.templates, base.templatesByURI, old.templatesByURI, now.templatesByURI)
	})
	s.declared = now
	s.announce([]List{ListTools, ListPrompts, ListResources})
}

// replaceEntries puts each entry of now in place of the entry of old of
// the same name, where the server still has that one.
func replaceEntries[T comparable](pending *map[string]T, index, old, now map[string]T) {
	var zero T
	for name, o := range old {
		if n := now[name]; n != zero && lookup(*pending, index, name) == o {
			put(pending, name, n)
		}
	}
}
