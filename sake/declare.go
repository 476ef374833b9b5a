package sake

import (
	"encoding/json"
	"time"
)

// Declarer is implemented by a server value that describes its methods
// beyond what reflection sees: descriptions, titles, annotations, icons,
// _meta, and which methods are resources, prompts or completions rather
// than tools. New calls Declare once.
type Declarer interface {
	Declare(d *Declarations)
}

// Declarations collects what a Declarer says about its methods. Every
// method name given must exist and have a suitable signature, or New fails
// naming it.
type Declarations struct {
	tools     []*ToolDef
	resources []*ResourceDef
	prompts   []*PromptDef
	views     []*ViewDef
	ignored   []string
}

// Tool describes the tool made from method. Methods that are not declared
// become tools too, with defaults.
func (d *Declarations) Tool(method string) *ToolDef {
	t := &ToolDef{method: method}
	d.tools = append(d.tools, t)
	return t
}

// Resource makes method the reader of the static resource at uri.
func (d *Declarations) Resource(method, uri string) *ResourceDef {
	r := &ResourceDef{method: method, uri: uri}
	d.resources = append(d.resources, r)
	return r
}

// ResourceTemplate makes method the reader of every resource matching the
// RFC 6570 URI template.
func (d *Declarations) ResourceTemplate(method, uriTemplate string) *ResourceDef {
	r := &ResourceDef{method: method, uri: uriTemplate, template: true}
	d.resources = append(d.resources, r)
	return r
}

// Prompt makes method a prompt.
func (d *Declarations) Prompt(method string) *PromptDef {
	p := &PromptDef{method: method}
	d.prompts = append(d.prompts, p)
	return p
}

// Ignore keeps methods that would otherwise become tools out of the
// server (for example a helper that takes a context first).
func (d *Declarations) Ignore(methods ...string) { d.ignored = append(d.ignored, methods...) }

// noAnnotations reports whether a sets no hint.
func noAnnotations(a ToolAnnotations) bool {
	return a.Title == "" && a.ReadOnlyHint == nil && a.DestructiveHint == nil &&
		a.IdempotentHint == nil && a.OpenWorldHint == nil
}

// ToolDef describes a tool: for a method (Declarations.Tool) or for a
// function (NewTool). Its setters return the ToolDef so calls chain.
type ToolDef struct {
	forward      forwardFunc // set through the bridge by sake/proxy
	task         TaskMode
	taskTTL      time.Duration
	taskPoll     time.Duration
	taskByCode   bool
	singleUse    bool
	require      Requirement
	method       string
	fn           any
	name         string
	title        string
	description  string
	annotations  ToolAnnotations
	icons        []Icon
	meta         Meta
	inputSchema  json.RawMessage
	outputSchema json.RawMessage
	view         string       // _meta.ui.resourceUri
	visibility   []Visibility // _meta.ui.visibility
	tags         []string
	version      string

	// taskUnadvertised leaves execution.taskSupport out of the legacy list.
	taskUnadvertised bool
}

// NewTool describes a tool served by fn, a function with a tool method's
// signature without the receiver (see New), for Server.AddTool. NewTypedTool
// is the same with the function's types checked by the compiler.
func NewTool(name string, fn any) *ToolDef { return &ToolDef{name: name, fn: fn} }

// Name overrides the tool's name (by default the method name in
// snake_case).
func (t *ToolDef) Name(name string) *ToolDef { t.name = name; return t }

// Title sets the human-readable name.
func (t *ToolDef) Title(title string) *ToolDef { t.title = title; return t }

// Description tells the model what the tool does and when to use it.
func (t *ToolDef) Description(text string) *ToolDef { t.description = text; return t }

// ReadOnly hints that the tool changes nothing.
func (t *ToolDef) ReadOnly() *ToolDef { t.annotations.ReadOnlyHint = ptr(true); return t }

// Destructive hints whether a tool that changes things may destroy data.
func (t *ToolDef) Destructive(v bool) *ToolDef { t.annotations.DestructiveHint = ptr(v); return t }

// Idempotent hints that calling the tool twice with the same arguments has
// no further effect.
func (t *ToolDef) Idempotent() *ToolDef { t.annotations.IdempotentHint = ptr(true); return t }

// OpenWorld hints whether the tool reaches outside entities (the web,
// other systems) or only a closed domain.
func (t *ToolDef) OpenWorld(v bool) *ToolDef { t.annotations.OpenWorldHint = ptr(v); return t }

// Annotations sets every annotation at once.
func (t *ToolDef) Annotations(a ToolAnnotations) *ToolDef { t.annotations = a; return t }

