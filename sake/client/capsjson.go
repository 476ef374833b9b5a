package client

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/sakemcp/sake-go/sake/protocol"
)

// appendCapabilities appends caps as JSON, as json.Marshal writes it,
// without reflection: a proxy declares its caller's capabilities on every
// forwarded request.
func appendCapabilities(dst []byte, caps *protocol.ClientCapabilities) []byte {
	dst = append(dst, '{')
	start := len(dst)
	member := func(name string) {
		if len(dst) > start {
			dst = append(dst, ',')
		}
		dst = append(dst, '"')
		dst = append(dst, name...)
		dst = append(dst, '"', ':')
	}
	raw := func(name string, v json.RawMessage) {
		if len(v) > 0 {
			member(name)
			dst = appendRaw(dst, v)
		}
	}
	if r := caps.Roots; r != nil {
		member("roots")
		if r.ListChanged {
			dst = append(dst, `{"listChanged":true}`...)
		} else {
			dst = append(dst, `{}`...)
		}
	}
	if sc := caps.Sampling; sc != nil {
		member("sampling")
		dst = append(dst, '{')
		inner := len(dst)
		if len(sc.Context) > 0 {
			dst = append(dst, `"context":`...)
			dst = appendRaw(dst, sc.Context)
		}
		if len(sc.Tools) > 0 {
			if len(dst) > inner {
				dst = append(dst, ',')
			}
			dst = append(dst, `"tools":`...)
			dst = appendRaw(dst, sc.Tools)
		}
		dst = append(dst, '}')
	}
	if e := caps.Elicitation; e != nil {
		member("elicitation")
		dst = append(dst, '{')
		inner := len(dst)
		if len(e.Form) > 0 {
			dst = append(dst, `"form":`...)
			dst = appendRaw(dst, e.Form)
		}
		if len(e.URL) > 0 {
			if len(dst) > inner {
				dst = append(dst, ',')
			}
			dst = append(dst, `"url":`...)
			dst = appendRaw(dst, e.URL)
		}
		dst = append(dst, '}')
	}
	for _, m := range []struct {
		name string
		v    map[string]json.RawMessage
	}{{"extensions", caps.Extensions}, {"experimental", caps.Experimental}} {
		if len(m.v) == 0 {
			continue
		}
		member(m.name)
		dst = append(dst, '{')
		keys := make([]string, 0, len(m.v))
		for k := range m.v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = protocol.AppendString(dst, k)
			dst = append(dst, ':')
			dst = appendRaw(dst, m.v[k])
		}
		dst = append(dst, '}')
	}
	raw("tasks", caps.Tasks)
	return append(dst, '}')
}

// appendRaw appends a raw JSON value ("null" when empty), compacted when
// it holds white space, as json.Marshal writes a json.RawMessage.
func appendRaw(dst []byte, v json.RawMessage) []byte {
	if len(v) == 0 {
		return append(dst, "null"...)
	}
	for _, c := range v {
		if c == ' ' || c == '\n' || c == '\t' || c == '\r' {
			var b bytes.Buffer
			if json.Compact(&b, v) != nil {
				return append(dst, "null"...)
			}
			return append(dst, b.Bytes()...)
		}
	}
	if !json.Valid(v) {
		return append(dst, "null"...)
	}
	return append(dst, v...)
}
