package protocol

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
)

// Meta is the _meta object of a component, content block or result.
// Keys follow MCP's rules ([prefix/]name); the io.modelcontextprotocol/
// prefix is reserved for the protocol.
type Meta map[string]any

func (m Meta) sortedKeys() []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		if k == MetaServerInfo {
			continue // the server writes its own
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Role is the speaker of a prompt message or the audience of content.
type Role string

// The two roles.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// Annotations tell a client how to use a content block or resource.
type Annotations struct {
	Audience     []Role   `json:"audience,omitempty"`
	Priority     *float64 `json:"priority,omitempty"`     // 0 (least) to 1 (most important)
	LastModified string   `json:"lastModified,omitempty"` // ISO 8601
}

// Icon is an image a client may show beside a component.
type Icon struct {
	Src      string   `json:"src"`
	MIMEType string   `json:"mimeType,omitempty"`
	Sizes    []string `json:"sizes,omitempty"` // "48x48", "any"
	Theme    string   `json:"theme,omitempty"` // "light" or "dark"
}

// Content is one block of a tool result or prompt message: TextContent,
// ImageContent, AudioContent, ResourceLink or EmbeddedResource.
type Content interface {
	// ContentType returns the block's "type": text, image, audio,
	// resource_link or resource.
	ContentType() string
	appendJSON(dst []byte) ([]byte, error)
}

// Text returns a text content block.
func Text(s string) *TextContent { return &TextContent{Text: s} }

// Textf returns a text content block formatted as fmt.Sprintf does.
func Textf(format string, args ...any) *TextContent {
	return &TextContent{Text: fmt.Sprintf(format, args...)}
}

// Image returns an image content block; data is the raw image, sent base64.
func Image(data []byte, mimeType string) *ImageContent {
	return &ImageContent{Data: data, MIMEType: mimeType}
}

// Audio returns an audio content block; data is the raw audio, sent base64.
func Audio(data []byte, mimeType string) *AudioContent {
	return &AudioContent{Data: data, MIMEType: mimeType}
}

// TextContent is a block of text.
type TextContent struct {
	Text        string
	Annotations *Annotations
	Meta        Meta
}

// ImageContent is an image, carried base64-encoded.
type ImageContent struct {
	Data        []byte
	MIMEType    string
	Annotations *Annotations
	Meta        Meta
}

// AudioContent is a sound, carried base64-encoded.
type AudioContent struct {
	Data        []byte
	MIMEType    string
	Annotations *Annotations
	Meta        Meta
}

// ResourceLink points at a resource the client may read.
type ResourceLink struct {
	URI         string
	Name        string
	Title       string
	Description string
	MIMEType    string
	Size        *int64
	Icons       []Icon
	Annotations *Annotations
	Meta        Meta
}

// EmbeddedResource carries a resource's contents inline.
type EmbeddedResource struct {
	Resource    ResourceContents
	Annotations *Annotations
	Meta        Meta
}

// ResourceContents is what resources/read returns for one URI: text, or a
// binary blob when Blob is not nil.
type ResourceContents struct {
	URI      string `json:"uri"`
	MIMEType string `json:"mimeType,omitempty"`
	Text     string `json:"text,omitempty"`
	Blob     []byte `json:"blob,omitempty"`
	Meta     Meta   `json:"_meta,omitempty"`
}

// ContentType implements Content.
func (*TextContent) ContentType() string { return "text" }

// ContentType implements Content.
func (*ImageContent) ContentType() string { return "image" }

// ContentType implements Content.
func (*AudioContent) ContentType() string { return "audio" }

// ContentType implements Content.
func (*ResourceLink) ContentType() string { return "resource_link" }

// ContentType implements Content.
func (*EmbeddedResource) ContentType() string { return "resource" }

func appendTail(dst []byte, a *Annotations, meta Meta) ([]byte, error) {
	if a != nil {
		b, err := json.Marshal(a)
		if err != nil {
			return dst, err
		}
		dst = append(dst, `,"annotations":`...)
		dst = append(dst, b...)
	}
	dst, err := AppendMeta(dst, meta, nil)
	if err != nil {
		return dst, err
	}
	return append(dst, '}'), nil
}

func (c *TextContent) appendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, `{"type":"text","text":`...)
	dst = AppendString(dst, c.Text)
	return appendTail(dst, c.Annotations, c.Meta)
}

