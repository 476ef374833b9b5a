package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// Protocol versions of the two eras.
const (
	legacyVersion = "2025-11-25"
	modernVersion = "2026-07-28"
)

// modernMeta is the params._meta every 2026-07-28 request carries.
const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"` + modernVersion + `",` +
	`"io.modelcontextprotocol/clientCapabilities":{},` +
	`"io.modelcontextprotocol/clientInfo":{"name":"sake-bench","version":"1.0.0"}}`

// initializeBody is a 2025-11-25 initialize request with id.
func initializeBody(id int64) []byte {
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"initialize","params":{"protocolVersion":"%s","capabilities":{},"clientInfo":{"name":"sake-bench","version":"1.0.0"}}}`, id, legacyVersion)
}

// initializedBody is the notifications/initialized notification.
var initializedBody = []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

// appendCall appends a tools/call echo request to dst: id, the text
// "hello-<client>-<seq>", and _meta when modern. It returns the extended
// buffer and the bounds of the text within it.
func appendCall(dst []byte, id int64, client, seq int, modern bool) (buf []byte, textStart, textEnd int) {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = strconv.AppendInt(dst, id, 10)
	dst = append(dst, `,"method":"tools/call","params":{"name":"echo","arguments":{"text":"`...)
	textStart = len(dst)
	dst = append(dst, "hello-"...)
	dst = strconv.AppendInt(dst, int64(client), 10)
	dst = append(dst, '-')
	dst = strconv.AppendInt(dst, int64(seq), 10)
	textEnd = len(dst)
	dst = append(dst, `"}`...)
	if modern {
		dst = append(dst, ',')
		dst = append(dst, modernMeta...)
	}
	dst = append(dst, `}}`...)
	return dst, textStart, textEnd
}

// content is a tool result's content item, as far as the benchmark reads it.
type content struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// response is the part of a JSON-RPC message the benchmark reads.
type response struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result *struct {
		Content         []content `json:"content"`
		IsError         bool      `json:"isError"`
		ProtocolVersion string    `json:"protocolVersion"` // initialize only
	} `json:"result"`
	Error *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// isResponse reports whether m answers a request: it has an id and no method.
func (m *response) isResponse() bool {
	return m.Method == "" && len(m.ID) > 0 && !bytes.Equal(m.ID, []byte("null"))
}

// checkInitialize returns nil when m is an initialize result that
// negotiated the legacy version.
func (m *response) checkInitialize() error {
	switch {
	case m.Error != nil:
		return fmt.Errorf("initialize: JSON-RPC error %d: %s%s", m.Error.Code, m.Error.Message, dataSuffix(m.Error.Data))
	case m.Result == nil:
		return errors.New("initialize: response without result or error")
	case m.Result.ProtocolVersion != legacyVersion:
		return fmt.Errorf("initialize: negotiated %q, want %q", m.Result.ProtocolVersion, legacyVersion)
	}
	return nil
}

// check returns nil when m is a result whose first content is the text
// want, and otherwise an error describing what came back.
func (m *response) check(want []byte) error {
	switch {
	case m.Error != nil:
		return fmt.Errorf("JSON-RPC error %d: %s%s", m.Error.Code, m.Error.Message, dataSuffix(m.Error.Data))
	case m.Result == nil:
		return errors.New("response without result or error")
	case m.Result.IsError:
		text := ""
		if len(m.Result.Content) > 0 {
			text = m.Result.Content[0].Text
		}
		return fmt.Errorf("tool error result: %s", short(text, 200))
	case len(m.Result.Content) == 0:
		return errors.New("result without content")
	case m.Result.Content[0].Type != "text" || m.Result.Content[0].Text != string(want):
		return fmt.Errorf("content[0] is %s %q, want text %q", m.Result.Content[0].Type, short(m.Result.Content[0].Text, 80), want)
	}
	return nil
}

func dataSuffix(d json.RawMessage) string {
	if len(d) == 0 {
		return ""
	}
	return " data=" + short(string(d), 200)
}

// idOf returns the numeric id of m, or false when it has none or it is not
// an integer.
func (m *response) idOf() (int64, bool) {
	if len(m.ID) == 0 {
		return 0, false
	}
	n, err := strconv.ParseInt(string(m.ID), 10, 64)
	return n, err == nil
}

// verifyBody checks an HTTP response body for the answer to request id
// whose text was want.
func verifyBody(body []byte, sse bool, id int64, want []byte) error {
	m, err := findResponse(body, sse, id)
	if err != nil {
		return err
	}
	return m.check(want)
}

// findResponse returns the response to request id in an HTTP response
// body: the body itself when it is JSON, or, for an SSE body, the event
// whose data: lines carry it (other events, such as notifications or
// priming events with empty data, are skipped).
func findResponse(body []byte, sse bool, id int64) (*response, error) {
	m, _, err := findMessage(body, sse, id)
	return m, err
}

// findMessage is findResponse that also returns the JSON of the message,
// for callers that read more of it than response holds.
func findMessage(body []byte, sse bool, id int64) (*response, []byte, error) {
	if !sse {
		var m response
		if err := json.Unmarshal(body, &m); err != nil {
			return nil, nil, fmt.Errorf("bad JSON body: %v: %s", err, short(string(body), 200))
		}
		if got, ok := m.idOf(); !ok || got != id {
			return nil, nil, fmt.Errorf("response id %s, want %d: %s", m.ID, id, short(string(body), 200))
		}
		return &m, body, nil
	}
	var data []byte // the data of the current event (one or more data: lines)
	flush := func() (*response, []byte, error) {
		defer func() { data = data[:0] }()
		if len(bytes.TrimSpace(data)) == 0 {
			return nil, nil, nil
		}
		var m response
		if err := json.Unmarshal(data, &m); err != nil {
			return nil, nil, fmt.Errorf("bad JSON in SSE event: %v: %s", err, short(string(data), 200))
		}
		if got, ok := m.idOf(); !ok || got != id || !m.isResponse() {
			return nil, nil, nil // a notification or something else: keep looking
		}
		return &m, bytes.Clone(data), nil
	}
	rest := body
	for len(rest) > 0 {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) == 0 { // end of event
			if m, raw, err := flush(); m != nil || err != nil {
				return m, raw, err
			}
			continue
		}
		if v, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			v = bytes.TrimPrefix(v, []byte(" "))
			if len(data) > 0 {
				data = append(data, '\n')
			}
			data = append(data, v...)
		}
	}
	if m, raw, err := flush(); m != nil || err != nil {
		return m, raw, err
	}
	return nil, nil, fmt.Errorf("no response to id %d in SSE body: %s", id, short(string(body), 200))
}
