package sake

import (
	"cmp"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// registry is an immutable snapshot of the server's components: requests
// read it without locks.
type registry struct {
	tools     []*tool     // sorted by name
	resources []*resource // sorted by URI
	templates []*resource // sorted by template text
	prompts   []*prompt   // sorted by name

	toolsByName    map[string]*tool
	resourcesByURI map[string]*resource
	templatesByURI map[string]*resource
	promptsByName  map[string]*prompt
	capabilities   []byte // the capabilities object, for both eras
	apps           appsIndex
	// offered are the kinds of component the server has offered since it
	// was built: a kind stays offered (its list answerable, empty) when
	// its last component is removed, because clients told list_changed
	// list again.
	offered kindsOffered
}

// kindsOffered are the optional capabilities a server has offered.
type kindsOffered struct{ resources, prompts, completions bool }

// update adds the kinds r holds now.
func (k kindsOffered) update(r *registry) kindsOffered {
	k.resources = k.resources || len(r.resources)+len(r.templates) > 0
	k.prompts = k.prompts || len(r.prompts) > 0
	k.completions = k.completions || len(r.prompts) > 0 || len(r.templates) > 0
	return k
}

// components holds a server's registry. A change (AddTool and its
// siblings) costs a map write: it is recorded as pending, and the
// snapshot is rebuilt once, by the first request that follows, in time
// linear in the number of components. Adding N components one by one or
// in a batch therefore costs O(N) however many there are, and requests
// that find no change pending pay one atomic load.
type components struct {
	mu      sync.Mutex
	snap    atomic.Pointer[registry] // the published snapshot; nil while changes are pending
	base    *registry                // the last snapshot built (mu)
	pending *changes                 // changes since base, nil when none (mu)
	shape   *shaping                 // transforms and enable/disable rules, nil when none (mu)
}

// changes are the edits not yet in a snapshot, by key; a nil value is a
// removal.
type changes struct {
	tools     map[string]*tool
	resources map[string]*resource
	templates map[string]*resource
	prompts   map[string]*prompt
}

func (c *components) init(r *registry) {
	c.base = r
	c.snap.Store(r)
}

// current returns the snapshot, building it when changes are pending.
func (c *components) current() *registry {
	if r := c.snap.Load(); r != nil {
		return r
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if r := c.snap.Load(); r != nil {
		return r
	}
	r := c.base.apply(c.pending)
	c.base, c.pending = r, nil
	if c.shape != nil {
		r = c.shape.publish(r)
	}
	c.snap.Store(r)
	return r
}

// edit runs fn with the pending changes under the lock, then marks the
// snapshot stale.
func (c *components) edit(fn func(p *changes, base *registry)) {
	c.mu.Lock()
	if c.pending == nil {
		c.pending = &changes{}
	}
	fn(c.pending, c.base)
	c.snap.Store(nil)
	c.mu.Unlock()
}

// lookup finds the current value of key: a pending change, or base.
func lookup[T comparable](pending map[string]T, index map[string]T, key string) T {
	if v, ok := pending[key]; ok {
		return v
	}
	return index[key]
}

func put[T any](m *map[string]T, key string, v T) {
	if *m == nil {
		*m = make(map[string]T)
	}
	(*m)[key] = v
}

// AddTool adds tools built with NewTool or NewTypedTool, replacing those
// of the same names and versions (ToolDef.Version: other versions of a
// name stay, served beside it), and tells clients following list changes once. If
// any definition is wrong, none is added and the error names each wrong
// one; a tool that does not fit the transform installed for its name
// (Server.Transform, before the tool came) is wrong too. Adding a tool
// costs the same however many the server has.
func (s *Server) AddTool(defs ...*ToolDef) error {
	tools := make([]*tool, 0, len(defs))
	var problems []string
	for _, def := range defs {
		t, err := compileRuntimeTool(def)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		tools = append(tools, t)
	}
	if err := joinProblems(problems); err != nil {
		return err
	}
	if len(tools) == 0 {
		return nil
	}
	var missing error
	s.comps.edit(func(p *changes, base *registry) {
		if missing = viewsDeclared(tools, p, base); missing != nil {
			return
		}
		misfits := s.comps.shape.misfits(tools)
		for i := range misfits {
			misfits[i] = "sake: " + misfits[i]
		}
		if missing = joinProblems(misfits); missing != nil {
			return
		}
		for _, t := range tools {
			put(&p.tools, t.name, withVersion(lookup(p.tools, base.toolsByName, t.name), t))
		}
	})
	if missing != nil {
		return missing
	}
	s.broadcast(Broadcast{List: ListTools})
	return nil
}

func compileRuntimeTool(def *ToolDef) (*tool, error) {
	if def == nil || def.fn == nil {
		return nil, fmt.Errorf("sake: AddTool needs a tool made with NewTool or NewTypedTool")
	}
	t, err := compileTool(def, reflect.ValueOf(def.fn), false)
	if err != nil {
		return nil, fmt.Errorf("sake: tool %s: %w", def.name, err)
	}
	return t, nil
}

// joinProblems turns the problems of a batch into one error.
func joinProblems(problems []string) error {
	switch len(problems) {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("%s", problems[0])
	}
	return fmt.Errorf("%d definitions are wrong, none was added:\n\t%s", len(problems), strings.Join(problems, "\n\t"))
}

// RemoveTool removes the named tool, every version of it, and reports
// whether it existed.
// Clients following list changes are told when it did.
func (s *Server) RemoveTool(name string) bool {
	removed := false
	s.comps.edit(func(p *changes, base *registry) {
		if lookup(p.tools, base.toolsByName, name) != nil {
			put(&p.tools, name, nil)
			removed = true
		}
	})
	if removed {
		s.broadcast(Broadcast{List: ListTools})
	}
	return removed
}

// AddResource adds resources and resource templates built with
// NewResource or NewResourceTemplate (or their typed forms), replacing
// those with the same URIs or templates and versions, and tells clients following list
// changes once. If any definition is wrong, none is added and the error
// names each wrong one.
func (s *Server) AddResource(defs ...*ResourceDef) error {
	rs := make([]*resource, 0, len(defs))
	var problems []string
	for _, def := range defs {
		if def == nil || def.fn == nil {
			problems = append(problems, "sake: AddResource needs a resource made with NewResource or NewResourceTemplate")
			continue
		}
		if def.name == "" {
			def.name = def.uri
		}
		r, err := compileResource(def, reflect.ValueOf(def.fn), false, completionFunc)
		if err != nil {
			problems = append(problems, fmt.Sprintf("sake: resource %s: %v", def.uri, err))
			continue
		}
		rs = append(rs, r)
	}
	if err := joinProblems(problems); err != nil {
		return err
	}
	if len(rs) == 0 {
		return nil
	}
	s.comps.edit(func(p *changes, base *registry) {
		for _, r := range rs {
			if r.tmpl != nil {
				put(&p.templates, r.uri, withVersion(lookup(p.templates, base.templatesByURI, r.uri), r))
			} else {
				put(&p.resources, r.uri, withVersion(lookup(p.resources, base.resourcesByURI, r.uri), r))
			}
		}
	})
	s.broadcast(Broadcast{List: ListResources})
	return nil
}

// RemoveResource removes the resource or template with that URI (or
// template text), every version of it, and reports whether it existed. A server that has
// offered resources goes on offering them when the last is removed: its
// lists answer empty, in both eras.
func (s *Server) RemoveResource(uri string) bool {
	removed := false
	s.comps.edit(func(p *changes, base *registry) {
		if lookup(p.resources, base.resourcesByURI, uri) != nil {
			put(&p.resources, uri, nil)
			removed = true
		}
		if lookup(p.templates, base.templatesByURI, uri) != nil {
			put(&p.templates, uri, nil)
			removed = true
		}
	})
	if removed {
		s.broadcast(Broadcast{List: ListResources})
	}
	return removed
}

// AddPrompt adds prompts built with NewPrompt or NewTypedPrompt,
// replacing those of the same names and versions, and tells clients following list
// changes once. If any definition is wrong, none is added and the error
// names each wrong one.
func (s *Server) AddPrompt(defs ...*PromptDef) error {
	ps := make([]*prompt, 0, len(defs))
	var problems []string
	for _, def := range defs {
		if def == nil || def.fn == nil {
			problems = append(problems, "sake: AddPrompt needs a prompt made with NewPrompt")
			continue
		}
		p, err := compilePrompt(def, reflect.ValueOf(def.fn), false, completionFunc)
		if err != nil {
			problems = append(problems, fmt.Sprintf("sake: prompt %s: %v", def.name, err))
			continue
		}
		ps = append(ps, p)
	}
	if err := joinProblems(problems); err != nil {
		return err
	}
	if len(ps) == 0 {
		return nil
	}
	s.comps.edit(func(c *changes, base *registry) {
		for _, p := range ps {
			put(&c.prompts, p.name, withVersion(lookup(c.prompts, base.promptsByName, p.name), p))
		}
	})
	s.broadcast(Broadcast{List: ListPrompts})
	return nil
}

// RemovePrompt removes the named prompt, every version of it, and
// reports whether it existed.
// A server that has offered prompts goes on offering them when the last
// is removed: prompts/list answers empty, in both eras.
func (s *Server) RemovePrompt(name string) bool {
	removed := false
	s.comps.edit(func(p *changes, base *registry) {
		if lookup(p.prompts, base.promptsByName, name) != nil {
			put(&p.prompts, name, nil)
			removed = true
		}
	})
	if removed {
		s.broadcast(Broadcast{List: ListPrompts})
	}
	return removed
}

var emptyRegistry = func() *registry {
	r := &registry{}
	if err := r.finish(); err != nil {
		panic(err)
	}
	return r
}()

func toolName(t *tool) string        { return t.name }
func promptName(p *prompt) string    { return p.name }
func resourceURI(r *resource) string { return r.uri }
func byKey[T any](key func(T) string) func(a, b T) int {
	return func(a, b T) int { return cmp.Compare(key(a), key(b)) }
}

// finish sorts the lists of a registry built from scratch, builds the
// indexes and the capabilities JSON, and reports components that share a
// name.
func (r *registry) finish() error {
	slices.SortStableFunc(r.tools, byKey(toolName))
	slices.SortStableFunc(r.prompts, byKey(promptName))
	slices.SortStableFunc(r.resources, byKey(resourceURI))
	slices.SortStableFunc(r.templates, byKey(resourceURI))
	var dups []string
	r.tools = groupSorted(r.tools, toolName, "tool ", &dups)
	r.prompts = groupSorted(r.prompts, promptName, "prompt ", &dups)
	r.resources = groupSorted(r.resources, resourceURI, "resource ", &dups)
	r.templates = groupSorted(r.templates, resourceURI, "resource template ", &dups)
	r.toolsByName = index(r.tools, toolName, "tool ", &dups)
	r.promptsByName = index(r.prompts, promptName, "prompt ", &dups)
	r.resourcesByURI = index(r.resources, resourceURI, "resource ", &dups)
	r.templatesByURI = index(r.templates, resourceURI, "resource template ", &dups)
	if len(dups) > 0 {
		return fmt.Errorf("two components share a name: %s", strings.Join(dups, ", "))
	}
	if err := r.indexApps(); err != nil {
		return err
	}
	r.offered = r.offered.update(r)
	r.capabilities = r.capabilitiesJSON()
	return nil
}

func index[T any](list []T, key func(T) string, what string, dups *[]string) map[string]T {
	m := make(map[string]T, len(list))
	for _, x := range list {
		k := key(x)
		if _, ok := m[k]; ok {
			*dups = append(*dups, what+k)
		}
		m[k] = x
	}
	return m
}

// apply returns a new registry: r with the changes made. r is not
// modified. The cost is linear in the size of r plus k log k for k
// changes.
func (r *registry) apply(c *changes) *registry {
	if c == nil {
		return r
	}
	n := &registry{}
	n.tools, n.toolsByName = merge(r.tools, r.toolsByName, c.tools, toolName)
	n.prompts, n.promptsByName = merge(r.prompts, r.promptsByName, c.prompts, promptName)
	n.resources, n.resourcesByURI = merge(r.resources, r.resourcesByURI, c.resources, resourceURI)
	n.templates, n.templatesByURI = merge(r.templates, r.templatesByURI, c.templates, resourceURI)
	_ = n.indexApps() // views named by added tools were checked when they were added
	n.offered = r.offered.update(n)
	n.capabilities = n.capabilitiesJSON()
	return n
}

// merge applies changes (key -> new item, or nil to remove) to a sorted
// list and its index, returning new ones.
func merge[T comparable](list []T, idx map[string]T, changed map[string]T, key func(T) string) ([]T, map[string]T) {
	if len(changed) == 0 {
		return list, idx
	}
	var zero T
	added := make([]T, 0, len(changed))
	next := maps.Clone(idx)
	if next == nil {
		next = make(map[string]T, len(changed))
	}
	for k, v := range changed {
		if v == zero {
			delete(next, k)
			continue
		}
		next[k] = v
		added = append(added, v)
	}
	slices.SortFunc(added, byKey(key))
	out := make([]T, 0, len(next))
	i := 0
	for _, x := range list {
		if _, ok := changed[key(x)]; ok {
			continue // replaced or removed
		}
		for i < len(added) && key(added[i]) < key(x) {
			out = append(out, added[i])
			i++
		}
		out = append(out, x)
	}
	return append(out, added[i:]...), next
}

// offersResources, offersPrompts and offersCompletion report whether the
// server offers the capability: it has, or once had, such components.
func (r *registry) offersResources() bool  { return r.offered.resources }
func (r *registry) offersPrompts() bool    { return r.offered.prompts }
func (r *registry) offersCompletion() bool { return r.offered.completions }

func (r *registry) capabilitiesJSON() []byte {
	b := []byte(`{"tools":{"listChanged":true},"logging":{}`)
	if r.offersResources() {
		b = append(b, `,"resources":{"subscribe":true,"listChanged":true}`...)
	}
	if r.offersPrompts() {
		b = append(b, `,"prompts":{"listChanged":true}`...)
	}
	if r.offersCompletion() {
		b = append(b, `,"completions":{}`...)
	}
	return append(b, '}')
}

// matchTemplate finds the template a URI instantiates.
func (r *registry) matchTemplate(uri string) (*resource, map[string]string) {
	for _, t := range r.templates {
		if vars, ok := t.tmpl.Match(uri); ok {
			return t, vars
		}
	}
	return nil, nil
}
