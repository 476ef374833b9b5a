package openapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/auth"
)

// api is what every component of one document shares to reach the API.
type api struct {
	base   string // the base URL, without a trailing slash
	client *http.Client
	cfg    *config
}

// response is an upstream answer, read within the bound.
type response struct {
	status      int
	statusText  string
	contentType string
	body        []byte
}

// do sends the operation's request built from args and reads the answer.
// It fails for what the caller can fix (arguments, credentials) and for
// a body over the bound; an HTTP error status is a response.
func (a *api) do(c *sake.Context, o *operation, args map[string]any) (*response, error) {
	req, err := a.request(c, o, args)
	if err != nil {
		return nil, err
	}
	resp, err := a.client.Do(req)
	if err != nil {
		if c.Err() != nil {
			return nil, c.Err()
		}
		return nil, fmt.Errorf("%s %s: the API did not answer: %v", o.method, o.path, redact(err))
	}
	defer resp.Body.Close()
	limit := a.cfg.maxResponseBytes()
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s %s: reading the API's answer: %v", o.method, o.path, redact(err))
	}
	if int64(len(body)) > limit {
		return nil, fmt.Errorf("%s %s: the API answered HTTP %d with a body over %d bytes, the most read (openapi.MaxResponseBytes); ask for less (a smaller page, a filter)",
			o.method, o.path, resp.StatusCode, limit)
	}
	return &response{status: resp.StatusCode, statusText: http.StatusText(resp.StatusCode),
		contentType: resp.Header.Get("Content-Type"), body: body}, nil
}

