package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/internal/checkedargs"
	"github.com/sakemcp/sake-go/sake/internal/uritemplate"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/tasks"
)

// Option configures New.
type Option func(*proxyConfig)

type proxyConfig struct {
	prefix     string
	inFlight   int
	maxList    int
	timeout    time.Duration
	tools      func(protocol.ToolInfo) bool
	prompts    func(protocol.PromptInfo) bool
	resources  func(uri string) bool
	serverOpts []sake.Option
	uriNS      string // see URINamespace
	rename     func(kind, remote string) string
	leaveOut   func(kind, remote string, err error)
}

// Prefix puts prefix before the name of every tool and prompt of the
// remote server (for example "github_"), so that several remote servers
// can sit side by side.
func Prefix(prefix string) Option { return func(p *proxyConfig) { p.prefix = prefix } }

// DefaultMaxInFlight bounds the calls a proxy sends its remote server at
// once: 64.
const DefaultMaxInFlight = 64

// DefaultCallTimeout bounds how long a proxy waits for its remote server
// to answer one call: 5 minutes, long enough for a person to answer the
// remote's questions within the call.
const DefaultCallTimeout = 5 * time.Minute

// MaxInFlight bounds the calls sent to the remote server at once (default
// DefaultMaxInFlight): a call beyond it is refused at once with an
// internal error that says the remote is busy, so a remote that hangs
// holds at most n of its callers and none of another remote's.
func MaxInFlight(n int) Option { return func(p *proxyConfig) { p.inFlight = n } }

// CallTimeout bounds how long one call waits for the remote server
// (default DefaultCallTimeout); the caller then gets an internal error
// naming the remote. The time the caller takes to answer the remote's
// questions within the call counts; following a remote task is not
// bounded by it. One timer per proxy watches the calls in flight, so a
// call ends up to a sixteenth of d (at most a second) after d.
func CallTimeout(d time.Duration) Option { return func(p *proxyConfig) { p.timeout = d } }

// DefaultMaxListItems bounds the tools, prompts, resources and templates
// a proxy takes from its remote server, each: 10000.
const DefaultMaxListItems = 10000

// MaxListItems bounds each list the proxy takes from the remote server
// (default DefaultMaxListItems): a longer list is an error, and the list
// the proxy serves stays as it was.
func MaxListItems(n int) Option { return func(p *proxyConfig) { p.maxList = n } }

// tooMany checks the length of a remote list.
func (p *proxyConfig) tooMany(what string, n int) error {
	limit := p.maxList
	if limit <= 0 {
		limit = DefaultMaxListItems
	}
	if n > limit {
		return fmt.Errorf("proxy: the remote server lists %d %s, more than the %d the proxy takes (MaxListItems)", n, what, limit)
	}
	return nil
}

func (p *proxyConfig) maxInFlight() int {
	if p.inFlight > 0 {
		return p.inFlight
	}
	return DefaultMaxInFlight
}

func (p *proxyConfig) callTimeout() time.Duration {
	if p.timeout > 0 {
		return p.timeout
	}
	return DefaultCallTimeout
}

// FilterTools keeps only the remote tools keep accepts. Several filters
// all have to accept a tool.
func FilterTools(keep func(protocol.ToolInfo) bool) Option {
	return func(p *proxyConfig) { p.tools = both(p.tools, keep) }
}

// FilterPrompts keeps only the remote prompts keep accepts. Several
// filters all have to accept a prompt.
func FilterPrompts(keep func(protocol.PromptInfo) bool) Option {
	return func(p *proxyConfig) { p.prompts = both(p.prompts, keep) }
}

// FilterResources keeps only the remote resources and templates whose URI
// (or URI template) keep accepts. Several filters all have to accept it.
func FilterResources(keep func(uri string) bool) Option {
	return func(p *proxyConfig) { p.resources = both(p.resources, keep) }
}

// both is a filter that keeps what a and b keep (either may be nil).
func both[T any](a, b func(T) bool) func(T) bool {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	return func(v T) bool { return a(v) && b(v) }
}

