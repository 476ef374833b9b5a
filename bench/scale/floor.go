package main

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"sync"
)

// The floor is what a request costs without any MCP library: a handler on
// the same net/http server that reads the body and writes a canned answer
// the client accepts (for tools/call, the text found in the request). What
// the client and net/http cost is in every peer's figure too; subtracting
// the floor leaves the library's own cost.

func buildFloor(n int) (http.Handler, http.Handler) {
	h := &floor{list: floorList(n + 2)}
	return h, h
}

type floor struct{ list []byte }

var floorBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func (f *floor) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	buf := floorBufs.Get().(*bytes.Buffer)
	defer floorBufs.Put(buf)
	buf.Reset()
	if _, err := buf.ReadFrom(r.Body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	body := buf.Bytes()
	method := between(body, `"method":"`, `"`)
	w.Header().Set("Content-Type", "application/json")
	switch string(method) {
	case "notifications/initialized":
		w.WriteHeader(http.StatusAccepted)
	case "initialize":
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"`+legacyVersion+`","capabilities":{"tools":{}},"serverInfo":{"name":"floor","version":"1"}}}`)
	case "tools/list":
		_, _ = w.Write(f.list)
	default:
		text := between(body, `"text":"`, `"`)
		if text == nil {
			text = []byte(orderAnswer)
		}
		// The answer is written in three pieces around the text, which is
		// not copied: no server can do less.
		head := make([]byte, 0, 96)
		head = append(head, `{"jsonrpc":"2.0","id":`...)
		head = append(head, between(body, `"id":`, `,`)...)
		head = append(head, `,"result":{"content":[{"type":"text","text":"`...)
		const tail = `"}]}}`
		w.Header().Set("Content-Length", strconv.Itoa(len(head)+len(text)+len(tail)))
		_, _ = w.Write(head)
		_, _ = w.Write(text)
		_, _ = io.WriteString(w, tail)
	}
}

// between returns what follows the first open in b up to close.
func between(b []byte, open, close string) []byte {
	i := bytes.Index(b, []byte(open))
	if i < 0 {
		return nil
	}
	rest := b[i+len(open):]
	j := bytes.Index(rest, []byte(close))
	if j < 0 {
		return nil
	}
	return rest[:j]
}

func floorList(n int) []byte {
	b := []byte(`{"jsonrpc":"2.0","id":1,"result":{"tools":[`)
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":"`+toolName(i)+`","description":"Echoes its text.","inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}`...)
	}
	return append(b, `]}}`...)
}
