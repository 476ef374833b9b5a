package sake

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// maxMounts bounds the servers mounted into one server.
const maxMounts = 64

// namespaceRE is what a namespace may be: it starts tool and prompt
// names (namespace_name) and URI schemes (namespace+scheme:), so it must
// be valid in both.
var namespaceRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9.-]{0,63}$`)

// mountTable holds the servers mounted into a server.
type mountTable struct {
	mu   sync.Mutex
	list []*mount
	// owners describes, by mounted entry, the mount it came from, for the
	// errors that name both sides of a conflict.
	owners sync.Map
}

// mount is one server mounted into another: the entries it put in the
// parent's registry, by their name there, with the child's entries they
// were made from.
type mount struct {
	parent, child *Server
	ns            string
	stop          func()

	mu        sync.Mutex // one sync at a time
	closed    bool
	tools     map[string]mounted[*tool]
	prompts   map[string]mounted[*prompt]
	resources map[string]mounted[*resource]
	templates map[string]mounted[*resource]
}

// mounted is an entry of the parent's registry and the child's entry it
// copies.
type mounted[T comparable] struct{ src, dst T }

// Mount serves the components of child from s under namespace: a tool or
// prompt named refund is served as namespace_refund, a resource
// notes://x (or a template notes://{id}) as namespace+notes://x, and
// completions follow their prompts and templates. MCP Apps views keep
// their ui:// URIs, which their tools name. An empty namespace
// serves them under their own names. A namespace is a letter followed by
// at most 63 letters, digits, dots and dashes.
//
// Mounted components are ordinary entries of s: they run in s's
// dispatcher, for s's caller, with the caller's identity, era, progress,
// cancellation, log level and questions; a mounted tool declared as a
// task runs on s's task manager, owned by the caller. Each keeps its
// requirement, or child's server-wide one (RequireScopes) when it has
// none, and child's list policy (PerCallerLists): a caller child would
// not list a component to does not see it in s's lists, and one child's
// predicate refuses cannot use it through s. A tool child reshaped with
// Transform keeps the transform. s's middleware runs; child's does not.
//
// The mount is live: a component child adds or removes appears in or
// leaves s, and s's clients are told the list changed; child's resource
// updates reach s's subscribers under the rewritten URI. child's Agent
// Skills are served by s when child is mounted under the empty namespace
// and s has none (they stay when child is unmounted).
//
// A name that is already s's, or another mount's, is an error naming
// both sides, and nothing is mounted, and so is a tool that does not fit
// the transform s has for its name (Server.Transform); a conflicting or
// unfitting component child adds later is left out and logged. At most 64 servers are mounted into one.
func (s *Server) Mount(namespace string, child *Server) error {
	if child == nil {
		return fmt.Errorf("sake: Mount needs a server")
	}
	if namespace != "" && !namespaceRE.MatchString(namespace) {
		return fmt.Errorf("sake: namespace %q is not a letter followed by at most 63 letters, digits, dots and dashes", namespace)
	}
	if child == s || child.reaches(s) {
		return fmt.Errorf("sake: mounting server %q into %q would mount a server into itself", child.info.Name, s.info.Name)
	}
	s.mounts.mu.Lock()
	for _, m := range s.mounts.list {
		if m.child == child {
			s.mounts.mu.Unlock()
			return fmt.Errorf("sake: server %q is mounted already (namespace %q)", child.info.Name, m.ns)
		}
	}
	if len(s.mounts.list) >= maxMounts {
		s.mounts.mu.Unlock()
		return fmt.Errorf("sake: server %q has %d servers mounted, the most it takes", s.info.Name, maxMounts)
	}
	m := &mount{parent: s, child: child, ns: namespace}
	s.mounts.list = append(s.mounts.list, m)
	s.mounts.mu.Unlock()
	stopWatch := child.Watch(m.changed)
	stopLogs := child.logWatchers.add(s.deliverLog)
	m.stop = func() { stopWatch(); stopLogs() }
	if err := m.sync(true); err != nil {
		m.stop()
		s.mounts.remove(m)
		return err
	}
	if set := child.skills.Load(); namespace == "" && set != nil {
		s.skills.CompareAndSwap(nil, set)
	}
	return nil
}

// Unmount removes the components of a server mounted with Mount, tells
// s's clients the lists changed, and reports whether child was mounted.
func (s *Server) Unmount(child *Server) bool {
	s.mounts.mu.Lock()
	var m *mount
	for _, x := range s.mounts.list {
		if x.child == child {
			m = x
		}
	}
	s.mounts.mu.Unlock()
	if m == nil {
		return false
	}
	m.stop()
	s.mounts.remove(m)
	m.mu.Lock()
	m.closed = true
	lists, _ := m.apply(nil, nil, nil, nil, false)
	m.mu.Unlock()
	s.announce(lists)
	return true
}

func (t *mountTable) remove(m *mount) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i, x := range t.list {
		if x == m {
			t.list = append(t.list[:i], t.list[i+1:]...)
			return
		}
	}
}

// reaches reports whether target is s or mounted into s, at any depth.
func (s *Server) reaches(target *Server) bool {
	s.mounts.mu.Lock()
	children := make([]*Server, 0, len(s.mounts.list))
	for _, m := range s.mounts.list {
		children = append(children, m.child)
	}
	s.mounts.mu.Unlock()
	for _, c := range children {
		if c == target || c.reaches(target) {
			return true
		}
	}
	return false
}

// changed follows the child's broadcasts.
func (m *mount) changed(b Broadcast) {
	switch {
	case b.URI != "":
		uri, ok := m.uri(b.URI)
		if strings.HasPrefix(b.URI, "ui://") {
			uri, ok = b.URI, true // views keep their URIs
		}
		if ok {
			m.parent.broadcast(Broadcast{URI: uri, Origin: b.Origin})
		}
	case b.List != "":
		if err := m.sync(false); err != nil {
			m.parent.logger.Warn("sake: a component of a mounted server is left out", "namespace", m.ns, "err", err)
		}
	}
}

// name is a tool's or prompt's name in the parent.
func (m *mount) name(n string) string {
	if m.ns == "" {
		return n
	}
	return m.ns + "_" + n
}

// uri is a resource's URI (or template text) in the parent: the
// namespace and a plus before the scheme. ok is false for text that does
// not start with a scheme.
func (m *mount) uri(u string) (string, bool) {
	if m.ns == "" {
		return u, true
	}
	if !hasScheme(u) {
		return "", false
	}
	return m.ns + "+" + u, true
}

// childURI undoes uri.
func (m *mount) childURI(u string) string {
	if m.ns == "" {
		return u
	}
	return strings.TrimPrefix(u, m.ns+"+")
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

// sync brings the parent's copies in step with the child's registry. The
// first sync (initial) adds nothing when a name conflicts, and closes the
// mount; later ones leave the conflicting components out. The parent's
// clients are told of the lists that changed once the mount's lock is
// released.
func (m *mount) sync(initial bool) error {
	m.mu.Lock()
	lists, err := m.syncLocked(initial)
	m.mu.Unlock()
	m.parent.announce(lists)
	return err
}

func (m *mount) syncLocked(initial bool) ([]List, error) {
	if m.closed {
		return nil, nil
	}
	reg := m.child.comps.current()
	var problems []string
	tools := want(reg.tools, m.tools, toolName, m.mountTool, "tool", &problems)
	prompts := want(reg.prompts, m.prompts, promptName, m.mountPrompt, "prompt", &problems)
	resources := want(reg.resources, m.resources, resourceURI, m.mountResource, "resource", &problems)
	templates := want(reg.templates, m.templates, resourceURI, m.mountResource, "resource template", &problems)
	if initial && len(problems) > 0 {
		m.closed = true
		return nil, m.failure(problems)
	}
	lists, conflicts := m.apply(tools, prompts, resources, templates, initial)
	problems = append(problems, conflicts...)
	if initial && len(problems) > 0 {
		m.closed = true
	}
	if len(problems) > 0 {
		return lists, m.failure(problems)
	}
	return lists, nil
}

// announce tells the server's clients the lists changed.
func (s *Server) announce(lists []List) {
	for _, l := range lists {
		s.broadcast(Broadcast{List: l})
	}
}

func (m *mount) failure(problems []string) error {
	return fmt.Errorf("sake: mounting server %q under namespace %q: %s", m.child.info.Name, m.ns, strings.Join(problems, "; "))
}

// want makes the parent's copies of the child's entries, reusing the
// copies of entries that did not change.
func want[T comparable](list []T, have map[string]mounted[T], key func(T) string, build func(T) (T, string, error), what string, problems *[]string) map[string]mounted[T] {
	out := make(map[string]mounted[T], len(list))
	byKey := make(map[string]mounted[T], len(have))
	for _, h := range have {
		byKey[key(h.src)] = h
	}
	for _, src := range list {
		if h, ok := byKey[key(src)]; ok && h.src == src {
			out[key(h.dst)] = h
			continue
		}
		dst, name, err := build(src)
		if err != nil {
			*problems = append(*problems, fmt.Sprintf("%s %s: %v", what, key(src), err))
			continue
		}
		out[name] = mounted[T]{src: src, dst: dst}
	}
	return out
}

// apply puts the wanted entries in the parent's registry and takes out
// those no longer wanted. It returns the lists that changed and the
// conflicts; with dryFail set, a conflict changes nothing. nil maps take
// every entry out.
func (m *mount) apply(tools map[string]mounted[*tool], prompts map[string]mounted[*prompt], resources, templates map[string]mounted[*resource], dryFail bool) ([]List, []string) {
	oldTools, oldPrompts, oldResources, oldTemplates := m.tools, m.prompts, m.resources, m.templates
	var conflicts []conflict
	var misfits []string
	var changedTools, changedPrompts, changedResources bool
	m.parent.comps.edit(func(p *changes, base *registry) {
		if dryFail {
			// The first sync is Mount's: a tool that does not fit the
			// parent's transform for it is Mount's error, as AddTool's.
			dst := make([]*tool, 0, len(tools))
			for _, t := range tools {
				dst = append(dst, t.dst)
			}
			if misfits = m.parent.comps.shape.misfits(dst); len(misfits) > 0 {
				return
			}
		}
		conflicts = append(conflicts, clashes(tools, m.tools, p.tools, base.toolsByName, "tool")...)
		conflicts = append(conflicts, clashes(prompts, m.prompts, p.prompts, base.promptsByName, "prompt")...)
		conflicts = append(conflicts, clashes(resources, m.resources, p.resources, base.resourcesByURI, "resource")...)
		conflicts = append(conflicts, clashes(templates, m.templates, p.templates, base.templatesByURI, "resource template")...)
		if dryFail && len(conflicts) > 0 {
			return
		}
		changedTools = place(tools, &m.tools, &p.tools, base.toolsByName)
		changedPrompts = place(prompts, &m.prompts, &p.prompts, base.promptsByName)
		r := place(resources, &m.resources, &p.resources, base.resourcesByURI)
		changedResources = place(templates, &m.templates, &p.templates, base.templatesByURI) || r
	})
	problems := misfits
	for _, c := range conflicts {
		problems = append(problems, fmt.Sprintf("%s %s of mounted server %q conflicts with %s %s of %s",
			c.what, c.name, m.child.info.Name, c.what, c.name, m.parent.ownerOf(c.entry)))
	}
	if dryFail && len(problems) > 0 {
		return nil, problems
	}
	m.record(tools, prompts, resources, templates)
	owners := &m.parent.mounts.owners
	forget(owners, oldTools, m.tools)
	forget(owners, oldPrompts, m.prompts)
	forget(owners, oldResources, m.resources)
	forget(owners, oldTemplates, m.templates)
	var lists []List
	if changedTools {
		lists = append(lists, ListTools)
	}
	if changedPrompts {
		lists = append(lists, ListPrompts)
	}
	if changedResources {
		lists = append(lists, ListResources)
	}
	return lists, problems
}

// conflict is a wanted name the parent holds for something else.
type conflict struct {
	what, name string
	entry      any
}

// clashes finds the wanted names taken by entries that are not this
// mount's, and drops them from want.
func clashes[T comparable](want, have map[string]mounted[T], pending, index map[string]T, what string) []conflict {
	var zero T
	var out []conflict
	for name := range want {
		cur := lookup(pending, index, name)
		if cur != zero && cur != have[name].dst {
			out = append(out, conflict{what: what, name: name, entry: cur})
			delete(want, name)
		}
	}
	return out
}

// place writes want over have in the pending changes and reports whether
// anything changed.
func place[T comparable](want map[string]mounted[T], have *map[string]mounted[T], pending *map[string]T, index map[string]T) bool {
	var zero T
	changed := false
	for name, old := range *have {
		if _, ok := want[name]; ok {
			continue
		}
		if lookup(*pending, index, name) == old.dst {
			put(pending, name, zero)
			changed = true
		}
	}
	for name, w := range want {
		if (*have)[name].dst == w.dst {
			continue
		}
		put(pending, name, w.dst)
		changed = true
	}
	*have = want
	return changed
}

// record keeps who owns each entry placed, for the errors of later
// conflicts.
func (m *mount) record(tools map[string]mounted[*tool], prompts map[string]mounted[*prompt], resources, templates map[string]mounted[*resource]) {
	owner := fmt.Sprintf("mounted server %q (namespace %q)", m.child.info.Name, m.ns)
	for _, t := range tools {
		m.parent.mounts.owners.Store(t.dst, owner)
	}
	for _, p := range prompts {
		m.parent.mounts.owners.Store(p.dst, owner)
	}
	for _, r := range resources {
		m.parent.mounts.owners.Store(r.dst, owner)
	}
	for _, r := range templates {
		m.parent.mounts.owners.Store(r.dst, owner)
	}
}

// ownerOf names the side a registry entry comes from.
func (s *Server) ownerOf(entry any) string {
	if o, ok := s.mounts.owners.Load(entry); ok {
		return o.(string)
	}
	return fmt.Sprintf("server %q", s.info.Name)
}

// forget drops the owners of the entries of old that now no longer holds.
func forget[T comparable](owners *sync.Map, old, now map[string]mounted[T]) {
	for name, o := range old {
		if now[name].dst != o.dst {
			owners.Delete(o.dst)
		}
	}
}
