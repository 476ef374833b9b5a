package protocol

import (
	"encoding/json"
	"slices"
)

// The MCP Apps extension (SEP-1865): tools with an interactive HTML view
// that the host renders in a sandboxed iframe.
const (
	// AppsExtension is the extension's identifier, under
	// capabilities.extensions on both sides.
	AppsExtension = "io.modelcontextprotocol/ui"
	// AppMIMEType is the media type of a view's document.
	AppMIMEType = "text/html;profile=mcp-app"
)

// Visibility says who may see and call a tool that has a view.
type Visibility string

// The visibilities of MCP Apps.
const (
	// VisibleToModel lists the tool for the agent's model.
	VisibleToModel Visibility = "model"
	// VisibleToApp lets the views of this server call the tool.
	VisibleToApp Visibility = "app"
)

// Permission is a browser capability a view asks its host for; hosts may
// grant it through the iframe's allow attribute, and views must not rely
// on it.
type Permission string

// The permissions a view may ask for.
const (
	PermissionCamera         Permission = "camera"
	PermissionMicrophone     Permission = "microphone"
	PermissionGeolocation    Permission = "geolocation"
	PermissionClipboardWrite Permission = "clipboardWrite"
)

// CSP lists the origins a view may reach beyond its own document; the host
// builds the iframe's Content Security Policy from it and blocks the rest.
// Each entry is an origin: a scheme (https, http, wss or ws), a host
// (whose first label may be * for any subdomain) and an optional port;
// no path, query, credentials or CSP keywords.
type CSP struct {
	// ConnectDomains may be reached by fetch, XHR and WebSocket (connect-src).
	ConnectDomains []string `json:"connectDomains,omitempty"`
	// ResourceDomains serve scripts, styles, images, fonts and media.
	ResourceDomains []string `json:"resourceDomains,omitempty"`
	// FrameDomains may be embedded in nested iframes (frame-src).
	FrameDomains []string `json:"frameDomains,omitempty"`
	// BaseURIDomains may be the document's base URI (base-uri).
	BaseURIDomains []string `json:"baseUriDomains,omitempty"`
}

// ViewMeta is a view's _meta.ui: what the host needs to render it safely.
type ViewMeta struct {
	CSP           *CSP                    `json:"csp,omitempty"`
	Permissions   map[Permission]struct{} `json:"permissions,omitempty"`
	Domain        string                  `json:"domain,omitempty"`
	PrefersBorder *bool                   `json:"prefersBorder,omitempty"`
}

// ToolUI is a tool's _meta.ui: the view that renders its results and who
// may see it.
type ToolUI struct {
	ResourceURI string       `json:"resourceUri,omitempty"`
	Visibility  []Visibility `json:"visibility,omitempty"`
}

// UI returns the tool's _meta.ui (its view and visibility), or nil when
// it has none.
func (t ToolInfo) UI() *ToolUI {
	raw, ok := t.Meta["ui"]
	if !ok {
		return nil
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return nil
	}
	var ui ToolUI
	if json.Unmarshal(b, &ui) != nil {
		return nil
	}
	return &ui
}

// AppCallable reports whether a view may call the tool: its visibility
// includes the app, or is not given.
func (u *ToolUI) AppCallable() bool {
	return u == nil || len(u.Visibility) == 0 || slices.Contains(u.Visibility, VisibleToApp)
}