// ServerOptions are options for the proxy's sake server (its name,
// authorization requirements, middleware...).
func ServerOptions(opts ...sake.Option) Option {
	return func(p *proxyConfig) { p.serverOpts = append(p.serverOpts, opts...) }
}

// New returns a sake server whose tools, resources, templates and
// prompts are those of the server remote is connected to. Its components
// call remote: with remote's own credentials, never the caller's (the
// caller's token stays with the proxy, as MCP requires). Progress,
// cancellation and list changes pass through; the remote server's
// questions reach the proxy's caller when remote was connected with
// ForwardQuestions. The server follows the remote lists while ctx lasts.
// It serves either era to its callers whatever era remote speaks.
//
// With a 2026-07-28 remote, each forwarded request declares the
// capabilities and log level of the proxy's caller (a caller of the
// handshake era: those of its session, plus the tasks extension, see
// below), so the remote server decides as it would for the caller. A
// handshake-era remote session declares what the proxy's client answers,
// once; a question for a capability the caller lacks is refused then.
//
// A remote server with the tasks extension may answer any call with a
// task: the call then becomes a task of the proxy's own task manager
// (sake/tasks, added unless the server options bring one), owned by the
// caller, with its own id. The caller gets, answers and cancels it with
// the proxy's task methods and hears its status on the proxy's streams;
// the proxy follows the remote task, puts its questions to the caller,
// and cancels it when the caller cancels or the task expires. Callers of
// the handshake era see plain tools (the remote server does not say which
// tools answer with a task): the proxy follows a remote task within their
// call, unless they ask for a task with params.task.
//
// The Agent Skills of a remote server with the skills extension are
// copied once, here (at most MaxProxiedSkillBytes), and served by the
// proxy.
func New(ctx context.Context, remote *client.Client, opts ...Option) (*sake.Server, error) {
	cfg := &proxyConfig{}
	for _, opt := range opts {
		opt(cfg)
	}
	info := remote.Info()
	skillOpts, err := remoteSkills(ctx, remote)
	if err != nil {
		return nil, err
	}
	// Resources the remote serves without listing them are subscribed to
	// on demand (see claim); p is set before the server serves anyone.
	var p *proxy
	servesSkills := len(skillOpts) > 0
	skillOpts = append(skillOpts, sake.SubscribeUnlisted(func(c context.Context, req *sake.Request, uri string) (func(), error) { return p.claim(c, req, uri) }))
	serverOpts := append(cfg.serverOpts[:len(cfg.serverOpts):len(cfg.serverOpts)], skillOpts...)
	srv, err := sake.New(nil, serverOpts...)
	if err != nil {
		return nil, err
	}
	remoteTasks := info.Era == sake.EraModern && info.HasExtension(protocol.TaskExtension)
	if remoteTasks && srv.Tasks() == nil {
		// The remote server's tasks become the proxy's own, kept per
		// caller by a task manager of the proxy's.
		if srv, err = sake.New(nil, append(serverOpts, sake.Tasks(tasks.New()))...); err != nil {
			return nil, err
		}
	}
	p = &proxy{remote: remote, srv: srv, cfg: cfg, tools: map[string]bool{}, prompts: map[string]bool{}, resources: map[string]bool{},
		remoteTasks: remoteTasks, running: map[string]*remoteTask{}, skills: servesSkills,
		inFlight: make(chan struct{}, cfg.maxInFlight()), deadlines: newDeadlines(cfg.callTimeout())}
	if info.HasCapability("tools") {
		if err := p.syncTools(ctx); err != nil {
			return nil, err
		}
	}
	if info.HasCapability("prompts") {
		if err := p.syncPrompts(ctx); err != nil {
			return nil, err
		}
	}
	if info.HasCapability("resources") {
		if err := p.syncResources(ctx); err != nil {
			return nil, err
		}
	}
	p.follow(ctx)
	return srv, nil
}

