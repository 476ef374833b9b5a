package sake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/sakemcp/sake-go/sake/protocol"
)

// viewTemplate is what NewViewTemplate takes: html/template and text/template
// fit.
type viewTemplate = interface {
	Execute(w io.Writer, data any) error
}

// ViewDef describes a view: an HTML5 document served at a ui:// URI as a
// resource of type text/html;profile=mcp-app, for tools to name with
// ToolDef.View. Its document is fixed when the server is built; the data
// it shows arrives as tool results. Its setters return the ViewDef so
// calls chain.
type ViewDef struct {
	uri           string
	name          string
	title         string
	description   string
	html          string
	tmpl          viewTemplate
	data          any
	fsys          fs.FS
	path          string
	csp           CSP
	permissions   []Permission
	domain        string
	prefersBorder *bool
}

// NewView describes the view at uri (ui://...) whose document is html.
func NewView(uri, html string) *ViewDef { return &ViewDef{uri: uri, html: html} }

// NewViewTemplate describes the view at uri whose document is tmpl
// executed with data, once, when the server is built. Any
// *html/template.Template or *text/template.Template fits.
func NewViewTemplate(uri string, tmpl interface {
	Execute(w io.Writer, data any) error
}, data any) *ViewDef {
	return &ViewDef{uri: uri, tmpl: tmpl, data: data}
}

// NewViewFile describes the view at uri whose document is the file name in
// fsys (an embed.FS in the common case), read when the server is built.
func NewViewFile(uri string, fsys fs.FS, name string) *ViewDef {
	return &ViewDef{uri: uri, fsys: fsys, path: name}
}

// Name sets the resource's name (by default the URI without ui://).
func (v *ViewDef) Name(name string) *ViewDef { v.name = name; return v }

// Title sets the human-readable name.
func (v *ViewDef) Title(title string) *ViewDef { v.title = title; return v }

// Description says what the view shows.
func (v *ViewDef) Description(text string) *ViewDef { v.description = text; return v }

// CSP sets the origins the view's Content Security Policy allows: those
// it connects to, loads resources from, embeds in frames and takes as its
// base URI (see CSP's fields). It replaces what an earlier CSP set, so
// give every list in one call; the lists are copied. Each origin is
// checked when the view is compiled (Declarations.View at New,
// Server.AddView when called).
func (v *ViewDef) CSP(csp CSP) *ViewDef {
	v.csp = CSP{
		ConnectDomains:  slices.Clone(csp.ConnectDomains),
		ResourceDomains: slices.Clone(csp.ResourceDomains),
		FrameDomains:    slices.Clone(csp.FrameDomains),
		BaseURIDomains:  slices.Clone(csp.BaseURIDomains),
	}
	return v
}

// Permissions asks the host for browser capabilities.
func (v *ViewDef) Permissions(p ...Permission) *ViewDef {
	v.permissions = append(v.permissions, p...)
	return v
}

// Domain asks for a dedicated sandbox origin (its format is the host's:
// read the host's documentation).
func (v *ViewDef) Domain(domain string) *ViewDef { v.domain = domain; return v }

// PrefersBorder says whether the host should draw a border and background
// around the view; without it the host decides.
func (v *ViewDef) PrefersBorder(b bool) *ViewDef { v.prefersBorder = &b; return v }

// View declares a view (see NewView, NewViewTemplate and NewViewFile); tools
// name it with ToolDef.View.
func (d *Declarations) View(v *ViewDef) *ViewDef {
	d.views = append(d.views, v)
	return v
}

// AddView adds a view, or replaces the resource at its URI. Clients
// following list changes are told.
func (s *Server) AddView(v *ViewDef) error {
	r, err := v.compile()
	if err != nil {
		return fmt.Errorf("sake: view %s: %w", v.uri, err)
	}
	s.comps.edit(func(p *changes, _ *registry) { put(&p.resources, r.uri, r) })
	s.broadcast(Broadcast{List: ListResources})
	return nil
}

