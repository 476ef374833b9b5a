package kittest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"sync"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/stdio"
)

// PyWire serves a sake server over stdio framing and makes it answer the
// way a server of the Python SDK 1.x (FastMCP 1.x) does on the wire:
// server/discover and subscriptions/listen are not requests it knows
// (-32602 "Invalid request parameters"), initialize settles on 2025-06-18
// or 2025-03-26 at most, the capabilities declare neither logging nor
// resources.subscribe, and logging/setLevel, resources/subscribe and
// resources/unsubscribe are methods it has no handler for (-32601).
type PyWire struct {
	// Logging declares the logging capability (logging/setLevel is still
	// refused, with setLevelCode).
	Logging      bool
	SetLevelCode int
	// Subscribe declares resources.subscribe and passes resources/subscribe
	// on, except for the URIs in refuse, which are answered with -32602.
	Subscribe bool
	Refuse    []string

	mu      sync.Mutex
	methods []string // every request the client sent, in order
}

// Sent returns how many requests of method the client sent.
func (w *PyWire) Sent(method string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, m := range w.methods {
		if m == method {
			n++
		}
	}
	return n
}

// pyVersions are the revisions a Python SDK 1.x server of 2025 accepts;
// it answers any other with the first.
var pyVersions = []string{"2025-06-18", "2025-03-26", "2024-11-05"}

// Transport serves srv behind the wire and returns the client's end.
func (w *PyWire) Transport(t *testing.T, srv *sake.Server) client.Transport {
	t.Helper()
	fromClient, toWire := io.Pipe()   // what the client writes
	fromWire, toClient := io.Pipe()   // what the client reads
	fromServer, toServer := io.Pipe() // what the server reads
	fromSrvOut, srvOut := io.Pipe()   // what the server writes
	var wmu sync.Mutex
	write := func(b []byte) {
		wmu.Lock()
		defer wmu.Unlock()
		_, _ = toClient.Write(append(b, '\n'))
	}
	served := make(chan error, 1)
	go func() {
		err := stdio.Serve(context.Background(), srv, fromServer, srvOut)
		srvOut.Close()
		served <- err
	}()
	initID := make(chan string, 1)
	// The client's messages: answered here or passed on to the server.
	go func() {
		defer toServer.Close()
		sc := bufio.NewScanner(fromClient)
		sc.Buffer(make([]byte, 64<<10), 4<<20)
		for sc.Scan() {
			line := append([]byte(nil), sc.Bytes()...)
			var m struct {
				ID     json.RawMessage            `json:"id"`
				Method string                     `json:"method"`
				Params map[string]json.RawMessage `json:"params"`
			}
			if json.Unmarshal(line, &m) != nil {
				continue
			}
			if m.ID != nil && m.Method != "" {
				w.mu.Lock()
				w.methods = append(w.methods, m.Method)
				w.mu.Unlock()
				if code, msg := w.refusal(m.Method, m.Params); code != 0 {
					write(PyError(m.ID, code, msg))
					continue
				}
			}
			if m.Method == "initialize" {
				var v string
				_ = json.Unmarshal(m.Params["protocolVersion"], &v)
				if !slices.Contains(pyVersions, v) {
					m.Params["protocolVersion"], _ = json.Marshal(pyVersions[0])
					params, _ := json.Marshal(m.Params)
					line = protocol.AppendRequest(nil, m.ID, m.Method, params)
				}
				initID <- string(m.ID)
			}
			if _, err := toServer.Write(append(line, '\n')); err != nil {
				return
			}
		}
	}()
	// The server's messages: the initialize result rewritten, the rest as
	// they are.
	go func() {
		defer toClient.Close()
		var pending string
		sc := bufio.NewScanner(fromSrvOut)
		sc.Buffer(make([]byte, 64<<10), 4<<20)
		for sc.Scan() {
			line := append([]byte(nil), sc.Bytes()...)
			if pending == "" {
				select {
				case pending = <-initID:
				default:
				}
			}
			var m struct {
				ID     json.RawMessage            `json:"id"`
				Result map[string]json.RawMessage `json:"result"`
			}
			if pending != "" && json.Unmarshal(line, &m) == nil && string(m.ID) == pending && m.Result != nil {
				pending = ""
				m.Result["capabilities"] = w.capabilities(m.Result["capabilities"])
				result, _ := json.Marshal(m.Result)
				line = protocol.AppendResult(nil, m.ID, result)
			}
			write(line)
		}
	}()
	t.Cleanup(func() {
		toWire.Close()
		if err := <-served; err != nil && !errors.Is(err, io.ErrClosedPipe) && !errors.Is(err, context.Canceled) {
			t.Errorf("stdio.Serve: %v", err)
		}
	})
	return client.Stream(fromWire, toWire)
}

// refusal is the error the wire answers a request with in the server's
// place, or code 0 to pass it on.
func (w *PyWire) refusal(method string, params map[string]json.RawMessage) (int, string) {
	switch method {
	case "server/discover", "subscriptions/listen":
		return protocol.CodeInvalidParams, "Invalid request parameters"
	case "logging/setLevel":
		if w.Logging && w.SetLevelCode != 0 {
			return w.SetLevelCode, "the level cannot be set"
		}
		return protocol.CodeMethodNotFound, "Method not found"
	case "resources/subscribe", "resources/unsubscribe":
		if !w.Subscribe {
			return protocol.CodeMethodNotFound, "Method not found"
		}
		var uri string
		_ = json.Unmarshal(params["uri"], &uri)
		if slices.Contains(w.Refuse, uri) {
			return protocol.CodeInvalidParams, "Unknown resource: " + uri
		}
	}
	return 0, ""
}

// capabilities rewrites the server's capabilities as the wire declares
// them.
func (w *PyWire) capabilities(raw json.RawMessage) json.RawMessage {
	var caps map[string]json.RawMessage
	_ = json.Unmarshal(raw, &caps)
	if !w.Logging {
		delete(caps, "logging")
	}
	if _, ok := caps["resources"]; ok {
		caps["resources"] = json.RawMessage(`{"subscribe":` + map[bool]string{true: "true", false: "false"}[w.Subscribe] + `,"listChanged":true}`)
	}
	b, _ := json.Marshal(caps)
	return b
}

// PyError is the JSON-RPC error response the Python SDK sends: its data
// is an empty string.
func PyError(id json.RawMessage, code int, msg string) []byte {
	b, _ := protocol.AppendError(nil, id, &protocol.Error{Code: code, Message: msg, Data: ""})
	return b
}
