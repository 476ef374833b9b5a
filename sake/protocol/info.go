package protocol

import "encoding/json"

// The types below are the list entries as a client reads them (what
// tools/list, resources/list, resources/templates/list and prompts/list
// return), for the test client and other clients.

// ToolInfo is a tool as tools/list describes it.
type ToolInfo struct {
	Name         string           `json:"name"`
	Title        string           `json:"title,omitempty"`
	Description  string           `json:"description,omitempty"`
	InputSchema  json.RawMessage  `json:"inputSchema"`
	OutputSchema json.RawMessage  `json:"outputSchema,omitempty"`
	Annotations  *ToolAnnotations `json:"annotations,omitempty"`
	Icons        []Icon           `json:"icons,omitempty"`
	Meta         Meta             `json:"_meta,omitempty"`
}

// ResourceInfo is a resource as resources/list describes it.
type ResourceInfo struct {
	URI         string       `json:"uri"`
	Name        string       `json:"name"`
	Title       string       `json:"title,omitempty"`
	Description string       `json:"description,omitempty"`
	MIMEType    string       `json:"mimeType,omitempty"`
	Size        *int64       `json:"size,omitempty"`
	Icons       []Icon       `json:"icons,omitempty"`
	Annotations *Annotations `json:"annotations,omitempty"`
	Meta        Meta         `json:"_meta,omitempty"`
}

// ResourceTemplateInfo is a template as resources/templates/list
// describes it.
type ResourceTemplateInfo struct {
	URITemplate string       `json:"uriTemplate"`
	Name        string       `json:"name"`
	Title       string       `json:"title,omitempty"`
	Description string       `json:"description,omitempty"`
	MIMEType    string       `json:"mimeType,omitempty"`
	Icons       []Icon       `json:"icons,omitempty"`
	Annotations *Annotations `json:"annotations,omitempty"`
	Meta        Meta         `json:"_meta,omitempty"`
}

// PromptInfo is a prompt as prompts/list describes it.
type PromptInfo struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
	Icons       []Icon           `json:"icons,omitempty"`
	Meta        Meta             `json:"_meta,omitempty"`
}

// PromptArgument is one argument of a prompt.
type PromptArgument struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// ToolAnnotations are hints about a tool's behaviour. Clients must not
// rely on them for security. Nil means the protocol's default.
type ToolAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`    // default false
	DestructiveHint *bool  `json:"destructiveHint,omitempty"` // default true
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`  // default false
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`   // default true
}