type proxy struct {
	remote   *client.Client
	srv      *sake.Server
	cfg      *proxyConfig
	inFlight chan struct{} // a slot per call sent to the remote (MaxInFlight)
	// deadlines ends the calls that run past CallTimeout.
	deadlines *deadlines

	mu        sync.Mutex
	tools     map[string]bool // local names
	prompts   map[string]bool
	resources map[string]bool   // URIs and templates
	versions  map[string]string // the version proxied, by kind and local name or URI

	// remoteTasks says the remote server may answer any call with a task
	// (the 2026-07-28 tasks extension does not list which tools do).
	remoteTasks bool
	// running maps the proxy's running tasks to the remote ones they
	// follow; it holds at most as many entries as the proxy's task
	// manager runs tasks.
	running map[string]*remoteTask
	// skills says the proxy serves a copy of the remote skills: their
	// files are not proxied resources.
	skills bool
	// followed are the resources of a session the proxy holds a
	// subscription to, one each (see follow).
	followed map[string]bool
	// onDemand are the subscriptions to resources the remote did not list,
	// taken for the proxy's subscribers (see claim), by URI.
	onDemand map[string]*onDemandSub
	// claimsBy counts the claims of unlisted resources each caller holds
	// (by Identity.Owner), for MaxUnlistedSubscriptionsPerCaller.
	claimsBy map[string]int
}

// upstreamError keeps the remote server's authorization failures from
// reaching the proxy's caller as a challenge of its own: the caller's
// token has nothing to do with them.
func upstreamError(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := errors.AsType[*protocol.InsufficientScopeError](err); ok {
		return sake.NewError(sake.CodeInternalError, "the upstream server refused the proxy's authorization: %v", err)
	}
	if _, ok := errors.AsType[*protocol.InsufficientAuthenticationError](err); ok {
		return sake.NewError(sake.CodeInternalError, "the upstream server refused the proxy's authorization: %v", err)
	}
	if he, ok := errors.AsType[*client.HTTPError](err); ok && he.RPC == nil {
		return sake.NewError(sake.CodeInternalError, "the upstream server failed: HTTP %d", he.Status)
	}
	return err
}

// forward prepares the context of a call to the remote server: the
// caller's progress and questions go back to the caller. The caller's
// done turns the remote call's outcome into the local one: when a
// question could not be asked within the call (the caller answers on a
// retry, 2026-07-28), the remote call was abandoned and the local call
// returns that. The call takes one of the remote's in-flight slots
// (MaxInFlight) and ends after CallTimeout.
func (p *proxy) forward(ctx *sake.Context) (context.Context, *caller) {
	return p.forwardKeyed(ctx, "", p.cfg.callTimeout())
}

// forwardKeyed is forward with the keys of the remote server's questions
// put after prefix, so that the questions of successive rounds of one
// remote task never share a key, and with its own timeout (0: none, for
// following a task, which lasts as long as the task).
func (p *proxy) forwardKeyed(ctx *sake.Context, prefix string, timeout time.Duration) (context.Context, *caller) {
	return p.forwardWith(ctx, prefix, timeout, true)
}

// forwardWith is forwardKeyed; waits says the calling goroutine waits for
// the remote, which the transport is told (sake.Context.WaitsOutside).
func (p *proxy) forwardWith(ctx *sake.Context, prefix string, timeout time.Duration, waits bool) (context.Context, *caller) {
	c, end := context.WithCancelCause(ctx)
	cl := &caller{ctx: ctx, end: end, prefix: prefix, p: p, timeout: timeout}
	switch {
	case timeout <= 0:
	case timeout == p.cfg.callTimeout():
		// The common case: one timer of the proxy's watches every call.
		cl.deadline, cl.watched = time.Now().Add(timeout), true
	default:
		var stop context.CancelFunc
		c, stop = context.WithTimeoutCause(c, timeout, errUpstreamTimeout)
		cl.end = func(cause error) { stop(); end(cause) }
	}
	cl.acquired = p.acquire()
	if !cl.acquired {
		cl.end(nil)
	} else {
		if cl.watched {
			p.deadlines.add(cl)
		}
		if waits {
			// The call waits for the remote: a transport reading the
			// caller's requests on this goroutine goes on reading
			// meanwhile.
			ctx.WaitsOutside()
		}
	}
	callerEnvelope(&cl.env, ctx, cl)
	c = client.WithForward(c, &cl.env)
	if len(ctx.ProgressToken()) > 0 {
		// The remote's progress reaches a caller that asked for progress;
		// for another, the remote is not asked for any.
		c = client.WithProgress(c, func(pr client.Progress) {
			total := 0.0
			if pr.Total != nil {
				total = *pr.Total
			}
			ctx.Progress(pr.Progress, total, pr.Message)
		})
	}
	cl.fctx = c
	return c, cl
}

