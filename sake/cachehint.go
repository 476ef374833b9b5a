package sake

import "time"

// CacheHint is what the server says about keeping one request's result in
// a server-side cache (sake/middleware's Cache), as Server.CacheHint
// reports it.
type CacheHint struct {
	// Kind is "tool" for a tools/call, "resource" for a resources/read.
	Kind string
	// TTL is the component's own time to live, 0 when it gives none: for
	// resources the read ttlMs set with CacheHints.
	TTL time.Duration
	// Scope is the component's cacheScope, "public" or "private", as the
	// modern era sends it with the result; "" when the protocol gives the
	// result none (tools/call).
	Scope string
}

// CacheHint reports whether the result of req may be kept and served again
// by a server-side cache, and how: it is true for a tools/call of a tool
// marked ReadOnly that cannot run as a task and whose arguments the
// caller's determine (not for a tool whose Transform computes a hidden
// argument per call with ArgTransform.ValueFunc: its result depends on
// what the function reads of the request, which no key of the caller's
// arguments covers), and for a resources/read of a
// resource or template (skill files are in memory already), when the request carries no answers to
// earlier questions and the caller meets the component's requirement. It
// checks the requirement as the handler would, so that a cache which asks
// before answering never serves a caller the handler would refuse.
// Middleware calls it before next.
func (s *Server) CacheHint(req *Request) (CacheHint, bool) {
	p := req.Params
	if p == nil || p.RequestState != nil || len(p.InputResponses) > 0 || len(p.Task) > 0 {
		return CacheHint{}, false
	}
	reg := s.comps.current()
	switch req.Method {
	case "tools/call":
		t := reg.toolsByName[p.Name]
		if t == nil || !t.readOnly || t.task != TaskNever || t.computesArgs() || s.authorize(t.require, req) != nil || !s.permits(req, t) {
			return CacheHint{}, false
		}
		return CacheHint{Kind: "tool"}, true
	case "resources/read":
		if p.URI == "" {
			return CacheHint{}, false
		}
		r := reg.resourcesByURI[p.URI]
		if r == nil {
			r, _ = reg.matchTemplate(p.URI)
		}
		if r == nil || s.authorize(r.require, req) != nil || !s.permits(req, r) {
			return CacheHint{}, false
		}
		return CacheHint{Kind: "resource", TTL: s.opts.readTTL, Scope: s.opts.cacheScope}, true
	}
	return CacheHint{}, false
}