// View names the view (a ui:// URI declared with Declarations.View or
// Server.AddView) that hosts supporting MCP Apps render the tool's results
// in. The tool still returns content that reads well without it: most
// hosts show only that.
func (t *ToolDef) View(uri string) *ToolDef { t.view = uri; return t }

// Visibility says who sees the tool (default both): VisibleToModel lists
// it for the model, VisibleToApp lets the server's views call it. A tool
// visible to the app only is left out of tools/list for clients that do
// not declare MCP Apps. Visibility is not access control: any client may
// call any tool it names; gate what matters with Scopes.
func (t *ToolDef) Visibility(v ...Visibility) *ToolDef {
	t.visibility = append([]Visibility{}, v...)
	return t
}

// SupportsApps reports whether the client declared the MCP Apps extension
// with the HTML profile (or without listing media types), so that a tool
// may tailor its content to a host that renders its view.
func (c *Context) SupportsApps() bool { return supportsApps(c.req.ClientCapabilities) }

func supportsApps(caps *protocol.ClientCapabilities) bool {
	if caps == nil {
		return false
	}
	raw, ok := caps.Extensions[protocol.AppsExtension]
	if !ok {
		return false
	}
	var settings struct {
		MIMETypes []string `json:"mimeTypes"`
	}
	if json.Unmarshal(raw, &settings) != nil || settings.MIMETypes == nil {
		return true
	}
	return slices.Contains(settings.MIMETypes, protocol.AppMIMEType)
}

// applyUI validates the tool's view and visibility and puts them in its
// _meta.ui.
func (t *tool) applyUI(def *ToolDef) error {
	if def.view == "" && def.visibility == nil {
		return nil
	}
	ui := protocol.ToolUI{ResourceURI: def.view}
	if def.view != "" && !strings.HasPrefix(def.view, "ui://") {
		return fmt.Errorf("view %q is not a ui:// URI: declare the view with NewView and name its URI", def.view)
	}
	if def.visibility != nil {
		if len(def.visibility) == 0 {
			return fmt.Errorf("visibility is empty: give VisibleToModel, VisibleToApp or both")
		}
		seen := map[Visibility]bool{}
		for _, v := range def.visibility {
			if v != VisibleToModel && v != VisibleToApp {
				return fmt.Errorf("visibility %q is neither %q nor %q", v, VisibleToModel, VisibleToApp)
			}
			if seen[v] {
				return fmt.Errorf("visibility %q is given twice", v)
			}
			seen[v] = true
		}
		ui.Visibility = def.visibility
		t.appOnly = !seen[VisibleToModel]
	}
	t.view = def.view
	m := maps.Clone(def.meta)
	if m == nil {
		m = Meta{}
	}
	m["ui"] = ui
	def.meta = m
	return nil
}

// compile checks the view and makes it a resource.
func (v *ViewDef) compile() (*resource, error) {
	if err := checkViewURI(v.uri); err != nil {
		return nil, err
	}
	doc, err := v.document()
	if err != nil {
		return nil, err
	}
	if err := checkHTML5(doc); err != nil {
		return nil, err
	}
	meta, err := v.meta()
	if err != nil {
		return nil, err
	}
	def := &ResourceDef{uri: v.uri, name: v.name, title: v.title, description: v.description, mimeType: protocol.AppMIMEType}
	if def.name == "" {
		def.name = strings.TrimPrefix(v.uri, "ui://")
	}
	contents := ResourceContents{URI: v.uri, MIMEType: protocol.AppMIMEType, Text: doc}
	if meta != nil {
		def.meta = Meta{"ui": meta}
		contents.Meta = Meta{"ui": meta}
	}
	read := func(*Context) (ResourceContents, error) { return contents, nil }
	return compileResource(def, reflect.ValueOf(read), false, completionFunc)
}

