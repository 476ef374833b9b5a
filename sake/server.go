package sake

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"reflect"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/sakemcp/sake-go/sake/protocol"
)

// Server is an MCP server built from a Go value: its tools, resources,
// prompts and completions, and the dispatcher that answers every JSON-RPC
// message of both protocol eras. Transports (sake/plug, sake/stdio) and
// the test client (sake/saketest) feed it messages through Handle. A
// Server is safe for concurrent use.
type Server struct {
	opts       options
	impl       reflect.Value // the receiver of method components
	info       protocol.Implementation
	logger     *slog.Logger
	secret     []byte
	usedStates usedStates // redeemed single-use requestStates
	handler    Handler

	comps  components               // the tools, resources and prompts, as published snapshots
	skills atomic.Pointer[skillSet] // the skills served (the Skills option, or a mount's), or nil

	serverInfoMeta []byte // "io.modelcontextprotocol/serverInfo":{...}
	listeners      listeners
	sessions       sync.Map      // id -> *Session, the live legacy sessions
	sessTable      sessionTable  // the same, by owner, for quotas
	done           chan struct{} // closed by Shutdown
	stopping       atomic.Bool   // Shutdown was called
	running        atomic.Int64  // requests being handled
	drained        chan struct{} // signalled when running drops to 0 while stopping
	shutdownOnce   sync.Once
	stopBroker     func() // stops listening to the other replicas
	share          sharing
	mounts         mountTable  // the servers mounted into this one (Mount)
	claims         claimTable  // the sessions' subscriptions to unlisted resources (SubscribeUnlisted)
	logWatchers    logWatchers // the parents told of log messages outside requests (Server.Log)
	replicaTag     string      // in the ids of server-initiated requests
	declared       *registry   // the components built from impl, for a server built during package initialization
}

// blueprint is what reflection learns about a type, computed once per type
// and shared by every server built from it.
type blueprint struct {
	reg *registry
	err error
}

var blueprints sync.Map // reflect.Type -> *blueprint

// New builds a server from impl, usually a pointer to a struct, whose
// exported methods become components. Options set its name, secret,
// middleware and more. impl may be nil for a server whose components are
// all added with AddTool, AddResource and AddPrompt.
//
// # Tools
//
// Every exported method whose first parameter is a context becomes a tool
// unless Declare makes it a resource, prompt or completion, or ignores it;
// exported methods that take no context first are not components (helpers,
// Declare itself). A tool method has the shape
//
//	func (s *T) Name(ctx *sake.Context[, args A]) (R, error)
//
// where ctx may also be a context.Context; A is a struct (or a pointer to
// one) whose JSON Schema becomes the tool's inputSchema, or map[string]any
// or json.RawMessage for free-form arguments; and the results are (R,
// error), R alone, or error alone. R may be:
//
//   - string: one text block;
//   - a Content (*sake.TextContent, *sake.ImageContent, ...) or []sake.Content;
//   - *sake.ToolResult or sake.ToolResult, used as is;
//   - a struct, a pointer to one, or a map with string keys: the value
//     becomes structuredContent, its schema the tool's outputSchema, and its
//     JSON a text block for clients that read only text;
//   - any other JSON-encodable value: its JSON as a text block.
//
// A tool's error becomes a result with isError set (the model reads it
// and may correct itself), except a *sake.Error, which becomes a JSON-RPC
// error. A panic becomes an isError result and is logged.
//
// The tool's name is the method name in snake_case (ListOpenIssues becomes
// list_open_issues); Declare may rename it and give it a description,
// title, annotations, icons and _meta.
//
// # Schemas
//
// Argument structs are reflected with github.com/invopop/jsonschema into
// JSON Schema 2020-12, once per type: a field is required unless its json
// tag says omitempty; the jsonschema tag adds description, enum, default,
// minimum, maximum, format, pattern and the rest (for example
// `jsonschema:"description=City name,enum=metric,enum=imperial"`);
// unknown properties are refused (additionalProperties: false). A
// jsonschema tag that is not a list of these keywords (the description
// alone, `jsonschema:"City name"`, as other libraries write it, or an
// unknown key) is a construction error that shows the form to write.
// Descriptions can also come from doc comments: `sake gen` writes a file
// that registers them with RegisterDocs, and New uses them where Declare
// and the tags give none.
// Arguments are validated against the schema before the method runs, and
// a violation comes back as an isError result naming the field.
//
// # Resources, prompts and completions
//
// Declare makes methods resources (func(ctx) (R, error) with R a string,
// []byte, sake.ResourceContents or []sake.ResourceContents), resource
// templates (the same, with a struct of the template's variables or a
// map[string]string as argument), prompts (func(ctx[, args A]) (R, error)
// with A a struct of string fields and R a string, sake.Content,
// []sake.Content, sake.PromptMessage, []sake.PromptMessage or
// *sake.PromptResult) and completions (func(ctx, sake.CompleteRequest)
// ([]string, error)).
//
// Every problem found is reported at once in a *ConstructionError that
// names each method and says what is wrong. Reflection happens once per
// type: Declare is called the first time a type is seen and must describe
// the type, not one value of it.
func New(impl any, opts ...Option) (*Server, error) {
	o := options{cacheScope: "public"}
	for _, opt := range opts {
		opt(&o)
	}
	if err := o.limits.check(); err != nil {
		return nil, err
	}
	s := &Server{opts: o, logger: o.logger, done: make(chan struct{}), drained: make(chan struct{}, 1)}
	if s.logger == nil {
		s.logger = slog.Default()
	}
	if o.secret == nil {
		s.secret = make([]byte, 32)
		_, _ = rand.Read(s.secret)
	} else {
		s.secret = o.secret
	}
	reg := emptyRegistry
	typeName := "server"
	if impl != nil {
		s.impl = reflect.ValueOf(impl)
		t := s.impl.Type()
		typeName = t.String()
		if t.Kind() == reflect.Pointer {
			typeName = t.Elem().Name()
		} else if t.Name() != "" {
			typeName = t.Name()
		}
		bp := blueprintFor(t, impl)
		if bp.err != nil {
			return nil, bp.err
		}
		reg = bp.reg
		if duringInit() {
			s.declared = reg
			earlyServers.add(s)
		}
	}
	s.comps.init(reg)
	if o.skills != nil {
		if err := s.loadSkills(o.skills); err != nil {
			return nil, err
		}
	}
	if o.tasks == nil {
		for _, t := range reg.tools {
			if t.task != TaskNever {
				s.logger.Warn("sake: tool "+t.name+" is declared as a task, but the server has no task manager (the Tasks option): it runs in the request", "tool", t.name)
			}
		}
	}
	s.info = protocol.Implementation{Name: o.name, Title: o.title, Version: o.version}
	if s.info.Name == "" {
		s.info.Name = snakeCase(typeName)
	}
	if s.info.Version == "" {
		s.info.Version = "0.0.0"
	}
	s.serverInfoMeta = protocol.AppendKey(nil, protocol.MetaServerInfo, true)
	s.serverInfoMeta, _ = protocol.AppendAny(s.serverInfoMeta, s.info)
	s.handler = s.route
	for i := len(o.middleware) - 1; i >= 0; i-- {
		s.handler = o.middleware[i](s.handler)
	}
	s.replicaTag = newReplicaTag()
	s.startBroker()
	s.startSharing()
	return s, nil
}

