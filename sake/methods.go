package sake

import (
	"context"
	"slices"

	"github.com/sakemcp/sake-go/sake/protocol"
)

// method is one entry of the dispatcher's method table, built once.
type method struct {
	fn     func(s *Server, ctx context.Context, req *Request, reg *registry) (any, error)
	modern bool // served in the 2026-07-28 era
	legacy bool // served in the handshake era
	needs  func(*registry) bool
	tasks  bool   // needs a task manager
	what   string // the capability, for the error when needs fails
}

var methodTable map[string]*method

func init() {
	both := func(fn func(*Server, context.Context, *Request, *registry) (any, error)) *method {
		return &method{fn: fn, modern: true, legacy: true}
	}
	resources := func(m *method) *method { m.needs, m.what = (*registry).offersResources, "resources"; return m }
	prompts := func(m *method) *method { m.needs, m.what = (*registry).offersPrompts, "prompts"; return m }
	tasks := func(m *method) *method { m.tasks, m.what = true, "tasks"; return m }
	completions := func(m *method) *method {
		m.needs, m.what = (*registry).offersCompletion, "completions"
		return m
	}
	methodTable = map[string]*method{
		"server/discover":          {fn: (*Server).discover, modern: true},
		"initialize":               {fn: (*Server).initialize, legacy: true},
		"ping":                     {fn: ping, legacy: true},
		"logging/setLevel":         {fn: setLevel, legacy: true},
		"tools/list":               both((*Server).listTools),
		"tools/call":               both((*Server).callTool),
		"resources/list":           resources(both((*Server).listResources)),
		"resources/templates/list": resources(both((*Server).listTemplates)),
		"resources/read":           resources(both((*Server).readResource)),
		"resources/subscribe":      resources(&method{fn: subscribe, legacy: true}),
		"resources/unsubscribe":    resources(&method{fn: subscribe, legacy: true}),
		"prompts/list":             prompts(both((*Server).listPrompts)),
		"prompts/get":              prompts(both((*Server).getPrompt)),
		"completion/complete":      completions(both((*Server).complete)),
		"subscriptions/listen":     {fn: (*Server).listen, modern: true},
		"skills/list":              both((*Server).listSkills),
		"skills/get":               both((*Server).getSkill),
		"resources/directory/read": both((*Server).readDirectory),
		"tasks/get":                tasks(both((*Server).tasksGet)),
		"tasks/update":             tasks(&method{fn: (*Server).tasksUpdate, modern: true}),
		"tasks/cancel":             tasks(both((*Server).tasksCancel)),
		"tasks/result":             tasks(&method{fn: (*Server).tasksResult, legacy: true}),
		"tasks/list":               tasks(&method{fn: (*Server).tasksList, legacy: true}),
	}
}

// route is the innermost handler: it finds the method and runs it.
func (s *Server) route(ctx context.Context, req *Request) (any, error) {
	m := methodTable[req.Method]
	if m == nil || (req.Era == EraModern && !m.modern) || (req.Era != EraModern && !m.legacy) {
		return nil, &Error{Code: CodeMethodNotFound, Message: "Method not found: " + req.Method}
	}
	reg := s.comps.current()
	if (m.needs != nil && !m.needs(reg) && !req.Session.offered(m.what)) || (m.tasks && s.opts.tasks == nil) {
		return nil, &Error{Code: CodeMethodNotFound, Message: "Method not found: " + req.Method,
			Data: map[string]string{"reason": "the server does not offer " + m.what}}
	}
	return m.fn(s, ctx, req, reg)
}

// authorize checks a component's requirement (or the server's default)
// against the caller.
func (s *Server) authorize(r Requirement, req *Request) error {
	if r.empty() {
		r = s.opts.require
	}
	return r.check(req.Identity, s.now, hostTrusted(req.in))
}

func (s *Server) newContext(ctx context.Context, req *Request) *Context {
	if c := req.ctx; c != nil {
		req.ctx = nil
		*c = Context{Context: ctx, req: req, srv: s}
		return c
	}
	return &Context{Context: ctx, req: req, srv: s}
}

func (s *Server) discover(_ context.Context, _ *Request, reg *registry) (any, error) {
	caps := s.withExtensions(reg.capabilities, reg, s.opts.tasks != nil)
	return &discoverResult{caps: caps, instructions: s.opts.instructions}, nil
}

