package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/sakemcp/sake-go/sake/protocol"
)

// Raw sends msg, one JSON-RPC message, exactly as given (the client adds
// no _meta and assigns no id) in the client's session, and returns the
// server's answer to it: the response for a request, nil for a
// notification or a response. For testing how a server takes what no
// helper builds: malformed params, hand-made retries, foreign ids.
// Messages the server sends before its answer go where the client's other
// messages go. The in-memory and HTTP transports carry it; the others
// return an error.
func (c *Client) Raw(ctx context.Context, msg []byte) ([]byte, error) {
	a, err := c.Exchange(ctx, msg)
	return a.Body, err
}

// RawAnswer is the outcome of Exchange.
type RawAnswer struct {
	// Body is the server's answer: the response for a request, nil for a
	// notification or a response.
	Body []byte
	// Method is the method of the message sent, "" when it had none.
	Method string
	// ErrorCode is the JSON-RPC error code when Body is an error
	// response, else 0.
	ErrorCode int
}

// Exchange is Raw that also says what the client read of the message it
// sent (its method) and of the answer (its error code).
func (c *Client) Exchange(ctx context.Context, msg []byte) (RawAnswer, error) {
	if c.isClosed() {
		return RawAnswer{}, ErrClosed
	}
	peek, _ := protocol.Peek(msg)
	var p headerParams
	if len(peek.Params) > 0 {
		_ = json.Unmarshal(peek.Params, &p)
	}
	info := c.Info()
	// Clipped: a transport that appends to a body it sends must not
	// write into the caller's buffer.
	m := &message{method: peek.Method, body: slices.Clip(msg), era: info.Era, version: info.ProtocolVersion}
	// The headers a request of this method carries (Mcp-Name).
	switch {
	case peek.Method == "tools/call" || peek.Method == "prompts/get":
		m.name, m.hasName = deref(p.Name), p.Name != nil
	case peek.Method == "resources/read":
		m.name, m.hasName = deref(p.URI), p.URI != nil
	case strings.HasPrefix(peek.Method, "tasks/") && peek.Method != "tasks/list":
		m.name, m.hasName = deref(p.TaskID), p.TaskID != nil
	}
	key := ""
	if len(peek.ID) > 0 && string(peek.ID) != "null" && peek.Method != "" {
		key = string(peek.ID)
		if key[0] == '"' {
			_ = json.Unmarshal(peek.ID, &key)
		}
		m.id = -1 // a request whose id is not a number this client gave
		if n, err := strconv.ParseInt(key, 10, 64); err == nil && n != 0 {
			m.id = n
		}
	}
	t := c.t
	if tt, ok := t.(*tapTransport); ok {
		t = tt.Transport
		tt.fn(true, msg)
	}
	r, ok := t.(interface {
		raw(ctx context.Context, m *message, key string) ([]byte, error)
	})
	if !ok {
		return RawAnswer{Method: peek.Method}, errors.New("client: Raw needs the in-memory or the HTTP transport")
	}
	body, err := r.raw(ctx, m, key)
	if tt, ok := c.t.(*tapTransport); ok && len(body) > 0 {
		tt.fn(false, body)
	}
	a := RawAnswer{Body: body, Method: peek.Method}
	if len(body) > 0 {
		var answer struct {
			Error *struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if json.Unmarshal(body, &answer) == nil && answer.Error != nil {
			a.ErrorCode = answer.Error.Code
		}
	}
	return a, err
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func (h *httpTransport) raw(ctx context.Context, m *message, key string) ([]byte, error) {
	resp, err := h.do(ctx, http.MethodPost, m, nil)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode == http.StatusOK && isSSE(resp) && key != "" {
		defer resp.Body.Close()
		sr := newSSEReader(resp.Body, h.max)
		return h.events(ctx, sr, key)
	}
	if resp.StatusCode/100 == 2 {
		defer drain(resp)
		if key == "" {
			return nil, nil
		}
		return readBody(resp, h.max)
	}
	// A refusal that is the server's JSON-RPC answer (a -32602 with its
	// 400, say) is the answer; the endpoint's own refusals are errors.
	e := httpError(resp)
	resp.Body.Close()
	if e.RPC != nil && key != "" && json.Valid(e.Body) {
		if env, err := protocol.Peek(e.Body); err == nil && len(env.ID) > 0 && string(env.ID) != "null" {
			return e.Body, nil
		}
	}
	return nil, e
}

// readBody reads a JSON answer of at most max bytes.
func readBody(resp *http.Response, max int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	if err != nil {
		return nil, fmt.Errorf("client: reading the answer: %w", err)
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("client: the answer exceeds %d bytes (raise MaxMessageBytes)", max)
	}
	return b, nil
}

// headerParams are the params whose values a request's headers repeat.
type headerParams struct {
	Name   *string `json:"name"`
	URI    *string `json:"uri"`
	TaskID *string `json:"taskId"`
}