func appendMedia(dst []byte, kind string, data []byte, mime string, a *Annotations, meta Meta) ([]byte, error) {
	dst = append(dst, `{"type":"`...)
	dst = append(dst, kind...)
	dst = append(dst, `","data":`...)
	dst = AppendBase64(dst, data)
	dst = append(dst, `,"mimeType":`...)
	dst = AppendString(dst, mime)
	return appendTail(dst, a, meta)
}

func (c *ImageContent) appendJSON(dst []byte) ([]byte, error) {
	return appendMedia(dst, "image", c.Data, c.MIMEType, c.Annotations, c.Meta)
}

func (c *AudioContent) appendJSON(dst []byte) ([]byte, error) {
	return appendMedia(dst, "audio", c.Data, c.MIMEType, c.Annotations, c.Meta)
}

func (c *ResourceLink) appendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, `{"type":"resource_link","uri":`...)
	dst = AppendString(dst, c.URI)
	dst = append(dst, `,"name":`...)
	dst = AppendString(dst, c.Name)
	dst = AppendOptString(dst, "title", c.Title)
	dst = AppendOptString(dst, "description", c.Description)
	dst = AppendOptString(dst, "mimeType", c.MIMEType)
	if c.Size != nil {
		dst = append(dst, `,"size":`...)
		dst = strconv.AppendInt(dst, *c.Size, 10)
	}
	if len(c.Icons) > 0 {
		b, err := json.Marshal(c.Icons)
		if err != nil {
			return dst, err
		}
		dst = append(dst, `,"icons":`...)
		dst = append(dst, b...)
	}
	return appendTail(dst, c.Annotations, c.Meta)
}

func (c *EmbeddedResource) appendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, `{"type":"resource","resource":`...)
	var err error
	if dst, err = c.Resource.appendJSON(dst); err != nil {
		return dst, err
	}
	return appendTail(dst, c.Annotations, c.Meta)
}

func (r *ResourceContents) appendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, `{"uri":`...)
	dst = AppendString(dst, r.URI)
	dst = AppendOptString(dst, "mimeType", r.MIMEType)
	if r.Blob != nil {
		dst = append(dst, `,"blob":`...)
		dst = AppendBase64(dst, r.Blob)
	} else {
		dst = append(dst, `,"text":`...)
		dst = AppendString(dst, r.Text)
	}
	dst, err := AppendMeta(dst, r.Meta, nil)
	if err != nil {
		return dst, err
	}
	return append(dst, '}'), nil
}

func AppendOptString(dst []byte, key, v string) []byte {
	if v == "" {
		return dst
	}
	dst = AppendKey(dst, key, false)
	return AppendString(dst, v)
}

// AppendContent appends the JSON of one content block.
func AppendContent(dst []byte, c Content) ([]byte, error) {
	if c == nil {
		return dst, fmt.Errorf("content is nil")
	}
	return c.appendJSON(dst)
}

// AppendResourceContents appends the JSON of one resource's contents.
func AppendResourceContents(dst []byte, r *ResourceContents) ([]byte, error) {
	return r.appendJSON(dst)
}

// MarshalJSON implements json.Marshaler.
func (c *TextContent) MarshalJSON() ([]byte, error) { return c.appendJSON(nil) }

// MarshalJSON implements json.Marshaler.
func (c *ImageContent) MarshalJSON() ([]byte, error) { return c.appendJSON(nil) }

// MarshalJSON implements json.Marshaler.
func (c *AudioContent) MarshalJSON() ([]byte, error) { return c.appendJSON(nil) }

// MarshalJSON implements json.Marshaler.
func (c *ResourceLink) MarshalJSON() ([]byte, error) { return c.appendJSON(nil) }