func (s *Server) initialize(ctx context.Context, req *Request, reg *registry) (any, error) {
	p := req.Params
	if p.ProtocolVersion == "" {
		return nil, InvalidParams("initialize needs params.protocolVersion")
	}
	version := protocol.LegacyVersion
	if protocol.IsLegacyVersion(p.ProtocolVersion) {
		version = p.ProtocolVersion
	}
	sess := newSession(version, p.Capabilities, p.ClientInfo)
	sess.srv, sess.owner = s, req.Identity.Owner()
	sess.offer(reg)
	sess.key = ownerKey(sess.owner, req.in.RemoteAddr)
	if s.stopping.Load() {
		return nil, protocol.ServerBusy("Server busy: the server is shutting down; connect to another instance", ErrShuttingDown)
	}
	sess.shared = s.share.store != nil
	if !s.admit(sess) {
		return nil, protocol.ServerBusy(TooManySessionsMessage, ErrTooManySessions)
	}
	if s.share.store != nil {
		if err := s.shareSession(ctx, sess); err != nil {
			sess.Close()
			s.logger.Error("sake: storing a new shared session", "err", err)
			return nil, protocol.ServerBusy("Service unavailable: the session store cannot be written right now, so no session was opened; retry later", storeError(err))
		}
	}
	if h := s.opts.hooks; h != nil && h.Session != nil {
		sess.onClose = h.Session(ctx, req, sess)
	}
	req.newSession = sess
	caps := reg.capabilities
	if version < "2025-03-26" {
		caps = stripMembers(caps, "completions") // completions came with 2025-03-26
	}
	if s.opts.tasks != nil && version >= "2025-11-25" {
		caps = append(append(caps[:len(caps)-1:len(caps)-1], `,"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}`...), '}')
	}
	caps = s.withExtensions(caps, reg, false)
	return &initializeResult{version: version, caps: caps, info: s.info, instructions: s.opts.instructions}, nil
}

func ping(*Server, context.Context, *Request, *registry) (any, error) { return emptyResult{}, nil }

func setLevel(s *Server, _ context.Context, req *Request, _ *registry) (any, error) {
	sev := req.Params.Level.Severity()
	if sev == 0 {
		return nil, InvalidParams("Invalid params: level must be one of debug, info, notice, warning, error, critical, alert, emergency")
	}
	if req.Session != nil {
		req.Session.logLevel.Store(int32(sev))
		s.sessionChanged(req.Session)
	}
	return emptyResult{}, nil
}

// List kinds, the first byte of a cursor.
const (
	kindTools byte = iota + 1
	kindResources
	kindTemplates
	kindPrompts
)

// maxPageBytes bounds the JSON of one list page: a page ends before the
// item that would take it past this size (a page always holds at least
// one item).
const maxPageBytes = 4 << 20

// page returns the page of n items that starts at the cursor: at most the
// Limits.PageSize items and maxPageBytes of JSON.
func (s *Server) page(kind byte, key string, n int, item func(int) []byte, cursor *string) (any, error) {
	off, err := s.offset(kind, cursor)
	if err != nil {
		return nil, err
	}
	end := n
	if size := s.pageSize(); size > 0 && off+size < n {
		end = off + size
	}
	if off > n {
		off = n
	}
	r := &listResult{key: key, items: make([][]byte, 0, end-off)}
	size := 0
	for i := off; i < end; i++ {
		it := item(i)
		if size += len(it); size > maxPageBytes && i > off {
			end = i // the page is full; the rest follows the cursor
			break
		}
		r.items = append(r.items, it)
	}
	if end < n {
		r.next = s.cursor(kind, end)
	}
	return r, nil
}

func (s *Server) listTools(_ context.Context, req *Request, reg *registry) (any, error) {
	rev := revisionOf(req)
	tools, private := visibleTo(s, req, reg.toolsFor(req.ClientCapabilities))
	if rev == rev20251125 && s.opts.tasks != nil {
		res, err := s.page(kindTools, "tools", len(tools), func(i int) []byte { return tools[i].legacyJSON }, req.Params.Cursor)
		return s.perCaller(private, res, err)
	}
	res, err := s.page(kindTools, "tools", len(tools), func(i int) []byte { return tools[i].byRevision[rev] }, req.Params.Cursor)
	return s.perCaller(private, res, err)
}