func checkViewURI(uri string) error {
	if !strings.HasPrefix(uri, "ui://") || len(uri) == len("ui://") {
		return fmt.Errorf("URI %q is not a ui:// URI: MCP Apps views live under ui:// (for example ui://todo/list)", uri)
	}
	if _, err := url.Parse(uri); err != nil {
		return fmt.Errorf("URI %q: %v", uri, err)
	}
	return nil
}

// document renders the view's HTML.
func (v *ViewDef) document() (string, error) {
	switch {
	case v.tmpl != nil:
		var b bytes.Buffer
		if err := v.tmpl.Execute(&b, v.data); err != nil {
			return "", fmt.Errorf("template: %w", err)
		}
		return b.String(), nil
	case v.fsys != nil:
		b, err := fs.ReadFile(v.fsys, v.path)
		if err != nil {
			return "", fmt.Errorf("reading the document: %w", err)
		}
		return string(b), nil
	}
	return v.html, nil
}

// checkHTML5 requires a UTF-8 document that opens with <!DOCTYPE html>
// (after an optional byte order mark, blank space and comments).
func checkHTML5(doc string) error {
	if !utf8.ValidString(doc) {
		return fmt.Errorf("the document is not valid UTF-8")
	}
	rest := strings.TrimPrefix(doc, "\uFEFF")
	for {
		rest = strings.TrimLeft(rest, " \t\r\n\f")
		if !strings.HasPrefix(rest, "<!--") {
			break
		}
		end := strings.Index(rest, "-->")
		if end < 0 {
			return fmt.Errorf("the document has an unclosed comment before its doctype")
		}
		rest = rest[end+3:]
	}
	const doctype = "<!doctype html"
	if len(rest) < len(doctype) || !strings.EqualFold(rest[:len(doctype)], doctype) ||
		!strings.HasPrefix(strings.TrimLeft(rest[len(doctype):], " \t\r\n\f"), ">") {
		return fmt.Errorf("the document is not an HTML5 document: it must begin with <!DOCTYPE html>")
	}
	if !strings.Contains(strings.ToLower(rest), "<html") {
		return fmt.Errorf("the document is not an HTML5 document: it has no <html> element")
	}
	return nil
}

// meta validates the view's settings and returns its _meta.ui, or nil
// when it has none.
func (v *ViewDef) meta() (*protocol.ViewMeta, error) {
	for _, list := range []struct {
		field   string
		origins []string
	}{
		{"connectDomains", v.csp.ConnectDomains},
		{"resourceDomains", v.csp.ResourceDomains},
		{"frameDomains", v.csp.FrameDomains},
		{"baseUriDomains", v.csp.BaseURIDomains},
	} {
		for _, o := range list.origins {
			if err := checkOrigin(o); err != nil {
				return nil, fmt.Errorf("csp %s: %w", list.field, err)
			}
		}
	}
	m := &protocol.ViewMeta{Domain: v.domain, PrefersBorder: v.prefersBorder}
	if !cspEmpty(&v.csp) {
		csp := v.csp
		m.CSP = &csp
	}
	for _, p := range v.permissions {
		switch p {
		case PermissionCamera, PermissionMicrophone, PermissionGeolocation, PermissionClipboardWrite:
		default:
			return nil, fmt.Errorf("permission %q is not one of camera, microphone, geolocation, clipboardWrite", p)
		}
		if m.Permissions == nil {
			m.Permissions = map[Permission]struct{}{}
		}
		m.Permissions[p] = struct{}{}
	}
	if v.domain != "" {
		if err := checkDomain(v.domain); err != nil {
			return nil, err
		}
	}
	if m.CSP == nil && m.Permissions == nil && m.Domain == "" && m.PrefersBorder == nil {
		return nil, nil
	}
	return m, nil
}