// MustNew is New that panics on error, for servers built at package level
// or in tests.
func MustNew(impl any, opts ...Option) *Server {
	s, err := New(impl, opts...)
	if err != nil {
		panic(err)
	}
	return s
}

// Info returns the server's name and version.
func (s *Server) Info() protocol.Implementation { return s.info }

func blueprintFor(t reflect.Type, impl any) *blueprint {
	if v, ok := blueprints.Load(t); ok {
		return v.(*blueprint)
	}
	bp := buildBlueprint(t, impl)
	actual, _ := blueprints.LoadOrStore(t, bp)
	return actual.(*blueprint)
}

func buildBlueprint(t reflect.Type, impl any) *blueprint {
	var decl Declarations
	if d, ok := impl.(Declarer); ok {
		d.Declare(&decl)
	}
	var problems []string
	fail := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	method := func(kind, name string) (reflect.Method, bool) {
		m, ok := t.MethodByName(name)
		if !ok {
			fail("Declare names %s method %q, but %s has no exported method of that name%s", kind, name, t, suggest(t, name))
		}
		return m, ok
	}
	roles := map[string]string{}
	claim := func(name, role string) {
		if prev, ok := roles[name]; ok && prev != role {
			fail("method %s is declared both as %s and as %s", name, prev, role)
		}
		roles[name] = role
	}
	for _, r := range decl.resources {
		claim(r.method, "resource")
	}
	for _, p := range decl.prompts {
		claim(p.method, "prompt")
		for _, h := range p.completions {
			if name, ok := h.(string); ok {
				claim(name, "completion")
			}
		}
	}
	for _, r := range decl.resources {
		for _, h := range r.completions {
			if name, ok := h.(string); ok {
				claim(name, "completion")
			}
		}
	}
	// A completion handler is a method name or a function.
	resolve := func(handler any) (*completer, error) {
		name, ok := handler.(string)
		if !ok {
			return compileCompleter(reflect.ValueOf(handler), false)
		}
		m, ok := t.MethodByName(name)
		if !ok {
			return nil, fmt.Errorf("Complete names method %q, but %s has no exported method of that name%s", name, t, suggest(t, name))
		}
		k, err := compileCompleter(m.Func, true)
		if err != nil {
			return nil, fmt.Errorf("completion method %s: %w", name, err)
		}
		return k, nil
	}
	for _, name := range decl.ignored {
		if _, ok := method("ignored", name); ok {
			claim(name, "ignored")
		}
	}
	toolDefs := map[string]*ToolDef{}
	for _, d := range decl.tools {
		if _, ok := method("tool", d.method); ok {
			claim(d.method, "tool")
			toolDefs[d.method] = d
		}
	}
	reg := &registry{}
	for i := 0; i < t.NumMethod(); i++ {
		m := t.Method(i)
		if roles[m.Name] != "" && roles[m.Name] != "tool" {
			continue
		}
		def := toolDefs[m.Name]
		if def == nil {
			if !takesContext(m.Type) {
				continue // not a component: helpers, Declare
			}
			def = &ToolDef{method: m.Name}
		}
		if def.name == "" {
			def.name = snakeCase(m.Name)
		}
		if def.description == "" {
			def.description = methodDoc(t, m.Name)
		}
		tl, err := compileTool(def, m.Func, true)
		if err != nil {
			fail("method %s: %v", m.Name, err)
			continue
		}
		reg.tools = append(reg.tools, tl)
	}
	for _, d := range decl.resources {
		m, ok := method("resource", d.method)
		if !ok {
			continue
		}
		if d.name == "" {
			d.name = snakeCase(d.method)
		}
		if d.description == "" {
			d.description = methodDoc(t, d.method)
		}
		r, err := compileResource(d, m.Func, true, resolve)
		if err != nil {
			fail("method %s (resource %s): %v", d.method, d.uri, err)
			continue
		}
		if r.tmpl != nil {
			reg.templates = append(reg.templates, r)
		} else {
			reg.resources = append(reg.resources, r)
		}
	}
	for _, d := range decl.prompts {
		m, ok := method("prompt", d.method)
		if !ok {
			continue
		}
		if d.name == "" {
			d.name = snakeCase(d.method)
		}
		if d.description == "" {
			d.description = methodDoc(t, d.method)
		}
		p, err := compilePrompt(d, m.Func, true, resolve)
		if err != nil {
			fail("method %s (prompt): %v", d.method, err)
			continue
		}
		reg.prompts = append(reg.prompts, p)
	}
	for _, v := range decl.views {
		r, err := v.compile()
		if err != nil {
			fail("view %s: %v", v.uri, err)
			continue
		}
		reg.resources = append(reg.resources, r)
	}
	if err := reg.finish(); err != nil {
		problems = append(problems, err.Error())
	}
	if len(problems) > 0 {
		return &blueprint{err: &ConstructionError{Type: t.String(), Problems: problems}}
	}
	return &blueprint{reg: reg}
}