func (s *Server) listResources(_ context.Context, req *Request, reg *registry) (any, error) {
	rev := revisionOf(req)
	list, private := visibleTo(s, req, reg.resources)
	res, err := s.page(kindResources, "resources", len(list), func(i int) []byte { return list[i].byRevision[rev] }, req.Params.Cursor)
	return s.perCaller(private, res, err)
}

func (s *Server) listTemplates(_ context.Context, req *Request, reg *registry) (any, error) {
	rev := revisionOf(req)
	list, private := visibleTo(s, req, reg.templates)
	res, err := s.page(kindTemplates, "resourceTemplates", len(list), func(i int) []byte { return list[i].byRevision[rev] }, req.Params.Cursor)
	return s.perCaller(private, res, err)
}

func (s *Server) listPrompts(_ context.Context, req *Request, reg *registry) (any, error) {
	rev := revisionOf(req)
	list, private := visibleTo(s, req, reg.prompts)
	res, err := s.page(kindPrompts, "prompts", len(list), func(i int) []byte { return list[i].byRevision[rev] }, req.Params.Cursor)
	return s.perCaller(private, res, err)
}

func (s *Server) callTool(ctx context.Context, req *Request, reg *registry) (any, error) {
	p := req.Params
	if p.Name == "" {
		return nil, InvalidParams("Invalid params: tools/call needs a tool name")
	}
	t := reg.toolsByName[p.Name]
	if t == nil {
		return nil, s.missing("tool", p.Name, func() error { return InvalidParams("Unknown tool: %s", p.Name) })
	}
	if !s.allows(req, t.info()) || !t.gate.allows(req) {
		return nil, InvalidParams("Unknown tool: %s", p.Name)
	}
	if v := askedVersion(req); v != "" && v != t.version {
		head := t
		if t = pickVersion(t, v); t == nil || !s.permits(req, t) {
			return nil, unknownVersion(InvalidParams("Unknown tool: %s", p.Name), v, versionNames(head))
		}
	}
	if err := s.authorize(t.require, req); err != nil {
		return nil, err
	}
	req.singleUse = t.singleUse
	if req.Era == EraModern && req.in.Headers != nil {
		if err := checkParamHeaders(t, p.Arguments, req.in.Headers); err != nil {
			return nil, err
		}
	}
	if t.task != TaskNever && s.opts.tasks != nil {
		if res, handled, err := s.callTask(ctx, req, t); handled {
			return res, err
		}
	}
	if req.dfr != nil && s.forward(ctx, req, t) {
		return nil, errDeferred
	}
	c, err := s.callContext(ctx, req)
	if err != nil {
		return nil, err
	}
	res, err := t.invoke(c, p.Arguments, p.argsChecked(p.Arguments))
	return s.finishRound(req, c, res, err)
}

// callContext makes the Context of a call that may ask questions: in the
// modern era it opens the request state first.
func (s *Server) callContext(ctx context.Context, req *Request) (*Context, error) {
	c := s.newContext(ctx, req)
	if req.Era == EraModern && (req.Params.RequestState != nil || len(req.Params.InputResponses) > 0) {
		r, err := s.openRound(req)
		if err != nil {
			return nil, err
		}
		c.rnd = r
	}
	return c, nil
}

