package openapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/pb33f/libopenapi"
	"github.com/pb33f/libopenapi/datamodel"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/pb33f/libopenapi/utils"

	"github.com/sakemcp/sake-go/sake"
)

// New reads an OpenAPI 3.0 or 3.1 document (JSON or YAML) and returns a
// sake server whose components call the API it describes: by default
// every operation is a tool, named after its operationId (see Routes
// and Names). The server is an ordinary one: mount it, transform it,
// enable and disable its components by tag (an operation's tags are its
// component's), serve it over any transport.
//
// A tool's arguments are the operation's path, query and header
// parameters and the properties of its request body, JSON or a form
// (allOf merged, references resolved); a body with no fixed properties
// is one argument, "body". When two share a name, the earlier place
// keeps it (path, query, header, body) and the later one is suffixed:
// "id__query", "id__header", "id__body". Cookie parameters, and the
// Accept, Content-Type and Authorization header parameters (which
// OpenAPI says to ignore), are left out. Arguments are checked against
// the schema before any request is made.
//
// A call sends one request to the base URL (the document's first server,
// its variables at their defaults, or BaseURL) with the HTTP client
// (HTTPClient), and the caller's token only with ForwardBearerToken.
// A success is the body as text, and as structured content when the
// operation declares a JSON response (the tool then has that output
// schema; one that is not an object is wrapped as {"result": …}). Any
// other status is a tool error naming the HTTP status, with the start of
// the body (MaxErrorBodyBytes). At most MaxResponseBytes of a body are
// read.
//
// The document may not refer to other files or URLs; such references are
// read as schemas that accept anything. Swagger 2.0 documents are
// refused: convert them to OpenAPI 3 first.
func New(spec []byte, opts ...Option) (*sake.Server, error) {
	cfg := &config{}
	for _, opt := range opts {
		opt(cfg)
	}
	logger := cfg.logger
	if logger == nil {
		// The parser's default logger writes to standard output, which
		// a server on stdio keeps for protocol messages.
		logger = slog.New(slog.DiscardHandler)
	}
	doc, err := libopenapi.NewDocumentWithConfiguration(spec, &datamodel.DocumentConfiguration{
		SkipExternalRefResolution: true,
		Logger:                    logger,
	})
	if err != nil {
		return nil, fmt.Errorf("openapi: the document cannot be read: %w", err)
	}
	if info := doc.GetSpecInfo(); info == nil || info.SpecType != utils.OpenApi3 {
		return nil, errors.New("openapi: the document is not OpenAPI 3.0 or 3.1 (a Swagger 2.0 document must be converted first)")
	}
	model, err := doc.BuildV3Model()
	if model == nil {
		return nil, fmt.Errorf("openapi: the document cannot be read: %w", err)
	}
	// Errors beside a model are references the document could not resolve
	// (circular, missing): those schemas accept anything.
	d := &model.Model
	a := &api{cfg: cfg, client: cfg.client}
	if a.client == nil {
		a.client = &http.Client{Timeout: DefaultTimeout}
	}
	if a.base, err = baseURL(cfg.baseURL, d.Servers); err != nil {
		return nil, err
	}
	set := &schemaSet{components: map[string]component{}}
	if d.Components != nil && d.Components.Schemas != nil {
		if set, err = loadComponents(d.Components.Schemas.FromOldest()); err != nil {
			return nil, err
		}
	}
	name, version := "openapi", "0.0.0"
	if d.Info != nil {
		if d.Info.Title != "" {
			name = d.Info.Title
		}
		if d.Info.Version != "" {
			version = d.Info.Version
		}
	}
	srv, err := sake.New(nil, append([]sake.Option{sake.Name(name, version)}, cfg.serverOpts...)...)
	if err != nil {
		return nil, err
	}
	if d.Paths == nil || d.Paths.PathItems == nil {
		return srv, nil
	}
	taken := map[string]bool{}
	for path, item := range d.Paths.PathItems.FromOldest() {
		if item == nil {
			continue
		}
		for method, op := range item.GetOperations().FromOldest() {
			if err := a.add(srv, set, taken, method, path, item, op); err != nil {
				return nil, err
			}
		}
	}
	return srv, nil
}

