package interop

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
)

// pyStandIn is a STAND-IN for a stdio MCP server built with the Python
// SDK 1.x (FastMCP 1.x, as released through 2025), not that server:
// PyPI cannot be reached from the machines these tests were written on,
// so the real server cannot be installed. It answers as that server does
// on the wire, after the SDK's source (mcp/shared/session.py,
// mcp/server/session.py, mcp/server/lowlevel/server.py,
// mcp/server/fastmcp/server.py):
//
//   - initialize settles on the revision asked for when it is one of
//     2025-06-18, 2025-03-26 and 2024-11-05, else on 2025-06-18;
//   - the capabilities are FastMCP's defaults: tools, resources (with
//     subscribe false) and prompts, no logging, no completions;
//   - a request whose method is not a request of those revisions
//     (server/discover, subscriptions/listen) fails validation:
//     -32602 "Invalid request parameters";
//   - a request of those revisions without a handler (logging/setLevel,
//     resources/subscribe, resources/unsubscribe, completion/complete):
//     -32601 "Method not found";
//   - an exception in a handler is an error with code 0 (an unknown
//     resource), a tool's is a result with isError; a cancelled request
//     is answered with code 0 "Request cancelled";
//   - log messages go out whatever level was asked for (there is no
//     logging/setLevel to ask with), and a tool's questions
//     (elicitation/create, sampling/createMessage) are requests of the
//     session that name no call: stdio has no way to.
//
// It writes "stand-in received <method>" to its standard error for every
// request, so that a test can tell what it was sent.
type pyStandIn struct {
	out  io.Writer
	errw io.Writer
	wmu  sync.Mutex

	mu          sync.Mutex
	initialized bool
	nextID      int
	waiting     map[string]chan json.RawMessage // the session's own requests, by id
	running     map[string]context.CancelFunc   // the client's requests in flight, by id
	wg          sync.WaitGroup
}

// pyVersions are the revisions the Python SDK 1.x of 2025 accepts, the
// newest first; it answers any other with the newest.
var pyVersions = []string{"2025-06-18", "2025-03-26", "2024-11-05"}

// pyMethods are the requests of those revisions a client may send.
var pyMethods = []string{"initialize", "ping", "tools/list", "tools/call", "resources/list",
	"resources/templates/list", "resources/read", "resources/subscribe", "resources/unsubscribe",
	"prompts/list", "prompts/get", "completion/complete", "logging/setLevel"}

// servePyStandIn serves the stand-in on in and out until in ends.
func servePyStandIn(in io.Reader, out, errw io.Writer) int {
	s := &pyStandIn{out: out, errw: errw, waiting: map[string]chan json.RawMessage{}, running: map[string]context.CancelFunc{}}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			fmt.Fprintf(errw, "stand-in: invalid JSON: %v\n", err)
			continue
		}
		switch {
		case m.Method == "" && m.ID != nil:
			s.mu.Lock()
			ch := s.waiting[string(m.ID)]
			delete(s.waiting, string(m.ID))
			s.mu.Unlock()
			if ch != nil {
				if m.Error != nil {
					ch <- nil
				} else {
					ch <- m.Result
				}
			}
		case m.ID == nil:
			s.notification(m.Method, m.Params)
		default:
			fmt.Fprintf(errw, "stand-in received %s\n", m.Method)
			s.request(m.ID, m.Method, m.Params)
		}
	}
	s.mu.Lock()
	for _, cancel := range s.running {
		cancel()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return 0
}

func (s *pyStandIn) write(v any) {
	b, _ := json.Marshal(v)
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_, _ = s.out.Write(append(b, '\n'))
}

