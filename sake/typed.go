package sake

// Typed constructors for components added at run time. They take the same
// functions as NewTool, NewPrompt, NewResource and NewResourceTemplate,
// but with their types spelled out, so a function of the wrong shape is a
// compile error rather than an error from AddTool. What the types may be
// is checked when the component is added, as for the untyped forms: A a
// struct (or map[string]any or json.RawMessage for a tool, a
// map[string]string for a template), R one of the result types New lists.

// NewTypedTool describes a tool served by fn, for Server.AddTool. The
// arguments are validated against A's JSON Schema and decoded into an A.
func NewTypedTool[A, R any](name string, fn func(ctx *Context, args A) (R, error)) *ToolDef {
	return &ToolDef{name: name, fn: fn}
}

// NewTypedPrompt describes a prompt served by fn, for Server.AddPrompt; A
// is a struct of string fields, the prompt's arguments.
func NewTypedPrompt[A, R any](name string, fn func(ctx *Context, args A) (R, error)) *PromptDef {
	return &PromptDef{name: name, fn: fn}
}

// NewTypedResource describes the static resource at uri read by fn, for
// Server.AddResource.
func NewTypedResource[R any](uri string, fn func(ctx *Context) (R, error)) *ResourceDef {
	return &ResourceDef{uri: uri, fn: fn}
}

// NewTypedResourceTemplate describes the resources matching uriTemplate
// read by fn, which receives the template's variables in a V (a struct or
// map[string]string), for Server.AddResource.
func NewTypedResourceTemplate[V, R any](uriTemplate string, fn func(ctx *Context, vars V) (R, error)) *ResourceDef {
	return &ResourceDef{uri: uriTemplate, fn: fn, template: true}
}
