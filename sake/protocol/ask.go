package protocol

import (
	"encoding/json"
	"errors"
)

// ElicitAction is the user's answer to an elicitation.
type ElicitAction string

// The three outcomes of an elicitation. Accept with a form whose fields
// say "no" is still an accept.
const (
	Accept  ElicitAction = "accept"
	Decline ElicitAction = "decline"
	Cancel  ElicitAction = "cancel"
)

// SamplingMessage is one message of a sampling conversation.
type SamplingMessage struct {
	Role    Role    `json:"role"`
	Content Content `json:"content"`
}

// MarshalJSON implements json.Marshaler.
func (m SamplingMessage) MarshalJSON() ([]byte, error) {
	return PromptMessage(m).appendJSON(nil)
}

// SamplingRequest asks the client's model for a completion
// (sampling/createMessage).
type SamplingRequest struct {
	Messages         []SamplingMessage `json:"messages"`
	SystemPrompt     string            `json:"systemPrompt,omitempty"`
	MaxTokens        int               `json:"maxTokens"`
	Temperature      *float64          `json:"temperature,omitempty"`
	StopSequences    []string          `json:"stopSequences,omitempty"`
	ModelPreferences json.RawMessage   `json:"modelPreferences,omitempty"`
	IncludeContext   string            `json:"includeContext,omitempty"`
	Metadata         json.RawMessage   `json:"metadata,omitempty"`
}

// SamplingResult is the model's answer.
type SamplingResult struct {
	Role       Role    `json:"role"`
	Content    Content `json:"-"`
	Model      string  `json:"model"`
	StopReason string  `json:"stopReason,omitempty"`
}

// Text returns the answer's text, if it is text.
func (r *SamplingResult) Text() string {
	if t, ok := r.Content.(*TextContent); ok {
		return t.Text
	}
	return ""
}

// MarshalJSON implements json.Marshaler: the result as a client answers
// sampling/createMessage, its Content as a content block (a client's
// answer in tasks/update or inputResponses). A result without Content is
// an error: the server would ask again. An empty Role is "assistant".
func (r SamplingResult) MarshalJSON() ([]byte, error) {
	if r.Content == nil {
		return nil, errors.New("sake: a SamplingResult needs Content (sake.Text, for one)")
	}
	role := r.Role
	if role == "" {
		role = RoleAssistant
	}
	b := []byte(`{"role":`)
	b = AppendString(b, string(role))
	b = append(b, `,"content":`...)
	b, err := r.Content.appendJSON(b)
	if err != nil {
		return nil, err
	}
	b = append(b, `,"model":`...)
	b = AppendString(b, r.Model)
	b = AppendOptString(b, "stopReason", r.StopReason)
	return append(b, '}'), nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (r *SamplingResult) UnmarshalJSON(b []byte) error {
	var w struct {
		Role       Role            `json:"role"`
		Content    json.RawMessage `json:"content"`
		Model      string          `json:"model"`
		StopReason string          `json:"stopReason"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	if len(w.Content) == 0 {
		return errors.New("a sampling result needs content")
	}
	raw := w.Content
	if raw[0] == '[' { // a list of blocks: keep the first
		var list []json.RawMessage
		if err := json.Unmarshal(raw, &list); err != nil || len(list) == 0 {
			return errors.New("a sampling result needs content")
		}
		raw = list[0]
	}
	c, err := DecodeContent(raw)
	if err != nil {
		return err
	}
	*r = SamplingResult{Role: w.Role, Content: c, Model: w.Model, StopReason: w.StopReason}
	return nil
}

// Root is a directory or file the client lets the server work with.
type Root struct {
	URI  string `json:"uri"`
	Name string `json:"name,omitempty"`
}