// Icons sets the icons a client may show.
func (t *ToolDef) Icons(icons ...Icon) *ToolDef { t.icons = icons; return t }

// Meta sets one key of the tool's _meta.
func (t *ToolDef) Meta(key string, value any) *ToolDef {
	if t.meta == nil {
		t.meta = Meta{}
	}
	t.meta[key] = value
	return t
}

// InputSchema replaces the schema reflected from the argument type with a
// JSON Schema (2020-12) given verbatim; its root must be of type object.
// Arguments are validated against it, then decoded into the argument type.
func (t *ToolDef) InputSchema(schema json.RawMessage) *ToolDef {
	t.inputSchema = schema
	return t
}

// OutputSchema replaces the schema reflected from the result type.
func (t *ToolDef) OutputSchema(schema json.RawMessage) *ToolDef {
	t.outputSchema = schema
	return t
}

// ResourceDef describes a resource or resource template.
type ResourceDef struct {
	require     Requirement
	method      string
	fn          any
	uri         string
	template    bool
	name        string
	title       string
	description string
	mimeType    string
	size        *int64
	icons       []Icon
	annotations *Annotations
	meta        Meta
	completions map[string]any // variable -> method name or func
	tags        []string
	version     string
}

// NewResource describes the static resource at uri read by fn, a function
// with a resource method's signature without the receiver, for
// Server.AddResource.
func NewResource(uri string, fn any) *ResourceDef { return &ResourceDef{uri: uri, fn: fn} }

// NewResourceTemplate describes the resources matching uriTemplate read by
// fn, for Server.AddResource.
func NewResourceTemplate(uriTemplate string, fn any) *ResourceDef {
	return &ResourceDef{uri: uriTemplate, fn: fn, template: true}
}

// Name sets the resource's name (by default the method name in
// snake_case, or the URI).
func (r *ResourceDef) Name(name string) *ResourceDef { r.name = name; return r }

// Title sets the human-readable name.
func (r *ResourceDef) Title(title string) *ResourceDef { r.title = title; return r }

// Description says what the resource holds.
func (r *ResourceDef) Description(text string) *ResourceDef { r.description = text; return r }

// MIMEType sets the media type of the contents (default text/plain for
// text, application/octet-stream for bytes).
func (r *ResourceDef) MIMEType(t string) *ResourceDef { r.mimeType = t; return r }

// Size sets the size in bytes, when known.
func (r *ResourceDef) Size(n int64) *ResourceDef { r.size = &n; return r }

// Icons sets the icons a client may show.
func (r *ResourceDef) Icons(icons ...Icon) *ResourceDef { r.icons = icons; return r }

// Annotations sets the audience, priority and modification time.
func (r *ResourceDef) Annotations(a Annotations) *ResourceDef { r.annotations = &a; return r }

// Meta sets one key of the resource's _meta.
func (r *ResourceDef) Meta(key string, value any) *ResourceDef {
	if r.meta == nil {
		r.meta = Meta{}
	}
	r.meta[key] = value
	return r
}

// Complete names how to complete a variable of a template: a method name
// (when declared in Declare) or a completion function (see New for the
// signature).
func (r *ResourceDef) Complete(variable string, handler any) *ResourceDef {
	if r.completions == nil {
		r.completions = map[string]any{}
	}
	r.completions[variable] = handler
	return r
}

// PromptDef describes a prompt.
type PromptDef struct {
	require     Requirement
	method      string
	fn          any
	name        string
	title       string
	description string
	icons       []Icon
	meta        Meta
	completions map[string]any
	arguments   []PromptArgument
	tags        []string
	version     string
}

// Arguments declares the arguments of a prompt served by a function that
// takes map[string]string (a struct argument declares its own).
func (p *PromptDef) Arguments(args ...PromptArgument) *PromptDef {
	p.arguments = append([]PromptArgument(nil), args...)
	return p
}

// NewPrompt describes a prompt served by fn, a function with a prompt
// method's signature without the receiver, for Server.AddPrompt.
func NewPrompt(name string, fn any) *PromptDef { return &PromptDef{name: name, fn: fn} }

// Name overrides the prompt's name (by default the method name in
// snake_case).
func (p *PromptDef) Name(name string) *PromptDef { p.name = name; return p }

// Title sets the human-readable name.
func (p *PromptDef) Title(title string) *PromptDef { p.title = title; return p }

// Description says what the prompt is for.
func (p *PromptDef) Description(text string) *PromptDef { p.description = text; return p }

// Icons sets the icons a client may show.
func (p *PromptDef) Icons(icons ...Icon) *PromptDef { p.icons = icons; return p }

