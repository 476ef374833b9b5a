package sake

import (
	"fmt"
	"reflect"

	"github.com/sakemcp/sake-go/sake/internal/jsonscan"
	"github.com/sakemcp/sake-go/sake/internal/uritemplate"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// The parent's copy of a child's entry is the whole entry struct (so
// every field, present and future, travels) with its name or URI
// rewritten in the struct and in its list JSON, the child's requirement
// made explicit, and methods bound to the child's value.

// bind makes a copy of k that calls methods on the child's value.
func (m *mount) bind(k callable) callable {
	if k.method && !k.recv.IsValid() {
		k.recv = m.child.impl
	}
	return k
}

// requirement is what an entry of the child requires: its own, or the
// child's server-wide requirement.
func (m *mount) requirement(r Requirement) Requirement {
	if r.empty() {
		return m.child.opts.require
	}
	return r
}

// gate is the child's list policy for its entry x, which goes with the
// entry into the parent (with the policies x already carries when the
// child mounted it in turn); nil when no policy applies.
func (m *mount) gate(x listed) *childGate {
	if m.child.opts.lists == nil {
		return x.gated()
	}
	return &childGate{srv: m.child, info: x.info(), inner: x.gated()}
}

// completers copies a completion table with its functions bound to the
// child's value.
func (m *mount) completers(ks map[string]*completer) map[string]*completer {
	if ks == nil {
		return nil
	}
	out := make(map[string]*completer, len(ks))
	for name, k := range ks {
		c := *k
		if k.call != nil {
			bound := m.bind(*k.call)
			c.call = &bound
		}
		out[name] = &c
	}
	return out
}

func (m *mount) mountTool(t *tool) (*tool, string, error) {
	n := *t
	n.name = m.name(t.name)
	if !toolNameRE.MatchString(n.name) {
		return nil, "", fmt.Errorf("its name in the parent, %q, is longer than 128 characters", n.name)
	}
	name := protocol.AppendString(nil, n.name)
	n.listJSON = withMember(t.listJSON, "name", name)
	n.legacyJSON = withMember(t.legacyJSON, "name", name)
	for i := range n.byRevision {
		n.byRevision[i] = withMember(t.byRevision[i], "name", name)
	}
	n.require = m.requirement(t.require)
	n.call = m.bind(t.call)
	n.via = m.bindShape(t.via)
	n.gate = m.gate(t)
	if err := mountVersions(&n.others, m.mountTool); err != nil {
		return nil, "", err
	}
	return &n, n.name, nil
}

// bindShape copies the child's transform of a tool with the tool it
// reshapes bound to the child's value: a transformed tool runs its source
// tool, not its own call.
func (m *mount) bindShape(sh *toolShape) *toolShape {
	if sh == nil {
		return nil
	}
	c := *sh
	src := *sh.src
	src.call = m.bind(sh.src.call)
	src.via = m.bindShape(sh.src.via)
	c.src = &src
	return &c
}

func (m *mount) mountPrompt(p *prompt) (*prompt, string, error) {
	n := *p
	n.name = m.name(p.name)
	name := protocol.AppendString(nil, n.name)
	n.listJSON = withMember(p.listJSON, "name", name)
	for i := range n.byRevision {
		n.byRevision[i] = withMember(p.byRevision[i], "name", name)
	}
	n.require = m.requirement(p.require)
	n.call = m.bind(p.call)
	n.completions = m.completers(p.completions)
	n.gate = m.gate(p)
	if err := mountVersions(&n.others, m.mountPrompt); err != nil {
		return nil, "", err
	}
	return &n, n.name, nil
}

// mountResource copies a resource or template. Its function is one of
// the mount's: it reads the child's entry with the child's URI in the
// request, and gives the contents the parent's URIs.
func (m *mount) mountResource(r *resource) (*resource, string, error) {
	uri, ok := m.uri(r.uri)
	if isView(r) {
		uri, ok = r.uri, true // the ui:// URI its tools name, kept
	}
	if !ok {
		return nil, "", fmt.Errorf("it does not start with a URI scheme, which a namespace is put before")
	}
	src := *r
	src.call = m.bind(r.call)
	src.completions = nil
	n := *r
	n.uri = uri
	key := "uri"
	var fn any
	var accept func(reflect.Type) error
	if r.tmpl != nil {
		key = "uriTemplate"
		t, err := uritemplate.Parse(uri)
		if err != nil {
			return nil, "", err
		}
		n.tmpl = t
		accept = acceptTemplateVars
		fn = func(c *Context, vars map[string]string) ([]ResourceContents, error) {
			return m.read(c, &src, m.childURI(c.req.Params.URI), vars)
		}
	} else {
		fn = func(c *Context) ([]ResourceContents, error) { return m.read(c, &src, r.uri, nil) }
	}
	call, err := analyse(reflect.ValueOf(fn), false, accept)
	if err != nil {
		return nil, "", err
	}
	n.call = call
	value := protocol.AppendString(nil, uri)
	n.listJSON = withMember(r.listJSON, key, value)
	for i := range n.byRevision {
		n.byRevision[i] = withMember(r.byRevision[i], key, value)
	}
	n.require = m.requirement(r.require)
	n.completions = m.completers(r.completions)
	n.gate = m.gate(r)
	if err := mountVersions(&n.others, m.mountResource); err != nil {
		return nil, "", err
	}
	return &n, uri, nil
}

// mountVersions replaces the other versions of an entry with the
// parent's copies of them.
func mountVersions[T any](others *[]T, build func(T) (T, string, error)) error {
	if len(*others) == 0 {
		return nil
	}
	out := make([]T, len(*others))
	for i, o := range *others {
		c, _, err := build(o)
		if err != nil {
			return err
		}
		out[i] = c
	}
	*others = out
	return nil
}

// read reads the child's resource src at uri (the child's URI) within
// the parent's request, and rewrites the URIs of the contents.
func (m *mount) read(c *Context, src *resource, uri string, vars map[string]string) ([]ResourceContents, error) {
	req := *c.req
	params := *req.Params
	params.URI = uri
	req.Params = &params
	d := *c
	d.req = &req
	contents, err := src.read(&d, uri, vars)
	if err != nil {
		return nil, err
	}
	if m.ns != "" && !isView(src) {
		for i := range contents {
			if u, ok := m.uri(contents[i].URI); ok {
				contents[i].URI = u
			}
		}
	}
	return contents, nil
}

// withMember returns the JSON object obj with the member key's value
// replaced by value (obj itself when it has no such member).
func withMember(obj []byte, key string, value []byte) []byte {
	if obj == nil {
		return nil
	}
	out := make([]byte, 0, len(obj)+len(value))
	out = append(out, '{')
	found := false
	_ = jsonscan.Members(obj, func(k, v []byte) error {
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = protocol.AppendString(out, string(k))
		out = append(out, ':')
		if string(k) == key {
			v, found = value, true
		}
		out = append(out, v...)
		return nil
	})
	if !found {
		return obj
	}
	return append(out, '}')
}