// redact drops the URL from a transport error: its query may carry what
// the caller would not see logged.
func redact(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// failure is the tool error of a response with an error status: the
// status and the start of the body.
func (r *response) failure(o *operation) error {
	body := r.body
	cut := ""
	if len(body) > MaxErrorBodyBytes {
		body = body[:MaxErrorBodyBytes]
		for len(body) > 0 && !utf8.Valid(body) {
			body = body[:len(body)-1]
		}
		cut = " […]"
	}
	text := strings.TrimSpace(string(body))
	if !utf8.ValidString(text) {
		text = fmt.Sprintf("(%d bytes of %s)", len(r.body), r.contentType)
	}
	if text == "" {
		return fmt.Errorf("%s %s: the API answered HTTP %d %s", o.method, o.path, r.status, r.statusText)
	}
	return fmt.Errorf("%s %s: the API answered HTTP %d %s: %s%s", o.method, o.path, r.status, r.statusText, text, cut)
}

func (r *response) ok() bool { return r.status >= 200 && r.status < 300 }

// request builds the HTTP request of one call.
func (a *api) request(c *sake.Context, o *operation, args map[string]any) (*http.Request, error) {
	path := o.path
	query := url.Values{}
	header := http.Header{}
	var body map[string]any
	var whole any
	hasWhole := false
	for _, arg := range o.args {
		v, ok := args[arg.name]
		if !ok {
			continue
		}
		switch arg.in {
		case inPath:
			s, err := paramText(v, arg, ",")
			if err != nil {
				return nil, err
			}
			if s == "." || s == ".." || s == "" {
				// A dot segment would reach another path of the API.
				return nil, fmt.Errorf("%s %s: the path parameter %s cannot be %q", o.method, o.path, arg.param, s)
			}
			path = strings.ReplaceAll(path, "{"+arg.param+"}", url.PathEscape(s))
		case inQuery:
			if err := addQuery(query, arg, v); err != nil {
				return nil, err
			}
		case inHeader:
			s, err := paramText(v, arg, ",")
			if err != nil {
				return nil, err
			}
			header.Set(arg.param, s)
		case inBody:
			if body == nil {
				body = map[string]any{}
			}
			body[arg.param] = v
		case inWhole:
			whole, hasWhole = v, true
		}
	}
	if body == nil && o.bodyObject && o.bodyNeeded {
		body = map[string]any{} // a required body whose properties are all optional
	}
	u := a.base + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	var payload io.Reader
	switch {
	case hasWhole && !isJSON(o.bodyType):
		s, _ := whole.(string)
		payload = strings.NewReader(s)
	case hasWhole:
		b, err := json.Marshal(whole)
		if err != nil {
			return nil, err
		}
		payload = bytes.NewReader(b)
	case body != nil && isForm(o.bodyType):
		form := url.Values{}
		for _, k := range sortedKeys(body) {
			if err := addQuery(form, argument{param: k, explode: true}, body[k]); err != nil {
				return nil, err
			}
		}
		payload = strings.NewReader(form.Encode())
	case body != nil:
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		payload = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(c, o.method, u, payload)
	if err != nil {
		return nil, fmt.Errorf("%s %s: the request cannot be made: %v", o.method, o.path, err)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	if payload != nil {
		req.Header.Set("Content-Type", o.bodyType)
	}
	if o.jsonResult {
		req.Header.Set("Accept", "application/json")
	}
	if a.cfg.forward {
		if err := forwardToken(c, req); err != nil {
			return nil, err
		}
	}
	if a.cfg.edit != nil {
		if err := a.cfg.edit(c, req); err != nil {
			return nil, err
		}
	}
	return req, nil
}

// forwardToken puts the caller's access token on the request.
func forwardToken(c *sake.Context, req *http.Request) error {
	id := c.Identity()
	if id == nil {
		return nil
	}
	token := auth.TokenOf(id)
	if token == "" {
		if id.FromToken {
			return errors.New("openapi: the caller's token was not kept, so it cannot be forwarded: verify tokens with auth.JWTConfig.KeepToken, or drop ForwardBearerToken")
		}
		return nil
	}
	req.Header.Set("Authorization", "Bearer "+token)
	return nil
}

// addQuery adds a query parameter in its style (form by default).
func addQuery(q url.Values, arg argument, v any) error {
	if arg.asJSON {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		q.Add(arg.param, string(b))
		return nil
	}
	switch x := v.(type) {
	case []any:
		sep := ","
		switch arg.style {
		case "spaceDelimited":
			sep = " "
		case "pipeDelimited":
			sep = "|"
		}
		if arg.explode {
			for _, item := range x {
				s, err := scalarText(item)
				if err != nil {
					return err
				}
				q.Add(arg.param, s)
			}
			return nil
		}
		s, err := joinScalars(x, sep)
		if err != nil {
			return err
		}
		q.Add(arg.param, s)
	case map[string]any:
		keys := sortedKeys(x)
		switch {
		case arg.style == "deepObject":
			for _, k := range keys {
				s, err := scalarText(x[k])
				if err != nil {
					return err
				}
				q.Add(arg.param+"["+k+"]", s)
			}
		case arg.explode:
			for _, k := range keys {
				s, err := scalarText(x[k])
				if err != nil {
					return err
				}
				q.Add(k, s)
			}
		default:
			s, err := paramText(v, arg, ",")
			if err != nil {
				return err
			}
			q.Add(arg.param, s)
		}
	default:
		s, err := scalarText(v)
		if err != nil {
			return err
		}
		q.Add(arg.param, s)
	}
	return nil
}

// paramText renders a path or header parameter in the simple style:
// arrays and objects as comma-separated lists.
func paramText(v any, arg argument, sep string) (string, error) {
	if arg.asJSON {
		b, err := json.Marshal(v)
		return string(b), err
	}
	switch x := v.(type) {
	case []any:
		return joinScalars(x, sep)
	case map[string]any:
		var parts []string
		for _, k := range sortedKeys(x) {
			s, err := scalarText(x[k])
			if err != nil {
				return "", err
			}
			if arg.explode {
				parts = append(parts, k+"="+s)
			} else {
				parts = append(parts, k, s)
			}
		}
		return strings.Join(parts, sep), nil
	}
	return scalarText(v)
}

func joinScalars(items []any, sep string) (string, error) {
	parts := make([]string, len(items))
	for i, item := range items {
		s, err := scalarText(item)
		if err != nil {
			return "", err
		}
		parts[i] = s
	}
	return strings.Join(parts, sep), nil
}

// scalarText renders a JSON scalar as a parameter's text; a nested
// array or object is sent as JSON text.
func scalarText(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case bool:
		return strconv.FormatBool(x), nil
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), nil
	case json.Number:
		return x.String(), nil
	case nil:
		return "", nil
	}
	b, err := json.Marshal(v)
	return string(b), err
}

// toolResult turns a success response into a tool result: its body as
// text, and as structured content when the operation declares a JSON
// response (under "result" when that is not an object).
func (r *response) toolResult(o *operation, structured bool) (*sake.ToolResult, error) {
	if !structured || o.output == nil {
		return &sake.ToolResult{Content: []sake.Content{&sake.TextContent{Text: r.text()}}}, nil
	}
	body := bytes.TrimSpace(r.body)
	if len(body) == 0 {
		// A success without a body (204, say): nothing to structure.
		return &sake.ToolResult{Content: []sake.Content{&sake.TextContent{Text: r.text()}}}, nil
	}
	if !json.Valid(body) {
		return nil, fmt.Errorf("%s %s: the API answered HTTP %d with a body that is not JSON (%s), where its document declares JSON", o.method, o.path, r.status, r.contentType)
	}
	sc := json.RawMessage(body)
	if o.wrap {
		sc = slices.Concat([]byte(`{"result":`), body, []byte(`}`))
	} else if body[0] != '{' {
		return nil, fmt.Errorf("%s %s: the API answered HTTP %d with JSON that is not an object, where its document declares one", o.method, o.path, r.status)
	}
	return &sake.ToolResult{Content: []sake.Content{&sake.TextContent{Text: string(body)}}, StructuredContent: sc}, nil
}

// text is the body as a model reads it: the text itself, or a line that
// says what the bytes are.
func (r *response) text() string {
	if len(r.body) == 0 {
		return fmt.Sprintf("HTTP %d %s", r.status, r.statusText)
	}
	if isText(r.contentType) && utf8.Valid(r.body) {
		return string(r.body)
	}
	return fmt.Sprintf("HTTP %d %s: %d bytes of %s", r.status, r.statusText, len(r.body), r.contentType)
}

// isText reports whether a content type is read as text (an absent one
// is, when the bytes are UTF-8).
func isText(contentType string) bool {
	if contentType == "" {
		return true
	}
	media, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return false
	}
	return strings.HasPrefix(media, "text/") || isJSON(media) || strings.HasSuffix(media, "+xml") ||
		media == "application/xml" || media == "application/yaml" || media == "application/x-www-form-urlencoded"
}

// contents turns a success response into the contents of a resource.
func (r *response) contents(uri string) []sake.ResourceContents {
	media := r.contentType
	if m, _, err := mime.ParseMediaType(media); err == nil {
		media = m
	}
	if isText(r.contentType) && utf8.Valid(r.body) {
		return []sake.ResourceContents{{URI: uri, MIMEType: media, Text: string(r.body)}}
	}
	return []sake.ResourceContents{{URI: uri, MIMEType: media, Blob: r.body}}
}