func (s *Server) readResource(ctx context.Context, req *Request, reg *registry) (any, error) {
	uri := req.Params.URI
	if uri == "" {
		return nil, InvalidParams("Invalid params: resources/read needs a uri")
	}
	var vars map[string]string
	r := reg.resourcesByURI[uri]
	if r == nil {
		r, vars = reg.matchTemplate(uri)
	}
	if set := s.skills.Load(); r == nil && set != nil && s.allowsSkillURI(req, set, uri) {
		if contents, ok := set.read(uri); ok {
			if err := s.authorize(Requirement{}, req); err != nil {
				return nil, err
			}
			return &ReadResult{Contents: contents}, nil
		}
	}
	if r == nil {
		return nil, s.missing("resource", uri, func() error { return resourceNotFound(req.Era, uri) })
	}
	if !s.permits(req, r) {
		return nil, resourceNotFound(req.Era, uri)
	}
	if v := askedVersion(req); v != "" && v != r.version {
		head := r
		if r = pickVersion(r, v); r == nil || !s.permits(req, r) {
			return nil, unknownVersion(resourceNotFound(req.Era, uri), v, versionNames(head))
		}
	}
	if err := s.authorize(r.require, req); err != nil {
		return nil, err
	}
	c, err := s.callContext(ctx, req)
	if err != nil {
		return nil, err
	}
	contents, err := r.read(c, uri, vars)
	if err != nil {
		return s.finishRound(req, c, nil, readError(req.Era, uri, err))
	}
	return &ReadResult{Contents: contents}, nil
}

func (s *Server) getPrompt(ctx context.Context, req *Request, reg *registry) (any, error) {
	p := reg.promptsByName[req.Params.Name]
	if p == nil {
		return nil, s.missing("prompt", req.Params.Name, func() error { return InvalidParams("Unknown prompt: %s", req.Params.Name) })
	}
	if !s.permits(req, p) {
		return nil, InvalidParams("Unknown prompt: %s", req.Params.Name)
	}
	if v := askedVersion(req); v != "" && v != p.version {
		head := p
		if p = pickVersion(p, v); p == nil || !s.permits(req, p) {
			return nil, unknownVersion(InvalidParams("Unknown prompt: %s", req.Params.Name), v, versionNames(head))
		}
	}
	if err := s.authorize(p.require, req); err != nil {
		return nil, err
	}
	c, err := s.callContext(ctx, req)
	if err != nil {
		return nil, err
	}
	res, err := p.get(c, req.Params.Arguments)
	return s.finishRound(req, c, res, err)
}

func (s *Server) complete(ctx context.Context, req *Request, reg *registry) (any, error) {
	p := req.Params
	if p.Ref == nil || p.Argument == nil {
		return nil, InvalidParams("Invalid params: completion/complete needs ref and argument")
	}
	var ks map[string]*completer
	switch p.Ref.Type {
	case "ref/prompt":
		pr := reg.promptsByName[p.Ref.Name]
		if pr == nil || !s.permits(req, pr) {
			return nil, InvalidParams("Unknown prompt: %s", p.Ref.Name)
		}
		if err := s.authorize(pr.require, req); err != nil {
			return nil, err // completing a prompt needs what getting it needs
		}
		if !pr.hasArg(p.Argument.Name) && pr.call.argType != mapStringType {
			return nil, InvalidParams("Prompt %s has no argument %q", pr.name, p.Argument.Name)
		}
		ks = pr.completions
	case "ref/resource":
		var res *resource
		for _, t := range reg.templates {
			if t.uri == p.Ref.URI {
				res = t
			}
		}
		if res != nil && !s.permits(req, res) {
			res = nil
		}
		if res == nil {
			if r := reg.resourcesByURI[p.Ref.URI]; r != nil && s.permits(req, r) {
				if err := s.authorize(r.require, req); err != nil {
					return nil, err
				}
				return &CompleteResult{Completion: clampCompletion(&Completion{})}, nil
			}
			return nil, InvalidParams("Unknown resource template: %s", p.Ref.URI)
		}
		if err := s.authorize(res.require, req); err != nil {
			return nil, err // completing a template needs what reading it needs
		}
		if !slices.Contains(res.tmpl.Vars(), p.Argument.Name) {
			return nil, InvalidParams("Resource template %s has no variable %q", res.uri, p.Argument.Name)
		}
		ks = res.completions
	default:
		return nil, InvalidParams(`Invalid params: ref.type must be "ref/prompt" or "ref/resource"`)
	}
	k := ks[p.Argument.Name]
	if k == nil {
		return &CompleteResult{Completion: clampCompletion(&Completion{})}, nil
	}
	creq := CompleteRequest{Argument: p.Argument.Name, Value: p.Argument.Value}
	if p.Context != nil {
		creq.Arguments = p.Context.Arguments
	}
	c, err := k.complete(s.newContext(ctx, req), creq)
	if err != nil {
		return nil, err
	}
	return &CompleteResult{Completion: c}, nil
}