// done ends the forwarded call and turns the remote call's outcome err
// into the local one (see forward).
func (cl *caller) done(err error) error {
	p := cl.p
	if cl.watched && cl.acquired {
		p.deadlines.remove(cl)
	}
	timedOut := context.Cause(cl.fctx) == errUpstreamTimeout
	cl.end(nil)
	if !cl.acquired {
		return sake.NewError(sake.CodeInternalError, "the upstream server %q has %d requests in flight, the most it is sent; retry later", p.name(), p.cfg.maxInFlight())
	}
	p.release()
	cl.mu.Lock()
	defer cl.mu.Unlock()
	if cl.pending != nil {
		return cl.pending
	}
	if timedOut && err != nil {
		return sake.NewError(sake.CodeInternalError, "the upstream server %q did not answer within %s", p.name(), cl.timeout)
	}
	if err != nil && errors.Is(err, client.ErrClosed) {
		return sake.NewError(sake.CodeInternalError, "the upstream server %q is not connected: %v", p.name(), err)
	}
	if err != nil && p.lost() {
		return sake.NewError(sake.CodeInternalError, "the upstream server %q stopped (%v); retry once it is back", p.name(), p.remote.LostErr())
	}
	return upstreamError(err)
}

// name is what the proxy's errors call the remote server: the proxy's own
// name when its server options give one (a gateway's entry key), else the
// name the remote server gives itself.
func (p *proxy) name() string {
	if n := p.srv.Info().Name; n != "" {
		return n
	}
	return p.remote.Info().Server.Name
}

// lost reports that the connection to the remote server is gone for good
// (a command that exited).
func (p *proxy) lost() bool {
	select {
	case <-p.remote.Lost():
		return true
	default:
		return false
	}
}

// errUpstreamTimeout is the cause of a forwarded call that ran past
// CallTimeout.
var errUpstreamTimeout = errors.New("proxy: the upstream server did not answer in time")

// acquire takes an in-flight slot, without waiting: a remote that has
// MaxInFlight calls running is busy.
func (p *proxy) acquire() bool {
	select {
	case p.inFlight <- struct{}{}:
		return true
	default:
		return false
	}
}

func (p *proxy) release() { <-p.inFlight }

