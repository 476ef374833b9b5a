package sake

import (
	"fmt"
	"slices"
	"strings"
)

// Version declares the tool's version: several tools of one name with
// different versions are served side by side. tools/list shows the
// highest (CompareVersions orders them) with its version in
// _meta["io.github.sakemcp/version"]; a call may ask for another with the
// same key in its request _meta. A version is at most 64 bytes of
// printable ASCII without spaces, commas, quotes or < > =.
func (t *ToolDef) Version(v string) *ToolDef {
	t.version = v
	return t.Meta(MetaComponentVersion, v)
}

// Version declares the resource's or template's version (see
// ToolDef.Version): resources of one URI with different versions are
// served side by side, and resources/read may ask for one.
func (r *ResourceDef) Version(v string) *ResourceDef {
	r.version = v
	return r.Meta(MetaComponentVersion, v)
}

// Version declares the prompt's version (see ToolDef.Version): prompts of
// one name with different versions are served side by side, and
// prompts/get may ask for one.
func (p *PromptDef) Version(v string) *PromptDef {
	p.version = v
	return p.Meta(MetaComponentVersion, v)
}

// FilterVersions installs f: only the versions of components that f's
// Range passes are listed and answer calls, on this server, whether the
// components are its own, mounted or proxied. A parent that mounts the
// server sees only those versions too. It replaces the filter installed
// before; the zero VersionFilter removes it. A malformed range is an
// error, and changes nothing. Clients following list changes are told
// when a list changes.
func (s *Server) FilterVersions(f VersionFilter) error {
	r, err := f.compile()
	if err != nil {
		return err
	}
	before, after, _ := s.comps.reshape(s.logger, func(sh *shaping, _ *registry) error {
		sh.versions = r
		sh.builtTools, sh.builtPrompts, sh.builtResources = nil, nil, nil
		return nil
	})
	s.announceChanges(before, after)
	return nil
}

// versioned is what tools, prompts and resources share for versions.
type versioned[T any] interface {
	comparable
	ver() string
	alts() []T
	withAlts([]T) T
}

func (t *tool) ver() string   { return t.version }
func (t *tool) alts() []*tool { return t.others }

// withAlts returns a copy of t with others as its other versions, its
// list entries naming them all.
func (t *tool) withAlts(others []*tool) *tool {
	n := *t
	n.others = others
	names := versionNamesOf(t, others)
	n.listJSON = withVersionsMeta(t.listJSON, names)
	n.legacyJSON = n.listJSON
	if string(t.legacyJSON) != string(t.listJSON) {
		n.legacyJSON = withVersionsMeta(t.legacyJSON, names)
	}
	n.byRevision = shapeRevisions(n.listJSON, true)
	return &n
}

func (p *prompt) ver() string     { return p.version }
func (p *prompt) alts() []*prompt { return p.others }

// withAlts returns a copy of p with others as its other versions.
func (p *prompt) withAlts(others []*prompt) *prompt {
	n := *p
	n.others = others
	n.listJSON = withVersionsMeta(p.listJSON, versionNamesOf(p, others))
	n.byRevision = shapeRevisions(n.listJSON, false)
	return &n
}

func (r *resource) ver() string       { return r.version }
func (r *resource) alts() []*resource { return r.others }

// withAlts returns a copy of r with others as its other versions.
func (r *resource) withAlts(others []*resource) *resource {
	n := *r
	n.others = others
	n.listJSON = withVersionsMeta(r.listJSON, versionNamesOf(r, others))
	n.byRevision = shapeRevisions(n.listJSON, false)
	return &n
}

// versionsOf returns every version an entry of a registry stands for,
// highest first.
func versionsOf[T versioned[T]](head T) []T {
	return append([]T{head}, head.alts()...)
}

// groupVersions makes one entry of versions of a name, highest first.
func groupVersions[T versioned[T]](vs []T) T {
	slices.SortStableFunc(vs, func(a, b T) int { return CompareVersions(b.ver(), a.ver()) })
	if len(vs) == 1 && len(vs[0].alts()) == 0 {
		return vs[0]
	}
	rest := make([]T, len(vs)-1)
	for i, v := range vs[1:] {
		if len(v.alts()) > 0 {
			v = v.withAlts(nil)
		}
		rest[i] = v
	}
	return vs[0].withAlts(rest)
}