// add converts one operation into the component its route map says.
func (a *api) add(srv *sake.Server, set *schemaSet, taken map[string]bool, method, path string, item *v3.PathItem, op *v3.Operation) error {
	method = strings.ToUpper(method)
	rm := route(a.cfg.routes, method, path, op.Tags)
	if rm.Kind == Exclude {
		return nil
	}
	key := op.OperationId
	if key == "" {
		key = fallbackName(method, path)
	}
	name := sanitizeName(key)
	if n, ok := a.cfg.names[key]; ok {
		name = n
	}
	if name == "" {
		name = fallbackName(method, path)
	}
	name = uniqueName(name, taken)
	where := fmt.Sprintf("openapi: %s %s (%s)", method, path, name)
	o, err := set.build(method, path, item.Parameters, op)
	if err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	o.name = name
	tags := append(append([]string(nil), op.Tags...), rm.ComponentTags...)
	switch rm.Kind {
	case Tool:
		if err := srv.AddTool(a.tool(o, tags)); err != nil {
			return fmt.Errorf("%s: %w; leave the operation out with a RouteMap of Kind Exclude", where, err)
		}
	case Resource, ResourceTemplate:
		if method != http.MethodGet {
			return fmt.Errorf("%s: only a GET operation can be a resource; give the route map Methods: []string{\"GET\"}", where)
		}
		for _, arg := range o.args {
			if arg.in != inPath && slices.Contains(o.required, arg.name) {
				return fmt.Errorf("%s: the %s parameter %q is required, which a resource URI cannot carry; make the operation a tool", where, arg.in, arg.param)
			}
		}
		if err := srv.AddResource(a.resource(o, tags)); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
	default:
		return fmt.Errorf("%s: unknown route Kind %v", where, rm.Kind)
	}
	return nil
}

// tool makes an operation a tool.
func (a *api) tool(o *operation, tags []string) *sake.ToolDef {
	structured := o.output != nil && !a.cfg.noOutputs
	def := sake.NewTool(o.name, func(c *sake.Context, raw json.RawMessage) (*sake.ToolResult, error) {
		var args map[string]any
		if len(raw) > 0 {
			if err := json.Unmarshal(raw, &args); err != nil {
				return nil, err
			}
		}
		resp, err := a.do(c, o, args)
		if err != nil {
			return nil, err
		}
		if !resp.ok() {
			return nil, resp.failure(o)
		}
		return resp.toolResult(o, structured)
	}).Title(o.title).Description(o.description).InputSchema(o.input)
	if structured {
		def.OutputSchema(o.output)
	}
	switch o.method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		def.ReadOnly()
	case http.MethodDelete:
		def.Destructive(true).Idempotent()
	case http.MethodPut:
		def.Destructive(true).Idempotent()
	}
	def.OpenWorld(true)
	if len(tags) > 0 {
		def.Tags(tags...)
	}
	return def
}

// resource makes a GET operation a resource, or a template when it has
// path parameters.
func (a *api) resource(o *operation, tags []string) *sake.ResourceDef {
	scheme := a.cfg.scheme
	if scheme == "" {
		scheme = DefaultURIScheme
	}
	uri := scheme + "://" + o.name
	var def *sake.ResourceDef
	if len(o.pathParams) == 0 {
		def = sake.NewResource(uri, func(c *sake.Context) ([]sake.ResourceContents, error) {
			return a.read(c, o, nil, uri)
		})
	} else {
		for _, p := range o.pathParams {
			uri += "/{" + p + "}"
		}
		def = sake.NewResourceTemplate(uri, func(c *sake.Context, vars map[string]string) ([]sake.ResourceContents, error) {
			args := make(map[string]any, len(vars))
			for _, arg := range o.args {
				if v, ok := vars[arg.param]; ok && arg.in == inPath {
					args[arg.name] = v
				}
			}
			return a.read(c, o, args, c.Request().Params.URI)
		})
	}
	def.Name(o.name).Title(o.title).Description(o.description)
	if o.jsonResult {
		def.MIMEType("application/json")
	}
	if len(tags) > 0 {
		def.Tags(tags...)
	}
	return def
}

// read runs a resource's operation.
func (a *api) read(c *sake.Context, o *operation, args map[string]any, uri string) ([]sake.ResourceContents, error) {
	resp, err := a.do(c, o, args)
	if err != nil {
		return nil, err
	}
	if !resp.ok() {
		return nil, resp.failure(o)
	}
	return resp.contents(uri), nil
}

// baseURL picks the URL the paths are appended to: the option, or the
// document's first server with its variables at their defaults.
func baseURL(option string, servers []*v3.Server) (string, error) {
	u := option
	if u == "" && len(servers) > 0 && servers[0] != nil {
		u = servers[0].URL
		if servers[0].Variables != nil {
			for name, v := range servers[0].Variables.FromOldest() {
				if v != nil {
					u = strings.ReplaceAll(u, "{"+name+"}", v.Default)
				}
			}
		}
	}
	if u == "" {
		return "", errors.New("openapi: the document names no server; give the API's URL with BaseURL")
	}
	parsed, err := url.Parse(u)
	if err != nil || parsed.Scheme == "" || parsed.Host == "" {
		return "", fmt.Errorf("openapi: the API's URL %q is not absolute (http://host/path); give one with BaseURL", u)
	}
	if parsed.Scheme != "http" && parsed.Scheme != "https" {
		return "", fmt.Errorf("openapi: the API's URL %q is not http or https; give one with BaseURL", u)
	}
	return strings.TrimRight(u, "/"), nil
}