func (p *proxy) syncTools(ctx context.Context) error {
	tools, err := p.remote.ListTools(ctx)
	if err != nil {
		return err
	}
	if err := p.cfg.tooMany("tools", len(tools)); err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, t := range tools {
		if p.cfg.tools != nil && !p.cfg.tools(t) {
			continue
		}
		remoteName := t.Name
		local := p.cfg.localName("tool", t.Name)
		version := remoteVersion(t.Meta)
		def := sake.NewTool(local, func(c *sake.Context, args json.RawMessage) (*sake.ToolResult, error) {
			if p.remoteTasks {
				res, err := p.callTaskTool(c, remoteName, version, args)
				p.cfg.localToolResult(res)
				return res, err
			}
			fctx, fw := p.forward(c)
			res, task, err := p.remote.StartToolEncoded(askVersion(fctx, version), remoteName, fw.checked(args))
			if err == nil && task != nil {
				res, err = p.remote.FollowTask(fctx, task)
			}
			p.cfg.localToolResult(res)
			if err = fw.done(err); err != nil {
				var te *sake.ToolError
				if errors.As(err, &te) {
					return res, nil // the remote tool's own error result, as it is
				}
				return nil, err
			}
			return res, nil
		}).Title(t.Title).Description(t.Description)
		if len(t.InputSchema) > 0 {
			def.InputSchema(t.InputSchema)
		}
		if len(t.OutputSchema) > 0 {
			def.OutputSchema(t.OutputSchema)
		}
		if t.Annotations != nil {
			def.Annotations(*t.Annotations)
		}
		if p.remoteTasks {
			// The remote call becomes a task of the proxy's when the remote
			// server answers with one. Callers of the handshake era see
			// plain tools: the proxy follows a remote task within their
			// call, unless they ask for a task themselves (params.task).
			def.Task(sake.TaskOptional).TaskStartedByCode().TaskUnadvertised()
		}
		if len(t.Icons) > 0 {
			def.Icons(t.Icons...)
		}
		p.startsWithoutWaiting(def, remoteName, version)
		for k, v := range t.Meta {
			if k == protocol.MetaComponentVersion || k == protocol.MetaComponentVersions {
				continue // the version is declared below
			}
			def.Meta(k, v) // an MCP Apps view (ui.resourceUri) and the rest, as the remote wrote them
		}
		if version != "" {
			def.Version(version)
		}
		p.replaceVersion("tool "+local, version, func() bool { return p.srv.RemoveTool(local) })
		if err := p.srv.AddTool(def); err != nil {
			if err := p.cfg.refused("tool", t.Name, err); err != nil {
				return fmt.Errorf("client: proxying tool %s: %w", t.Name, err)
			}
			continue
		}
		seen[local] = true
	}
	p.mu.Lock()
	old := p.tools
	p.tools = seen
	p.mu.Unlock()
	for name := range old {
		if !seen[name] {
			p.srv.RemoveTool(name)
			p.forgetVersion("tool " + name)
		}
	}
	return nil
}

func (p *proxy) syncPrompts(ctx context.Context) error {
	prompts, err := p.remote.ListPrompts(ctx)
	if err != nil {
		return err
	}
	if err := p.cfg.tooMany("prompts", len(prompts)); err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, pr := range prompts {
		if p.cfg.prompts != nil && !p.cfg.prompts(pr) {
			continue
		}
		remoteName := pr.Name
		local := p.cfg.localName("prompt", pr.Name)
		version := remoteVersion(pr.Meta)
		def := sake.NewPrompt(local, func(c *sake.Context, args map[string]string) (*sake.PromptResult, error) {
			fctx, fw := p.forward(c)
			res, err := p.remote.GetPrompt(askVersion(fctx, version), remoteName, args)
			if err = fw.done(err); err != nil {
				return nil, err
			}
			p.cfg.localPromptResult(res)
			return res, nil
		}).Title(pr.Title).Description(pr.Description).Arguments(pr.Arguments...)
		for _, a := range pr.Arguments {
			argName := a.Name
			def.Complete(argName, func(c *sake.Context, r sake.CompleteRequest) (*sake.Completion, error) {
				fctx, fw := p.forward(c)
				comp, err := p.remote.Complete(fctx, protocol.PromptRef(remoteName), argName, r.Value, r.Arguments)
				if err = fw.done(err); err != nil {
					return nil, err
				}
				return comp, nil
			})
		}
		if len(pr.Icons) > 0 {
			def.Icons(pr.Icons...)
		}
		for k, v := range pr.Meta {
			if k == protocol.MetaComponentVersion || k == protocol.MetaComponentVersions {
				continue // the version is declared below
			}
			def.Meta(k, v)
		}
		if version != "" {
			def.Version(version)
		}
		p.replaceVersion("prompt "+local, version, func() bool { return p.srv.RemovePrompt(local) })
		if err := p.srv.AddPrompt(def); err != nil {
			if err := p.cfg.refused("prompt", pr.Name, err); err != nil {
				return fmt.Errorf("client: proxying prompt %s: %w", pr.Name, err)
			}
			continue
		}
		seen[local] = true
	}
	p.mu.Lock()
	old := p.prompts
	p.prompts = seen
	p.mu.Unlock()
	for name := range old {
		if !seen[name] {
			p.srv.RemovePrompt(name)
			p.forgetVersion("prompt " + name)
		}
	}
	return nil
}