// Meta sets one key of the prompt's _meta.
func (p *PromptDef) Meta(key string, value any) *PromptDef {
	if p.meta == nil {
		p.meta = Meta{}
	}
	p.meta[key] = value
	return p
}

// Complete names how to complete an argument: a method name (when declared
// in Declare) or a completion function. Arguments whose field declares an
// enum are completed from it without this.
func (p *PromptDef) Complete(argument string, handler any) *PromptDef {
	if p.completions == nil {
		p.completions = map[string]any{}
	}
	p.completions[argument] = handler
	return p
}

func ptr[T any](v T) *T { return &v }

// Scopes requires the caller's token to carry every one of scopes.
func (t *ToolDef) Scopes(scopes ...string) *ToolDef {
	t.require.Scopes = append(t.require.Scopes, scopes...)
	return t
}

// Authentication requires the caller to have signed in with one of
// acrValues (if any) within maxAge (if not zero), as RFC 9470 describes.
func (t *ToolDef) Authentication(acrValues []string, maxAge time.Duration) *ToolDef {
	t.require.ACRValues, t.require.MaxAge = acrValues, maxAge
	return t
}

// Scopes requires the caller's token to carry every one of scopes.
func (r *ResourceDef) Scopes(scopes ...string) *ResourceDef {
	r.require.Scopes = append(r.require.Scopes, scopes...)
	return r
}

// Authentication requires the caller to have signed in with one of
// acrValues (if any) within maxAge (if not zero), as RFC 9470 describes.
func (r *ResourceDef) Authentication(acrValues []string, maxAge time.Duration) *ResourceDef {
	r.require.ACRValues, r.require.MaxAge = acrValues, maxAge
	return r
}

// Scopes requires the caller's token to carry every one of scopes.
func (p *PromptDef) Scopes(scopes ...string) *PromptDef {
	p.require.Scopes = append(p.require.Scopes, scopes...)
	return p
}

// Authentication requires the caller to have signed in with one of
// acrValues (if any) within maxAge (if not zero), as RFC 9470 describes.
func (p *PromptDef) Authentication(acrValues []string, maxAge time.Duration) *PromptDef {
	p.require.ACRValues, p.require.MaxAge = acrValues, maxAge
	return p
}

// TaskMode says whether a tool runs as a task its caller polls.
type TaskMode uint8

// The task modes.
const (
	// TaskNever runs the tool in the request (the default).
	TaskNever TaskMode = iota
	// TaskOptional runs the tool as a task when the client can take one
	// (it declared the tasks extension, or, in the legacy era, asked with
	// params.task), and in the request otherwise.
	TaskOptional
	// TaskRequired runs the tool only as a task; a client that cannot
	// take one gets an error (-32021 in the modern era, -32601 in the
	// legacy one).
	TaskRequired
)

// Task makes the tool run as a task (see TaskMode); the server needs a
// task manager (the Tasks option).
func (t *ToolDef) Task(mode TaskMode) *ToolDef { t.task = mode; return t }

// TaskTiming sets how long the tool's tasks are kept (ttl, from their
// creation) and how often clients should poll them; zero keeps the task
// manager's defaults.
func (t *ToolDef) TaskTiming(ttl, pollInterval time.Duration) *ToolDef {
	t.taskTTL, t.taskPoll = ttl, pollInterval
	return t
}

// TaskStartedByCode says the tool becomes a task only when its code calls
// Context.StartTask: questions asked before are answered in the request
// (input_required rounds), the rest of the work runs as a task.
func (t *ToolDef) TaskStartedByCode() *ToolDef { t.taskByCode = true; return t }

// TaskUnadvertised keeps the tool's task support out of the 2025-11-25
// tools/list (execution.taskSupport): clients of that era call it as a
// plain tool, and it runs in the request unless a client asks for a task
// anyway (params.task). The 2026-07-28 tools/list never shows task
// support, so nothing changes there. A proxy uses it for tools whose
// remote server may or may not answer with a task.
func (t *ToolDef) TaskUnadvertised() *ToolDef { t.taskUnadvertised = true; return t }

// SingleUseState makes every requestState this tool's calls return (when
// they ask a question in the modern era) redeemable once: a retry that
// presents it again, within its TTL or not, gets -32602 instead of running
// the tool a second time. Give it to tools with effects that asking
// repeats. Used states are remembered in memory until they expire, at most
// Limits.MaxSingleUseStates at once (beyond that such calls are refused with
// CodeServerBusy), and only by this process: behind a load balancer, route
// a client's retries to the same replica.
func (t *ToolDef) SingleUseState() *ToolDef { t.singleUse = true; return t }
