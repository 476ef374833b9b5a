package protocol

import "encoding/json"

// Implementation names a client or server program.
type Implementation struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Version     string `json:"version"`
	Description string `json:"description,omitempty"`
	Icons       []Icon `json:"icons,omitempty"`
	WebsiteURL  string `json:"websiteUrl,omitempty"`
}

// ClientCapabilities is what a client declared it can do: per request in
// the modern era, once at initialize in the legacy one.
type ClientCapabilities struct {
	Roots        *RootsCapability           `json:"roots,omitempty"`
	Sampling     *SamplingCapability        `json:"sampling,omitempty"`
	Elicitation  *ElicitationCapability     `json:"elicitation,omitempty"`
	Extensions   map[string]json.RawMessage `json:"extensions,omitempty"`
	Experimental map[string]json.RawMessage `json:"experimental,omitempty"`
	// Tasks is the 2025-11-25 tasks capability, kept raw.
	Tasks json.RawMessage `json:"tasks,omitempty"`
}

// RootsCapability says the client answers roots/list.
type RootsCapability struct {
	ListChanged bool `json:"listChanged,omitempty"`
}

// SamplingCapability says the client answers sampling/createMessage.
type SamplingCapability struct {
	Context json.RawMessage `json:"context,omitempty"`
	Tools   json.RawMessage `json:"tools,omitempty"`
}

// ElicitationCapability says the client answers elicitation/create. An
// empty value means form mode only.
type ElicitationCapability struct {
	Form json.RawMessage `json:"form,omitempty"`
	URL  json.RawMessage `json:"url,omitempty"`
}

// SupportsForm reports whether form-mode elicitation was declared.
func (e *ElicitationCapability) SupportsForm() bool {
	return e != nil && (e.Form != nil || e.URL == nil)
}

// SupportsURL reports whether URL-mode elicitation was declared.
func (e *ElicitationCapability) SupportsURL() bool { return e != nil && e.URL != nil }

// HasExtension reports whether the client declared the extension id.
func (c *ClientCapabilities) HasExtension(id string) bool {
	if c == nil {
		return false
	}
	_, ok := c.Extensions[id]
	return ok
}