func (p *proxy) syncResources(ctx context.Context) error {
	resources, err := p.remote.ListResources(ctx)
	if err != nil {
		return err
	}
	templates, err := p.remote.ListResourceTemplates(ctx)
	if err != nil {
		var e *sake.Error
		if !errors.As(err, &e) || e.Code != sake.CodeMethodNotFound {
			return err
		}
	}
	if err := p.cfg.tooMany("resources", len(resources)); err != nil {
		return err
	}
	if err := p.cfg.tooMany("resource templates", len(templates)); err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, r := range resources {
		if p.cfg.resources != nil && !p.cfg.resources(r.URI) {
			continue
		}
		if p.skills && strings.HasPrefix(r.URI, skillScheme) {
			continue
		}
		uri := r.URI
		seen[uri] = true
		version := remoteVersion(r.Meta)
		def := sake.NewResource(uri, func(c *sake.Context) ([]sake.ResourceContents, error) {
			fctx, fw := p.forward(c)
			res, err := p.remote.ReadResource(askVersion(fctx, version), uri)
			if err = fw.done(err); err != nil {
				return nil, err
			}
			return res, nil
		}).Name(r.Name).Title(r.Title).Description(r.Description).MIMEType(r.MIMEType)
		if r.Size != nil {
			def.Size(*r.Size)
		}
		if r.Annotations != nil {
			def.Annotations(*r.Annotations)
		}
		if len(r.Icons) > 0 {
			def.Icons(r.Icons...)
		}
		for k, v := range r.Meta {
			if k == protocol.MetaComponentVersion || k == protocol.MetaComponentVersions {
				continue // the version is declared below
			}
			def.Meta(k, v)
		}
		if version != "" {
			def.Version(version)
		}
		p.replaceVersion("resource "+uri, version, func() bool { return p.srv.RemoveResource(uri) })
		if err := p.srv.AddResource(def); err != nil {
			return fmt.Errorf("client: proxying resource %s: %w", r.URI, err)
		}
	}
	for _, t := range templates {
		if p.cfg.resources != nil && !p.cfg.resources(t.URITemplate) {
			continue
		}
		seen[t.URITemplate] = true
		tmpl, version := t.URITemplate, remoteVersion(t.Meta)
		def := sake.NewResourceTemplate(t.URITemplate, func(c *sake.Context, _ map[string]string) ([]sake.ResourceContents, error) {
			fctx, fw := p.forward(c)
			res, err := p.remote.ReadResource(askVersion(fctx, version), c.Request().Params.URI)
			if err = fw.done(err); err != nil {
				return nil, err
			}
			return res, nil
		}).Name(t.Name).Title(t.Title).Description(t.Description).MIMEType(t.MIMEType)
		if len(t.Icons) > 0 {
			def.Icons(t.Icons...)
		}
		if t.Annotations != nil {
			def.Annotations(*t.Annotations)
		}
		for k, v := range t.Meta {
			if k == protocol.MetaComponentVersion || k == protocol.MetaComponentVersions {
				continue // the version is declared below
			}
			def.Meta(k, v)
		}
		if tmpl, err := uritemplate.Parse(t.URITemplate); err == nil {
			// completion/complete of the template's variables is the
			// remote's, under the remote's template.
			remoteTemplate := t.URITemplate
			for _, variable := range tmpl.Vars() {
				def.Complete(variable, func(c *sake.Context, r sake.CompleteRequest) (*sake.Completion, error) {
					fctx, fw := p.forward(c)
					comp, err := p.remote.Complete(fctx, protocol.ResourceRef(remoteTemplate), variable, r.Value, r.Arguments)
					if err = fw.done(err); err != nil {
						return nil, err
					}
					return comp, nil
				})
			}
		}
		if version != "" {
			def.Version(version)
		}
		p.replaceVersion("resource "+tmpl, version, func() bool { return p.srv.RemoveResource(tmpl) })
		if err := p.srv.AddResource(def); err != nil {
			return fmt.Errorf("client: proxying resource template %s: %w", t.URITemplate, err)
		}
	}
	p.mu.Lock()
	old := p.resources
	p.resources = seen
	p.mu.Unlock()
	for uri := range old {
		if !seen[uri] {
			p.srv.RemoveResource(uri)
			p.forgetVersion("resource " + uri)
		}
	}
	return nil
}