// withVersion returns the entry of existing's name with add among its
// versions, in place of the one of add's version. A zero existing gives
// add.
func withVersion[T versioned[T]](existing, add T) T {
	var zero T
	if existing == zero {
		return add
	}
	vs := []T{add}
	for _, v := range versionsOf(existing) {
		if v.ver() != add.ver() {
			vs = append(vs, v)
		}
	}
	return groupVersions(vs)
}

// groupSorted turns a list sorted by key, that may hold several versions
// of a key, into one entry per key; two entries of one key and one
// version are reported in dups.
func groupSorted[T versioned[T]](list []T, key func(T) string, what string, dups *[]string) []T {
	out := list[:0]
	for i := 0; i < len(list); {
		j := i + 1
		for j < len(list) && key(list[j]) == key(list[i]) {
			j++
		}
		if j-i == 1 {
			out = append(out, list[i])
			i = j
			continue
		}
		run := slices.Clone(list[i:j])
		seen := map[string]bool{}
		for _, v := range run {
			if seen[v.ver()] {
				desc := what + key(v)
				if v.ver() != "" {
					desc += " version " + v.ver()
				}
				*dups = append(*dups, desc)
			}
			seen[v.ver()] = true
		}
		out = append(out, groupVersions(run))
		i = j
	}
	return out
}

// pickVersion returns the version v of the entry head, or the zero T.
func pickVersion[T versioned[T]](head T, v string) T {
	if head.ver() == v {
		return head
	}
	for _, o := range head.alts() {
		if o.ver() == v {
			return o
		}
	}
	var zero T
	return zero
}

// versionNames lists the versions of an entry, highest first.
func versionNames[T versioned[T]](head T) string {
	names := make([]string, 0, 1+len(head.alts()))
	for _, v := range versionsOf(head) {
		if v.ver() == "" {
			names = append(names, "(none)")
		} else {
			names = append(names, v.ver())
		}
	}
	return strings.Join(names, ", ")
}

// askedVersion is the version a request asks for, "" for the highest.
func askedVersion(req *Request) string {
	if req.Params == nil || req.Params.Meta == nil || req.Params.Meta.ComponentVersion == nil {
		return ""
	}
	return *req.Params.Meta.ComponentVersion
}

// unknownVersion is the error of a request for a version the server does
// not serve: that of an unknown name, with the versions it serves.
func unknownVersion(base *Error, version, served string) *Error {
	e := *base
	e.Message = fmt.Sprintf("%s (version %s; the versions served are %s: ask for one of them, or leave out _meta[%q] for the highest)",
		base.Message, version, served, MetaComponentVersion)
	return &e
}

// regroup makes the published entry of the source entry src from the
// versions kept (shaped, enabled, in range), reusing the entry made last
// time when the same versions are kept.
func regroup[T versioned[T]](src T, kept []T, last map[T]grouped[T], next *map[T]grouped[T]) T {
	var zero T
	switch {
	case len(kept) == 0:
		return zero
	case len(kept) == 1 && len(kept[0].alts()) == 0:
		return kept[0]
	case len(kept) == 1+len(src.alts()) && kept[0] == src && slices.Equal(kept[1:], src.alts()):
		return src
	}
	if *next == nil {
		*next = map[T]grouped[T]{}
	}
	if g, ok := last[src]; ok && slices.Equal(g.members, kept) {
		(*next)[src] = g
		return g.head
	}
	members := slices.Clone(kept)
	rest := make([]T, len(kept)-1)
	for i, v := range kept[1:] {
		if len(v.alts()) > 0 {
			v = v.withAlts(nil)
		}
		rest[i] = v
	}
	g := grouped[T]{members: members, head: kept[0].withAlts(rest)}
	(*next)[src] = g
	return g.head
}

// grouped is a published entry made of several versions.
type grouped[T any] struct {
	members []T
	head    T
}

// versionAt is the version i of an entry: the entry itself for -1, else
// its other version i.
func versionAt[T versioned[T]](head T, i int) T {
	if i < 0 {
		return head
	}
	return head.alts()[i]
}

// versionLabel names one version of a component, in messages and in the
// rules of Disable.
func versionLabel(name, version string) string {
	if version == "" {
		return name
	}
	return name + "@" + version
}
