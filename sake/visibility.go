package sake

import "fmt"

// ComponentInfo describes a component to the predicate of PerCallerLists.
type ComponentInfo struct {
	// List is the list the component is in: ListTools, ListPrompts, or
	// ListResources for resources and templates.
	List List
	// Name is the name clients see; URI is a resource's URI or a
	// template's text.
	Name, URI string
	// Tags are the component's tags (ToolDef.Tags, Transform.Tags).
	Tags []string
	// Version is the component's version (ToolDef.Version), "" when it
	// has none.
	Version string
	// Requirement is what the component requires of its caller: its own,
	// or the server's default when it declares none.
	Requirement Requirement
}

// PerCallerLists makes every list (tools/list, prompts/list,
// resources/list, resources/templates/list, skills/list) show each caller
// only the components it may use: those whose requirement (scopes, authentication)
// the caller meets and, when allow is not nil, for which allow returns
// true. Such lists are marked cacheScope "private" in the 2026-07-28 era.
//
// Without this option lists show everything and calls are gated, which
// lets a client discover a tool and step up when it calls it. With it, a
// component left out by its requirement still answers a call as before
// (the insufficient-scope or authentication error, so step-up still
// works); a component allow refuses is answered as one the server does
// not have (-32602 "Unknown tool" or "Unknown prompt", resource not
// found, and -32602 for a legacy resources/subscribe), in both eras. A
// skill is judged as its SKILL.md resource (ComponentInfo.Name is the
// skill's name); its files and directories go with the innermost skill
// holding them. allow runs for every component of every list
// request, so keep it cheap; a panic in it refuses the component and is
// logged. The policy goes with the server's components when the server
// is mounted into another (Server.Mount).
func PerCallerLists(allow func(req *Request, c ComponentInfo) bool) Option {
	return func(o *options) { o.lists = &listPolicy{allow: allow} }
}

// listPolicy is the PerCallerLists option.
type listPolicy struct {
	allow func(req *Request, c ComponentInfo) bool
}

func (t *tool) info() ComponentInfo {
	return ComponentInfo{List: ListTools, Name: t.name, Tags: t.tags, Requirement: t.require, Version: t.version}
}

func (p *prompt) info() ComponentInfo {
	return ComponentInfo{List: ListPrompts, Name: p.name, Tags: p.tags, Requirement: p.require, Version: p.version}
}

func (r *resource) info() ComponentInfo {
	return ComponentInfo{List: ListResources, Name: r.name, URI: r.uri, Tags: r.tags, Requirement: r.require, Version: r.version}
}

// allows reports whether the list policy's predicate lets the caller use
// a component: always without a policy or predicate.
func (s *Server) allows(req *Request, c ComponentInfo) (ok bool) {
	if s.opts.lists == nil || s.opts.lists.allow == nil {
		return true
	}
	defer func() {
		if r := recover(); r != nil {
			s.logger.Error("sake: panic in the PerCallerLists predicate: "+c.Name+" is refused", "panic", fmt.Sprint(r))
			ok = false
		}
	}()
	if c.Requirement.empty() {
		c.Requirement = s.opts.require
	}
	return s.opts.lists.allow(req, c)
}

// visibleTo returns the components of list the caller may see, with the
// list policies (the server's, and those of the servers its mounted
// components come from), and whether the list is one caller's; list
// itself when no policy applies.
func visibleTo[T listed](s *Server, req *Request, list []T) ([]T, bool) {
	if s.opts.lists == nil && !anyGated(list) {
		return list, false
	}
	out := make([]T, 0, len(list))
	for _, x := range list {
		info := x.info()
		if s.opts.lists != nil && (s.authorize(info.Requirement, req) != nil || !s.allows(req, info)) {
			continue
		}
		if x.gated().shows(req) {
			out = append(out, x)
		}
	}
	return out, true
}

// listed is a component of a list.
type listed interface {
	info() ComponentInfo
	gated() *childGate
}

func (t *tool) gated() *childGate     { return t.gate }
func (p *prompt) gated() *childGate   { return p.gate }
func (r *resource) gated() *childGate { return r.gate }

func anyGated[T listed](list []T) bool {
	for _, x := range list {
		if x.gated() != nil {
			return true
		}
	}
	return false
}

// perCaller marks a list result private when it was filtered per caller.
func (s *Server) perCaller(private bool, res any, err error) (any, error) {
	if l, ok := res.(*listResult); ok && private {
		l.private = true
	}
	return res, err
}

// permits reports whether the list policies let the caller use a
// component: the server's predicate, and those of the servers it was
// mounted from.
func (s *Server) permits(req *Request, x listed) bool {
	return s.allows(req, x.info()) && x.gated().allows(req)
}

// refusesURI reports whether a list policy's predicate refuses the caller
// the resource or template serving uri.
func (s *Server) refusesURI(req *Request, uri string, reg *registry) bool {
	r := reg.resourcesByURI[uri]
	if r == nil {
		r, _ = reg.matchTemplate(uri)
	}
	if r == nil {
		if s.opts.lists == nil || s.opts.lists.allow == nil {
			return false
		}
		set := s.skills.Load()
		return set != nil && set.files[uri] != nil && !s.allowsSkillURI(req, set, uri)
	}
	return !s.permits(req, r)
}

// childGate is the list policy (PerCallerLists) of a server whose
// component was mounted into another: it keeps holding for that
// component in the parent, judged as the child knows the component.
type childGate struct {
	srv   *Server       // the child
	info  ComponentInfo // the component as the child lists it
	inner *childGate    // the policy of the server the child mounted it from
}

// allows reports whether the child's predicate lets the caller use the
// component (a nil gate always does).
func (g *childGate) allows(req *Request) bool {
	for ; g != nil; g = g.inner {
		if !g.srv.allows(req, g.info) {
			return false
		}
	}
	return true
}

// shows reports whether the child would list the component to the
// caller: its requirement met and its predicate passed.
func (g *childGate) shows(req *Request) bool {
	for ; g != nil; g = g.inner {
		if g.srv.opts.lists != nil && (g.srv.authorize(g.info.Requirement, req) != nil || !g.srv.allows(req, g.info)) {
			return false
		}
	}
	return true
}