// MarshalJSON implements json.Marshaler.
func (c *EmbeddedResource) MarshalJSON() ([]byte, error) { return c.appendJSON(nil) }

// MarshalJSON implements json.Marshaler.
func (r ResourceContents) MarshalJSON() ([]byte, error) { return r.appendJSON(nil) }

// wireContent is the union of every content block's fields, for decoding.
type wireContent struct {
	Type        string           `json:"type"`
	Text        string           `json:"text"`
	Data        string           `json:"data"`
	MIMEType    string           `json:"mimeType"`
	URI         string           `json:"uri"`
	Name        string           `json:"name"`
	Title       string           `json:"title"`
	Description string           `json:"description"`
	Size        *int64           `json:"size"`
	Icons       []Icon           `json:"icons"`
	Resource    *wireResContents `json:"resource"`
	Annotations *Annotations     `json:"annotations"`
	Meta        Meta             `json:"_meta"`
}

type wireResContents struct {
	URI      string  `json:"uri"`
	MIMEType string  `json:"mimeType"`
	Text     *string `json:"text"`
	Blob     *string `json:"blob"`
	Meta     Meta    `json:"_meta"`
}

func (w *wireResContents) contents() (ResourceContents, error) {
	rc := ResourceContents{URI: w.URI, MIMEType: w.MIMEType, Meta: w.Meta}
	switch {
	case w.Blob != nil:
		b, err := base64.StdEncoding.DecodeString(*w.Blob)
		if err != nil {
			return rc, fmt.Errorf("resource %q: blob is not base64: %w", w.URI, err)
		}
		rc.Blob = b
	case w.Text != nil:
		rc.Text = *w.Text
	default:
		return rc, fmt.Errorf("resource %q has neither text nor blob", w.URI)
	}
	return rc, nil
}

// UnmarshalJSON decodes one entry of a resources/read result.
func (r *ResourceContents) UnmarshalJSON(b []byte) error {
	var w wireResContents
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	rc, err := w.contents()
	if err != nil {
		return err
	}
	*r = rc
	return nil
}

// DecodeContent decodes one content block from its JSON.
func DecodeContent(b []byte) (Content, error) {
	var w wireContent
	if err := json.Unmarshal(b, &w); err != nil {
		return nil, err
	}
	return w.content()
}

func (w *wireContent) content() (Content, error) {
	switch w.Type {
	case "text":
		return &TextContent{Text: w.Text, Annotations: w.Annotations, Meta: w.Meta}, nil
	case "image", "audio":
		data, err := base64.StdEncoding.DecodeString(w.Data)
		if err != nil {
			return nil, fmt.Errorf("%s content: data is not base64: %w", w.Type, err)
		}
		if w.Type == "image" {
			return &ImageContent{Data: data, MIMEType: w.MIMEType, Annotations: w.Annotations, Meta: w.Meta}, nil
		}
		return &AudioContent{Data: data, MIMEType: w.MIMEType, Annotations: w.Annotations, Meta: w.Meta}, nil
	case "resource_link":
		return &ResourceLink{URI: w.URI, Name: w.Name, Title: w.Title, Description: w.Description,
			MIMEType: w.MIMEType, Size: w.Size, Icons: w.Icons, Annotations: w.Annotations, Meta: w.Meta}, nil
	case "resource":
		if w.Resource == nil {
			return nil, fmt.Errorf("resource content without a resource")
		}
		rc, err := w.Resource.contents()
		if err != nil {
			return nil, err
		}
		return &EmbeddedResource{Resource: rc, Annotations: w.Annotations, Meta: w.Meta}, nil
	}
	return nil, fmt.Errorf("unknown content type %q", w.Type)
}

func AppendContents(dst []byte, cs []Content) ([]byte, error) {
	dst = append(dst, '[')
	for i, c := range cs {
		if i > 0 {
			dst = append(dst, ',')
		}
		if c == nil {
			return dst, fmt.Errorf("content[%d] is nil", i)
		}
		var err error
		if dst, err = c.appendJSON(dst); err != nil {
			return dst, err
		}
	}
	return append(dst, ']'), nil
}