// takesContext reports whether a method's first parameter after the
// receiver is a context.
func takesContext(mt reflect.Type) bool {
	return mt.NumIn() >= 2 && (mt.In(1) == sakeContextType || mt.In(1) == stdContextType)
}

// suggest returns ` (did you mean X?)` for a near miss among t's methods.
func suggest(t reflect.Type, name string) string {
	best, bestD := "", 3
	for i := 0; i < t.NumMethod(); i++ {
		if d := editDistance(strings.ToLower(name), strings.ToLower(t.Method(i).Name)); d < bestD {
			best, bestD = t.Method(i).Name, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %s?)", best)
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// safeCall runs user code, turning a panic into a logged failure.
//
// kind and name together say what was called ("tool " and its name); they
// are joined only when the call panics, so a call that returns allocates
// no label.
func (s *Server) safeCall(c *Context, k *callable, arg reflect.Value, kind, name string) (out reflect.Value, err error, panicked bool) {
	defer func() {
		if r := recover(); r != nil {
			s.reportPanic(c, kind+name, r)
			panicked = true
		}
	}()
	out, err = k.call(s.impl, c, arg)
	return out, err, false
}

// reportPanic logs a panic recovered from user code and tells whoever
// watches for them (hooks, the transport, the test client).
func (s *Server) reportPanic(c *Context, what string, r any) {
	stack := debug.Stack()
	s.logger.ErrorContext(c.Context, "sake: panic in "+what, "panic", fmt.Sprint(r), "stack", string(stack))
	if h := s.opts.hooks; h != nil && h.Panic != nil {
		h.Panic(c.Context, r, stack)
	}
	if in := c.req.in; in != nil && in.OnPanic != nil {
		in.OnPanic(r, stack)
	}
	if fn := panicHandler(c.Context); fn != nil {
		fn(r, stack)
	}
}

// Shutdown stops the server: initialize is refused from now on, every
// modern subscriptions/listen stream ends with its final result, and every
// legacy session is closed, which cancels its requests. It then waits
// until every request still running has returned, or ctx ends, and
// returns ctx's error in that case. Call it before stopping the
// transports; a task manager is shut down on its own
// (tasks.Manager.Shutdown). Shutdown may be called more than once.
func (s *Server) Shutdown(ctx context.Context) error {
	s.shutdownOnce.Do(func() {
		s.stopping.Store(true)
		if s.stopBroker != nil {
			s.stopBroker()
		}
		if s.share.stop != nil {
			s.share.stop()
		}
		close(s.done)
	})
	// A session shared with other replicas lives on there: only this
	// replica's copy ends.
	s.sessions.Range(func(_, v any) bool {
		v.(*Session).closeHere()
		return true
	})
	for s.running.Load() > 0 {
		select {
		case <-s.drained:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// begin and end count the requests running, for Shutdown.
func (s *Server) begin() { s.running.Add(1) }

func (s *Server) end() {
	if s.running.Add(-1) == 0 && s.stopping.Load() {
		select {
		case s.drained <- struct{}{}:
		default:
		}
	}
}
