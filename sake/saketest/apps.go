package saketest

import (
	"encoding/json"
	"fmt"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// UI makes the client declare the MCP Apps extension (a host that renders
// views), in both eras: app-only tools then appear in tools/list, and
// tools see Context.SupportsApps as true.
func UI() Option {
	return func(o *options) {
		ext := map[string]json.RawMessage{protocol.AppsExtension: json.RawMessage(`{"mimeTypes":["` + protocol.AppMIMEType + `"]}`)}
		for k, v := range o.capabilities.Extensions {
			ext[k] = v
		}
		o.capabilities.Extensions = ext
	}
}

// View is a tool's view as a host loads it: the tool as listed and the
// ui:// resource it names.
type View struct {
	// Tool is the tool as tools/list describes it.
	Tool protocol.ToolInfo
	// URI is the view's ui:// URI.
	URI string
	// MIMEType is the type the server read it with (text/html;profile=mcp-app).
	MIMEType string
	// HTML is the document.
	HTML string
	// Meta is the view's _meta.ui from resources/read: CSP, permissions,
	// domain, border.
	Meta protocol.ViewMeta
	// Listed is the view's entry in resources/list, nil when it is not
	// listed.
	Listed *protocol.ResourceInfo
}

// View finds the tool in tools/list, reads the view its _meta.ui names
// with resources/read, and returns both, as a host does before it renders
// the tool's results. It fails when the tool is not listed (an app-only
// tool is listed only for a client with UI) or names no view.
func (c *Client) View(tool string) (*View, error) {
	info, err := c.findTool(tool)
	if err != nil {
		return nil, err
	}
	ui := info.UI()
	if ui == nil || ui.ResourceURI == "" {
		return nil, fmt.Errorf("saketest: tool %s names no view (_meta.ui.resourceUri)", tool)
	}
	contents, err := c.ReadResource(ui.ResourceURI)
	if err != nil {
		return nil, err
	}
	if len(contents) != 1 {
		return nil, fmt.Errorf("saketest: view %s: resources/read returned %d contents, want 1", ui.ResourceURI, len(contents))
	}
	v := &View{Tool: *info, URI: contents[0].URI, MIMEType: contents[0].MIMEType, HTML: contents[0].Text}
	if m, ok := contents[0].Meta["ui"]; ok {
		b, _ := json.Marshal(m)
		if err := json.Unmarshal(b, &v.Meta); err != nil {
			return nil, fmt.Errorf("saketest: view %s: _meta.ui: %w", ui.ResourceURI, err)
		}
	}
	resources, err := c.ListResources()
	if err != nil {
		return nil, err
	}
	for i := range resources {
		if resources[i].URI == ui.ResourceURI {
			v.Listed = &resources[i]
		}
	}
	return v, nil
}

// CallAppTool calls a tool as a view does through its host: the tool must
// be listed and its visibility must include the app (hosts refuse the
// rest). A client without UI does not see app-only tools, so connect with
// UI to call them this way.
func (c *Client) CallAppTool(name string, args any) (*sake.ToolResult, error) {
	info, err := c.findTool(name)
	if err != nil {
		return nil, err
	}
	if !info.UI().AppCallable() {
		return nil, fmt.Errorf("saketest: tool %s is not visible to apps (its _meta.ui.visibility is %v): a host refuses a view's call to it", name, info.UI().Visibility)
	}
	return c.CallTool(name, args)
}

func (c *Client) findTool(name string) (*protocol.ToolInfo, error) {
	tools, err := c.ListTools()
	if err != nil {
		return nil, err
	}
	for i := range tools {
		if tools[i].Name == name {
			return &tools[i], nil
		}
	}
	hint := ""
	if !c.opts.capabilities.HasExtension(protocol.AppsExtension) {
		hint = " (an app-only tool is listed only for a client that declares MCP Apps: connect with saketest.UI())"
	}
	return nil, fmt.Errorf("saketest: tool %s is not in tools/list%s", name, hint)
}