// caller is the proxy's caller during one forwarded call: the remote
// server's questions are asked to it, each under a key that is the same
// on every round of the call.
type caller struct {
	ctx *sake.Context
	// end ends the remote call: nil abandons it, errUpstreamTimeout
	// times it out.
	end context.CancelCauseFunc
	// deadline is when the call times out, when the proxy's deadlines
	// watch it.
	deadline time.Time
	prefix   string
	mu       sync.Mutex
	n        int
	pending  error // the caller must answer on a retry
	// env is the call's envelope (see callerEnvelope), allocated with
	// the caller.
	env client.Forward
	// args are the call's arguments as the client takes them (see
	// checked), held here so that handing them on allocates nothing.
	args checkedargs.Args
	// What done needs, kept here rather than in a closure of its own: the
	// proxy, the remote call's context, its timeout, whether the proxy's
	// deadlines watch it and whether it took an in-flight slot.
	p        *proxy
	fctx     context.Context
	timeout  time.Duration
	watched  bool
	acquired bool
}

// checked returns args, which the proxy's dispatcher read as valid JSON
// before calling the tool, marked so that the client does not scan them
// again. They are held by the call, so that passing them as an interface
// allocates nothing.
func (cl *caller) checked(args json.RawMessage) any {
	cl.args.JSON = args
	return &cl.args
}

// ask runs a question to the caller; a question the caller answers on a
// retry abandons the remote call (a session's server waits for the
// answer; a 2026-07-28 one has asked every question at once already).
func ask[T any](ctx context.Context, c *caller, fn func() (T, error)) (T, error) {
	v, err := fn()
	if errors.Is(err, sake.ErrInputRequired) {
		c.mu.Lock()
		if c.pending == nil {
			c.pending = err
		}
		c.mu.Unlock()
		if client.InputKey(ctx) == "" {
			c.end(nil)
		}
	}
	return v, err
}

func (c *caller) key(ctx context.Context, kind string) string {
	if k := client.InputKey(ctx); k != "" {
		return c.prefix + k // the remote server's own key
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	return fmt.Sprintf("upstream_%s_%d", kind, c.n)
}

// Elicit asks the proxy's caller's user (client.Caller).
func (c *caller) Elicit(ctx context.Context, r *protocol.ElicitRequest) (*protocol.ElicitResult, error) {
	if r.Mode == "url" {
		key := c.key(ctx, "url")
		action, err := ask(ctx, c, func() (sake.ElicitAction, error) { return c.ctx.ElicitURL(key, r.Message, r.URL) })
		if err != nil {
			return nil, err
		}
		return &protocol.ElicitResult{Action: action}, nil
	}
	key := c.key(ctx, "form")
	var answers map[string]any
	action, err := ask(ctx, c, func() (sake.ElicitAction, error) {
		return c.ctx.ElicitSchema(key, r.Message, r.RequestedSchema, &answers)
	})
	if err != nil {
		return nil, err
	}
	return &protocol.ElicitResult{Action: action, Content: answers}, nil
}

// Sample asks the proxy's caller's model (client.Caller).
func (c *caller) Sample(ctx context.Context, r *sake.SamplingRequest) (*sake.SamplingResult, error) {
	key := c.key(ctx, "sample")
	return ask(ctx, c, func() (*sake.SamplingResult, error) { return c.ctx.Sample(key, *r) })
}

// ListRoots asks the proxy's caller for its roots (client.Caller).
func (c *caller) ListRoots(ctx context.Context) ([]sake.Root, error) {
	key := c.key(ctx, "roots")
	return ask(ctx, c, func() ([]sake.Root, error) { return c.ctx.ListRoots(key) })
}

// Log hands a log message of a forwarded call to the proxy's caller, who
// gets it subject to its own log level, or, a session that set none, as
// the remote server chose to send it (client.Caller).
func (c *caller) Log(level sake.LogLevel, logger string, data json.RawMessage) {
	c.ctx.PassLog(level, logger, data)
}
