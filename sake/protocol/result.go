package protocol

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sakemcp/sake-go/sake/internal/jsonscan"
)

// ToolResult is the full result of a tool call. A tool may return one to
// control every field; simpler return types are turned into one.
type ToolResult struct {
	// Content is what the model reads.
	Content []Content
	// StructuredContent is a JSON value matching the tool's outputSchema.
	// On the client side it holds the raw JSON (a json.RawMessage).
	StructuredContent any
	// IsError marks a tool execution error: the model sees the content and
	// may correct itself.
	IsError bool
	// Meta is the result's _meta.
	Meta Meta

	cause error // the error the tool returned, when it became this result

	// wire is the result as a server encoded it, left encoded
	// (ToolResultFromWire); wireIsError is the isError it holds.
	wire        []byte
	wireIsError bool
}

// ToolResultFromWire returns the tools/call result raw (a JSON object, as
// a server sent it) left encoded: only its isError is read into IsError.
// A proxy returns one to pass a remote server's result on as it came: the
// dispatcher copies its members into the reply where nothing else may
// look at the result, and decodes it first (Decode) where something may
// (middleware, a Request hook, a transform's Wrap, a task, a client of an
// older revision). Until then Content, StructuredContent and Meta are
// empty; Text, String, DecodeStructured and MarshalJSON see the encoded
// result. A field set meanwhile wins: the result is then encoded from its
// fields. raw must not change while the result is used. It fails on raw
// that is not a valid JSON object.
func ToolResultFromWire(raw []byte) (*ToolResult, error) {
	r := &ToolResult{wire: raw}
	err := jsonscan.Members(raw, func(key, v []byte) error {
		switch string(key) {
		case "isError":
			r.wireIsError = jsonscan.Kind(v) == jsonscan.True
		case "content":
			if jsonscan.Kind(v) != jsonscan.Array {
				return fmt.Errorf("content must be an array")
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("tools/call result: %w", err)
	}
	r.IsError = r.wireIsError
	return r, nil
}

// Encoded returns the JSON of a result left encoded (ToolResultFromWire)
// that is still the whole of it, or nil: for any other result, once
// decoded, or once one of its fields was set.
func (r *ToolResult) Encoded() []byte {
	if r.wire == nil || r.Content != nil || r.StructuredContent != nil || r.Meta != nil || r.IsError != r.wireIsError {
		return nil
	}
	return r.wire
}

// Decode decodes a result left encoded (ToolResultFromWire) into its
// fields, so that code reading them sees the result. It does nothing for
// any other result, or once a field was set.
func (r *ToolResult) Decode() error {
	raw := r.Encoded()
	if raw == nil {
		return nil
	}
	var d ToolResult
	if err := d.UnmarshalJSON(raw); err != nil {
		return err
	}
	d.cause = r.cause
	*r = d
	return nil
}

// decoded returns r, or a decoded copy of it when it is left encoded.
func (r *ToolResult) decoded() *ToolResult {
	if r.Encoded() == nil {
		return r
	}
	d := *r
	if d.Decode() != nil {
		return &ToolResult{Content: []Content{}, IsError: r.IsError}
	}
	return &d
}

// ErrorResult returns a tool result with isError set and one text block.
func ErrorResult(format string, args ...any) *ToolResult {
	return &ToolResult{Content: []Content{Textf(format, args...)}, IsError: true}
}

// ErrorResultFrom returns a tool result with isError set whose one text
// block is err's text; its Cause is err.
func ErrorResultFrom(err error) *ToolResult {
	r := ErrorResult("%s", err.Error())
	r.cause = err
	return r
}

// TextResult returns a tool result of one text block.
func TextResult(s string) *ToolResult { return &ToolResult{Content: []Content{Text(s)}} }

// Text returns the text blocks of the result joined by newlines.
func (r *ToolResult) Text() string {
	r = r.decoded()
	var parts []string
	for _, c := range r.Content {
		if t, ok := c.(*TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// String describes the result for people (test failures, logs): its text
// blocks, other blocks in brackets ("[image image/png, 120 bytes]"), or
// the structured content as JSON when there is no content; an error
// result starts with "isError: ".
func (r *ToolResult) String() string {
	if r == nil {
		return "<nil>"
	}
	r = r.decoded()
	var b strings.Builder
	if r.IsError {
		b.WriteString("isError: ")
	}
	for i, c := range r.Content {
		if i > 0 {
			b.WriteByte('\n')
		}
		switch c := c.(type) {
		case *TextContent:
			b.WriteString(c.Text)
		case *ImageContent:
			fmt.Fprintf(&b, "[image %s, %d bytes]", c.MIMEType, len(c.Data))
		case *AudioContent:
			fmt.Fprintf(&b, "[audio %s, %d bytes]", c.MIMEType, len(c.Data))
		case *ResourceLink:
			fmt.Fprintf(&b, "[resource_link %s]", c.URI)
		case *EmbeddedResource:
			fmt.Fprintf(&b, "[resource %s]", c.Resource.URI)
		case nil:
			b.WriteString("[nil]")
		default:
			fmt.Fprintf(&b, "[%s]", c.ContentType())
		}
	}
	if len(r.Content) == 0 && r.StructuredContent != nil {
		if raw, ok := r.StructuredContent.(json.RawMessage); ok {
			b.Write(raw)
		} else if j, err := json.Marshal(r.StructuredContent); err == nil {
			b.Write(j)
		} else {
			fmt.Fprint(&b, r.StructuredContent)
		}
	}
	return b.String()
}

// DecodeStructured decodes StructuredContent into v.
func (r *ToolResult) DecodeStructured(v any) error {
	r = r.decoded()
	if r.StructuredContent == nil {
		return fmt.Errorf("the result has no structuredContent")
	}
	raw, ok := r.StructuredContent.(json.RawMessage)
	if !ok {
		b, err := json.Marshal(r.StructuredContent)
		if err != nil {
			return err
		}
		raw = b
	}
	if len(raw) == 0 {
		return fmt.Errorf("the result has no structuredContent")
	}
	return json.Unmarshal(raw, v)
}

// UnmarshalJSON decodes a tools/call result.
func (r *ToolResult) UnmarshalJSON(b []byte) error {
	*r = ToolResult{}
	var inner error
	err := jsonscan.Members(b, func(key, v []byte) error {
		switch string(key) {
		case "content":
			r.Content, inner = decodeContents(v)
		case "structuredContent":
			if jsonscan.Kind(v) != jsonscan.Null {
				r.StructuredContent = json.RawMessage(append([]byte(nil), v...))
			}
		case "isError":
			r.IsError = jsonscan.Kind(v) == jsonscan.True
		case "_meta":
			r.Meta, inner = decodeResultMeta(v)
		}
		return inner
	})
	if err != nil {
		return err
	}
	if r.Content == nil {
		r.Content = []Content{}
	}
	return nil
}

// decodeResultMeta decodes a result's _meta without the server's own
// serverInfo, which describes the server, not the result.
func decodeResultMeta(v []byte) (Meta, error) {
	var m Meta
	err := jsonscan.Members(v, func(key, raw []byte) error {
		if string(key) == MetaServerInfo {
			return nil
		}
		x, err := DecodeAny(raw)
		if err != nil {
			return err
		}
		if m == nil {
			m = Meta{}
		}
		m[string(key)] = x
		return nil
	})
	return m, err
}

// decodeContents decodes an array of content blocks; text blocks without
// extras take a fast path.
func decodeContents(v []byte) ([]Content, error) {
	if jsonscan.Kind(v) != jsonscan.Array {
		return nil, fmt.Errorf("content must be an array")
	}
	var out []Content
	err := jsonscan.Elements(v, func(raw []byte) error {
		c, err := decodeBlock(raw)
		if err != nil {
			return fmt.Errorf("content[%d]: %w", len(out), err)
		}
		out = append(out, c)
		return nil
	})
	return out, err
}

func decodeBlock(raw []byte) (Content, error) {
	var typ, text []byte
	simple := true
	_ = jsonscan.Members(raw, func(key, v []byte) error {
		switch string(key) {
		case "type":
			typ = v
		case "text":
			text = v
		default:
			simple = false
		}
		return nil
	})
	if simple && string(typ) == `"text"` && text != nil {
		s, err := jsonscan.Unquote(text)
		if err != nil {
			return nil, err
		}
		return &TextContent{Text: s}, nil
	}
	var w wireContent
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, err
	}
	return w.content()
}

// MarshalJSON encodes the result as it goes on the wire (without
// resultType, which the dispatcher adds in the modern era).
func (r *ToolResult) MarshalJSON() ([]byte, error) {
	r = r.decoded()
	b, err := AppendToolResultMembers(nil, r)
	if err != nil {
		return nil, err
	}
	if b, err = AppendMeta(b, r.Meta, nil); err != nil {
		return nil, err
	}
	return append(b, '}'), nil
}

// AppendToolResultMembers appends the opening brace of r's JSON and every
// member but _meta, which the caller writes before closing the object. A
// result left encoded (ToolResultFromWire) is decoded first (Decode).
func AppendToolResultMembers(dst []byte, r *ToolResult) ([]byte, error) {
	if err := r.Decode(); err != nil {
		return dst, err
	}
	dst = append(dst, `{"content":`...)
	content := r.Content
	if content == nil {
		content = []Content{}
	}
	var err error
	if dst, err = AppendContents(dst, content); err != nil {
		return dst, err
	}
	if r.StructuredContent != nil {
		dst = append(dst, `,"structuredContent":`...)
		if dst, err = AppendAny(dst, r.StructuredContent); err != nil {
			return dst, err
		}
	}
	if r.IsError {
		dst = append(dst, `,"isError":true`...)
	}
	return dst, nil
}

// PromptMessage is one message of a prompt.
type PromptMessage struct {
	Role    Role
	Content Content
}

// UserMessage returns a prompt message from the user.
func UserMessage(c Content) PromptMessage { return PromptMessage{Role: RoleUser, Content: c} }

// AssistantMessage returns a prompt message from the assistant.
func AssistantMessage(c Content) PromptMessage {
	return PromptMessage{Role: RoleAssistant, Content: c}
}

// MarshalJSON implements json.Marshaler.
func (m PromptMessage) MarshalJSON() ([]byte, error) { return AppendPromptMessage(nil, m) }

// AppendPromptMessage appends the JSON of m.
func AppendPromptMessage(dst []byte, m PromptMessage) ([]byte, error) { return m.appendJSON(dst) }

func (m PromptMessage) appendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, `{"role":`...)
	dst = AppendString(dst, string(m.Role))
	dst = append(dst, `,"content":`...)
	if m.Content == nil {
		return dst, fmt.Errorf("prompt message without content")
	}
	dst, err := m.Content.appendJSON(dst)
	if err != nil {
		return dst, err
	}
	return append(dst, '}'), nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (m *PromptMessage) UnmarshalJSON(b []byte) error {
	var w struct {
		Role    Role        `json:"role"`
		Content wireContent `json:"content"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	c, err := w.Content.content()
	if err != nil {
		return err
	}
	*m = PromptMessage{Role: w.Role, Content: c}
	return nil
}

// PromptResult is the result of prompts/get.
type PromptResult struct {
	Description string          `json:"description,omitempty"`
	Messages    []PromptMessage `json:"messages"`
	Meta        Meta            `json:"_meta,omitempty"`
}

// Text returns the text blocks of every message joined by newlines.
func (r *PromptResult) Text() string {
	var parts []string
	for _, m := range r.Messages {
		if t, ok := m.Content.(*TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// Completion is the answer to completion/complete.
type Completion struct {
	Values  []string `json:"values"`
	Total   *int     `json:"total,omitempty"`
	HasMore bool     `json:"hasMore,omitempty"`
}

// MaxCompletionValues is the protocol's limit on one completion answer.
const MaxCompletionValues = 100