func (s *pyStandIn) respond(id json.RawMessage, result any) {
	s.write(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

func (s *pyStandIn) fail(id json.RawMessage, code int, message string) {
	e := map[string]any{"code": code, "message": message}
	if code == -32602 {
		e["data"] = ""
	}
	s.write(map[string]any{"jsonrpc": "2.0", "id": id, "error": e})
}

func (s *pyStandIn) notification(method string, params json.RawMessage) {
	switch method {
	case "notifications/initialized":
		s.mu.Lock()
		s.initialized = true
		s.mu.Unlock()
	case "notifications/cancelled":
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		_ = json.Unmarshal(params, &p)
		s.mu.Lock()
		cancel := s.running[string(p.RequestID)]
		s.mu.Unlock()
		if cancel != nil {
			cancel()
		}
	}
}

// request handles a request of the client's, each on its own goroutine
// as the SDK's task group does.
func (s *pyStandIn) request(id json.RawMessage, method string, params json.RawMessage) {
	if !slices.Contains(pyMethods, method) {
		s.fail(id, -32602, "Invalid request parameters")
		return
	}
	s.mu.Lock()
	ready := s.initialized
	s.mu.Unlock()
	if !ready && method != "initialize" && method != "ping" {
		s.fail(id, -32602, "Received request before initialization was complete")
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.mu.Lock()
	s.running[string(id)] = cancel
	s.mu.Unlock()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer cancel()
		result, code, msg := s.handle(ctx, method, params)
		s.mu.Lock()
		delete(s.running, string(id))
		s.mu.Unlock()
		switch {
		case ctx.Err() != nil:
			s.fail(id, 0, "Request cancelled")
		case code != 0 || msg != "":
			s.fail(id, code, msg)
		default:
			s.respond(id, result)
		}
	}()
}

type obj = map[string]any

func (s *pyStandIn) handle(ctx context.Context, method string, params json.RawMessage) (any, int, string) {
	var p struct {
		ProtocolVersion string         `json:"protocolVersion"`
		Name            string         `json:"name"`
		URI             string         `json:"uri"`
		Arguments       map[string]any `json:"arguments"`
		Meta            map[string]any `json:"_meta"`
	}
	_ = json.Unmarshal(params, &p)
	switch method {
	case "initialize":
		v := p.ProtocolVersion
		if !slices.Contains(pyVersions, v) {
			v = pyVersions[0]
		}
		return obj{"protocolVersion": v, "serverInfo": obj{"name": "python-sdk-standin", "version": "1.12.4"},
			"capabilities": obj{"experimental": obj{}, "prompts": obj{"listChanged": false},
				"resources": obj{"subscribe": false, "listChanged": false}, "tools": obj{"listChanged": false}}}, 0, ""
	case "ping":
		return obj{}, 0, ""
	case "tools/list":
		return obj{"tools": pyTools()}, 0, ""
	case "tools/call":
		return s.callTool(ctx, p.Name, p.Arguments, p.Meta["progressToken"]), 0, ""
	case "resources/list":
		return obj{"resources": []obj{{"uri": "doc://readme", "name": "readme", "description": "The readme.", "mimeType": "text/plain"}}}, 0, ""
	case "resources/templates/list":
		return obj{"resourceTemplates": []obj{{"uriTemplate": "doc://notes/{id}", "name": "note", "description": "One note.", "mimeType": "text/plain"}}}, 0, ""
	case "resources/read":
		var text string
		switch id, ok := strings.CutPrefix(p.URI, "doc://notes/"); {
		case p.URI == "doc://readme":
			text = "read me"
		case ok && id != "":
			text = "note " + id
		default:
			return nil, 0, "Unknown resource: " + p.URI
		}
		return obj{"contents": []obj{{"uri": p.URI, "mimeType": "text/plain", "text": text}}}, 0, ""
	case "prompts/list":
		return obj{"prompts": []obj{{"name": "greet", "description": "Greets someone.", "arguments": []obj{{"name": "who", "required": true}}}}}, 0, ""
	case "prompts/get":
		var g struct {
			Arguments map[string]string `json:"arguments"`
		}
		_ = json.Unmarshal(params, &g)
		if p.Name != "greet" {
			return nil, 0, "Unknown prompt: " + p.Name
		}
		return obj{"description": "Greets someone.", "messages": []obj{{"role": "user", "content": obj{"type": "text", "text": "Hello, " + g.Arguments["who"]}}}}, 0, ""
	}
	return nil, -32601, "Method not found"
}

// pyTool is a tool as FastMCP 1.x lists a function returning str: its
// schemas are pydantic's, with titles, and the output schema wraps the
// string in "result".
func pyTool(name, description string, args ...string) obj {
	props := obj{}
	for _, a := range args {
		props[a] = obj{"title": strings.ToUpper(a[:1]) + a[1:], "type": "string"}
	}
	in := obj{"properties": props, "title": name + "Arguments", "type": "object"}
	if len(args) > 0 {
		in["required"] = args
	}
	return obj{"name": name, "description": description, "inputSchema": in,
		"outputSchema": obj{"properties": obj{"result": obj{"title": "Result", "type": "string"}}, "required": []string{"result"}, "title": name + "Output", "type": "object"}}
}

func pyTools() []obj {
	return []obj{
		pyTool("echo", "Echoes the text.", "text"),
		pyTool("log_steps", "Logs at info, debug and warning."),
		pyTool("ask_name", "Asks the user's name (elicitation)."),
		pyTool("draft", "Asks the model for a draft (sampling).", "topic"),
		pyTool("count", "Reports progress twice."),
		pyTool("boom", "Raises."),
	}
}

func pyText(text string) obj {
	return obj{"content": []obj{{"type": "text", "text": text}}, "structuredContent": obj{"result": text}, "isError": false}
}

func pyToolError(text string) obj {
	return obj{"content": []obj{{"type": "text", "text": text}}, "isError": true}
}

func (s *pyStandIn) callTool(ctx context.Context, name string, args map[string]any, token any) obj {
	str := func(k string) string { v, _ := args[k].(string); return v }
	switch name {
	case "echo":
		return pyText(str("text"))
	case "log_steps":
		for _, l := range [][2]string{{"info", "step one"}, {"debug", "a detail"}, {"warning", "a warning"}} {
			s.write(obj{"jsonrpc": "2.0", "method": "notifications/message", "params": obj{"level": l[0], "data": l[1]}})
		}
		return pyText("logged")
	case "ask_name":
		raw := s.ask(ctx, "elicitation/create", obj{"message": "What is your name?",
			"requestedSchema": obj{"properties": obj{"name": obj{"title": "Name", "type": "string"}}, "required": []string{"name"}, "title": "Name", "type": "object"}})
		var r struct {
			Action  string            `json:"action"`
			Content map[string]string `json:"content"`
		}
		if raw == nil || json.Unmarshal(raw, &r) != nil {
			return pyToolError("Error executing tool ask_name: the elicitation failed")
		}
		if r.Action != "accept" {
			return pyText(r.Action)
		}
		return pyText("Hello, " + r.Content["name"])
	case "draft":
		raw := s.ask(ctx, "sampling/createMessage", obj{"maxTokens": 100,
			"messages": []obj{{"role": "user", "content": obj{"type": "text", "text": "Write about " + str("topic")}}}})
		var r struct {
			Content struct {
				Text string `json:"text"`
			} `json:"content"`
		}
		if raw == nil || json.Unmarshal(raw, &r) != nil {
			return pyToolError("Error executing tool draft: the sampling failed")
		}
		return pyText("draft: " + r.Content.Text)
	case "count":
		if token != nil {
			for i := 1; i <= 2; i++ {
				s.write(obj{"jsonrpc": "2.0", "method": "notifications/progress", "params": obj{"progressToken": token, "progress": i, "total": 2}})
			}
		}
		return pyText("counted")
	case "boom":
		return pyToolError("Error executing tool boom: it broke")
	}
	return pyToolError("Unknown tool: " + name)
}

// ask sends a request of the session and waits for its result (nil for
// an error, or when ctx ends).
func (s *pyStandIn) ask(ctx context.Context, method string, params obj) json.RawMessage {
	ch := make(chan json.RawMessage, 1)
	s.mu.Lock()
	id := s.nextID
	s.nextID++
	s.waiting[fmt.Sprint(id)] = ch
	s.mu.Unlock()
	s.write(obj{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	select {
	case r := <-ch:
		return r
	case <-ctx.Done():
		return nil
	}
}
