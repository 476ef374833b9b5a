package protocol

import "encoding/json"

// ElicitRequest is the params of elicitation/create: a question the
// server asks the user, a form to fill in or a page to open.
type ElicitRequest struct {
	// Mode is "form" or "url".
	Mode    string `json:"mode,omitempty"`
	Message string `json:"message"`
	// RequestedSchema is the form's JSON Schema (form mode).
	RequestedSchema json.RawMessage `json:"requestedSchema,omitempty"`
	// URL is the page to open (URL mode).
	URL string `json:"url,omitempty"`
	// ElicitationID names a URL-mode question.
	ElicitationID string `json:"elicitationId,omitempty"`
}

// ElicitResult is the user's answer to an elicitation.
type ElicitResult struct {
	Action ElicitAction `json:"action"`
	// Content is the filled-in form (a map or a struct) on accept.
	Content any `json:"content,omitempty"`
}

// PromptRef refers to a prompt's argument in completion/complete.
func PromptRef(name string) CompleteRef { return CompleteRef{Type: "ref/prompt", Name: name} }

// ResourceRef refers to a resource template's variable in
// completion/complete.
func ResourceRef(uriTemplate string) CompleteRef {
	return CompleteRef{Type: "ref/resource", URI: uriTemplate}
}

// Page is one page of a list method's result: its entries and the cursor
// of the next page ("" after the last).
type Page[T any] struct {
	Items      []T
	NextCursor string
}

// Notification is a notification a server sent: its method and raw
// params.
type Notification struct {
	Method string
	Params json.RawMessage
}

// Defaults returns the default value of every field of the form that
// declares one (requestedSchema.properties.*.default): a client fills the
// form with them before the user edits it.
func (r *ElicitRequest) Defaults() map[string]any {
	var s struct {
		Properties map[string]struct {
			Default json.RawMessage `json:"default"`
		} `json:"properties"`
	}
	out := map[string]any{}
	if json.Unmarshal(r.RequestedSchema, &s) != nil {
		return out
	}
	for name, p := range s.Properties {
		if len(p.Default) == 0 {
			continue
		}
		var v any
		if json.Unmarshal(p.Default, &v) == nil {
			out[name] = v
		}
	}
	return out
}