// checkOrigin accepts scheme://host[:port], where the host's first label
// may be *.
func checkOrigin(o string) error {
	u, err := url.Parse(o)
	if err != nil || u.Opaque != "" {
		return fmt.Errorf("%q is not an origin (scheme://host[:port])", o)
	}
	switch u.Scheme {
	case "https", "http", "wss", "ws":
	default:
		return fmt.Errorf("%q: the scheme must be https, http, wss or ws", o)
	}
	if u.User != nil {
		return fmt.Errorf("%q carries credentials: give the origin alone", o)
	}
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.HasSuffix(o, "/") {
		return fmt.Errorf("%q has a path, query or fragment: give the origin alone (scheme://host[:port])", o)
	}
	host := u.Hostname()
	if host == "" {
		return fmt.Errorf("%q has no host", o)
	}
	host = strings.TrimPrefix(host, "*.")
	if !validHostname(host) {
		return fmt.Errorf("%q: the host %q is not a hostname (letters, digits, hyphens and dots; * only as the first label)", o, u.Hostname())
	}
	if p := u.Port(); p != "" {
		for _, c := range p {
			if c < '0' || c > '9' {
				return fmt.Errorf("%q: the port must be a number", o)
			}
		}
	}
	return nil
}

// checkDomain accepts a hostname or an origin.
func checkDomain(d string) error {
	if strings.Contains(d, "://") {
		if err := checkOrigin(d); err != nil {
			return fmt.Errorf("domain: %w", err)
		}
		return nil
	}
	if !validHostname(d) {
		return fmt.Errorf("domain %q is not a hostname", d)
	}
	return nil
}

func validHostname(h string) bool {
	if h == "" || len(h) > 253 {
		return false
	}
	if h[0] == '[' && h[len(h)-1] == ']' {
		return true // an IPv6 literal, already parsed by net/url
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}

// appsIndex is what the registry knows about views and app-only tools.
type appsIndex struct {
	views      int
	hasAppOnly bool
	modelTools []*tool // the tools without the app-only ones
}

func isView(r *resource) bool {
	return r.tmpl == nil && r.mimeType == protocol.AppMIMEType && strings.HasPrefix(r.uri, "ui://")
}

// indexApps counts the views, checks that every tool's view exists, and
// lists the tools a client without MCP Apps sees.
func (r *registry) indexApps() error {
	r.apps = appsIndex{}
	for _, res := range r.resources {
		if isView(res) {
			r.apps.views++
		}
	}
	var problems []string
	for _, t := range r.tools {
		if t.view != "" {
			if res := r.resourcesByURI[t.view]; res == nil || !isView(res) {
				problems = append(problems, fmt.Sprintf("tool %s names view %s, which is not declared: declare it with Declarations.View or Server.AddView", t.name, t.view))
			}
		}
		r.apps.hasAppOnly = r.apps.hasAppOnly || t.appOnly
	}
	if r.apps.hasAppOnly {
		r.apps.modelTools = make([]*tool, 0, len(r.tools))
		for _, t := range r.tools {
			if !t.appOnly {
				r.apps.modelTools = append(r.apps.modelTools, t)
			}
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	return nil
}

// viewsDeclared checks that the view each tool names is declared, among
// the pending changes or in base.
func viewsDeclared(tools []*tool, p *changes, base *registry) error {
	var problems []string
	for _, t := range tools {
		if t.view == "" {
			continue
		}
		if res := lookup(p.resources, base.resourcesByURI, t.view); res == nil || !isView(res) {
			problems = append(problems, fmt.Sprintf("sake: tool %s names view %s, which is not declared: add it with Server.AddView first", t.name, t.view))
		}
	}
	return joinProblems(problems)
}

// toolsFor returns the tools a client lists: without the app-only ones
// when it does not declare MCP Apps.
func (r *registry) toolsFor(caps *protocol.ClientCapabilities) []*tool {
	if !r.apps.hasAppOnly || caps.HasExtension(protocol.AppsExtension) {
		return r.tools
	}
	return r.apps.modelTools
}

// cspEmpty reports whether c names no origin.
func cspEmpty(c *CSP) bool {
	return c == nil || len(c.ConnectDomains)+len(c.ResourceDomains)+len(c.FrameDomains)+len(c.BaseURIDomains) == 0
}
