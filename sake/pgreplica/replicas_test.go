package pgreplica_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/backend"
	"github.com/sakemcp/sake-go/sake/internal/pgtest"
	"github.com/sakemcp/sake-go/sake/pgreplica"
	"github.com/sakemcp/sake-go/sake/plug"
	"github.com/sakemcp/sake-go/sake/transport"
)

// app is the server every replica runs.
type app struct{}

type nameForm struct {
	Name string `json:"name"`
}

type echoArgs struct {
	Text string `json:"text"`
}

func (app) Declare(d *sake.Declarations) {
	d.Resource("Watched", "file:///watched").MIMEType("text/plain")
}

func (app) Watched(*sake.Context) (string, error) { return "watched", nil }

func (app) Echo(_ *sake.Context, a echoArgs) (string, error) { return a.Text, nil }

// Shout sends a message on the session's own stream, wherever it is held.
func (app) Shout(c *sake.Context, a echoArgs) (string, error) {
	msg := `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":` + strconvQuote(a.Text) + `}}`
	if err := transport.Send(c.Session(), []byte(msg)); err != nil {
		return "", err
	}
	return "sent", nil
}

// Level answers the log level the session has for this request.
func (app) Level(c *sake.Context) (string, error) { return string(c.LogLevel()), nil }

func (app) Ask(c *sake.Context) (string, error) {
	var f nameForm
	act, err := c.Elicit("name", "Your name?", &f)
	if err != nil {
		return "", err
	}
	return string(act) + ":" + f.Name, nil
}

// replica is one process of the group: its server and its URL, and the
// relays it has acted on.
type replica struct {
	srv   *sake.Server
	url   string
	r     *pgreplica.Replica
	heard chan heardRelay
}

// heardRelay is a relay a replica has acted on.
type heardRelay struct{ session, kind string }

// waitHeard waits until the replica has acted on a relay of kind about
// session.
func (r replica) waitHeard(t *testing.T, session, kind string) {
	t.Helper()
	for h := range r.heard {
		if h.session == session && h.kind == kind {
			return
		}
	}
}

// start runs n replicas on one fresh schema, each behind its own HTTP
// server; the X-User header names the caller.
func start(t *testing.T, n int) []replica {
	t.Helper()
	url, schema, _ := pgtest.Schema(t)
	ctx := context.Background()
	var out []replica
	for range n {
		r, err := pgreplica.Open(ctx, pgtest.Pool(t, url, schema))
		if err != nil {
			t.Fatal(err)
		}
		heard := make(chan heardRelay, 256)
		pgreplica.OnRelayHeard(r, func(session, kind string) {
			select {
			case heard <- heardRelay{session, kind}:
			default:
			}
		})
		srv := sake.MustNew(app{}, r.Options()...)
		h := plug.New(srv, plug.Identify(func(req *http.Request) (*sake.Identity, error) {
			if u := req.Header.Get("X-User"); u != "" {
				return &sake.Identity{Subject: u}, nil
			}
			return nil, nil
		}))
		ts := httptest.NewServer(h)
		t.Cleanup(func() {
			ts.Close()
			h.Close()
			_ = srv.Shutdown(ctx)
			_ = r.Close(ctx)
		})
		out = append(out, replica{srv: srv, url: ts.URL, r: r, heard: heard})
	}
	return out
}

// post sends one legacy message and returns the response.
func post(t *testing.T, url, user, sid, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	req.Header.Set("X-User", user)
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// initialize opens a session on url for user and returns its id.
func initialize(t *testing.T, url, user string) string {
	t.Helper()
	resp := post(t, url, user, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}`)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %d, session %q", resp.StatusCode, sid)
	}
	return sid
}

// events reads the JSON-RPC messages of an SSE or JSON response.
func events(resp *http.Response) <-chan map[string]any {
	return eventsFrom(resp, resp.Body)
}

// eventsFrom is events reading the body from r.
func eventsFrom(resp *http.Response, r io.Reader) <-chan map[string]any {
	ch := make(chan map[string]any, 16)
	go func() {
		defer close(ch)
		if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			var m map[string]any
			if json.NewDecoder(r).Decode(&m) == nil {
				ch <- m
			}
			return
		}
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 1<<16), 1<<20)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok && data != "" {
				var m map[string]any
				if json.Unmarshal([]byte(data), &m) == nil {
					ch <- m
				}
			}
		}
	}()
	return ch
}

// result waits for the response with a result and returns its text.
func resultText(t *testing.T, ch <-chan map[string]any) string {
	t.Helper()
	for m := range ch {
		if res, ok := m["result"].(map[string]any); ok {
			content, _ := res["content"].([]any)
			if len(content) == 0 {
				return ""
			}
			text, _ := content[0].(map[string]any)["text"].(string)
			return text
		}
		if e, ok := m["error"]; ok {
			t.Fatalf("error: %v", e)
		}
	}
	t.Fatal("the stream ended without a result")
	return ""
}

func TestLegacySessionAcrossReplicas(t *testing.T) {
	t.Parallel()
	rs := start(t, 3)
	a, b, c := rs[0].url, rs[1].url, rs[2].url
	sid := initialize(t, a, "alice")
	if resp := post(t, b, "alice", sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("initialized on B: %d", resp.StatusCode)
	}
	// Any replica answers the session's requests.
	for i, url := range []string{a, b, c} {
		resp := post(t, url, "alice", sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`)
		if got := resultText(t, events(resp)); got != "hi" {
			t.Errorf("replica %d answered %q", i, got)
		}
	}
	// Another subject cannot use it on any replica, and changes nothing.
	for i, url := range []string{a, b, c} {
		resp := post(t, url, "bob", sid, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`)
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("bob on replica %d: %d, want 404", i, resp.StatusCode)
		}
	}

	// A question asked by a tool running on A is answered through B.
	resp := post(t, a, "alice", sid, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"ask"}}`)
	stream := events(resp)
	var askID any
	for m := range stream {
		if m["method"] == "elicitation/create" {
			askID = m["id"]
			break
		}
	}
	if askID == nil {
		t.Fatal("no question came")
	}
	answer, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": askID, "result": map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}}})
	if r := post(t, b, "alice", sid, string(answer)); r.StatusCode != http.StatusAccepted {
		t.Fatalf("answer on B: %d", r.StatusCode)
	}
	if got := resultText(t, stream); got != "accept:Ada" {
		t.Fatalf("the tool on A got %q", got)
	}

	// Ended on C: gone everywhere.
	req, _ := http.NewRequest(http.MethodDelete, c, nil)
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("X-User", "alice")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	del, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, del.Body)
	del.Body.Close()
	if del.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE on C: %d", del.StatusCode)
	}
	// Once A and B have heard of the end, none serves the session.
	rs[0].waitHeard(t, sid, backend.RelayClosed)
	rs[1].waitHeard(t, sid, backend.RelayClosed)
	for i, url := range []string{a, b, c} {
		resp := post(t, url, "alice", sid, `{"jsonrpc":"2.0","id":5,"method":"ping"}`)
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("after DELETE, replica %d: %d, want 404", i, resp.StatusCode)
		}
	}
}

func TestStreamOnAnotherReplica(t *testing.T) {
	t.Parallel()
	rs := start(t, 2)
	a, b := rs[0], rs[1]
	sid := initialize(t, a.url, "alice")
	post(t, a.url, "alice", sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	// The session's own stream is held by B, and A has heard so.
	stream, _ := openStream(t, b.url, sid)
	a.waitHeard(t, sid, "stream")
	// Subscribed through A; the update is raised on A.
	if got := <-events(post(t, a.url, "alice", sid, `{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"file:///watched"}}`)); got["result"] == nil {
		t.Fatalf("subscribe on A: %v", got)
	}
	a.srv.ResourceUpdated("file:///other")
	a.srv.ResourceUpdated("file:///watched")
	a.srv.NotifyListChanged(sake.ListTools)
	var got []string
	for m := range stream {
		method, _ := m["method"].(string)
		if p, ok := m["params"].(map[string]any); ok && p["uri"] != nil {
			method += " " + p["uri"].(string)
		}
		got = append(got, method)
		if len(got) == 2 {
			break
		}
	}
	want := "[notifications/resources/updated file:///watched notifications/tools/list_changed]"
	if s := strings.Join(got, ","); "["+strings.ReplaceAll(s, ",", " ")+"]" != want {
		t.Errorf("B's stream got %v, want %s", got, want)
	}
}

// openStream opens the session's own stream (GET) on url and returns its
// messages once it is attached, and a func closing it.
func openStream(t *testing.T, url, sid string) (<-chan map[string]any, func()) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("X-User", "alice")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	get, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { get.Body.Close() })
	if get.StatusCode != http.StatusOK {
		t.Fatalf("GET: %d", get.StatusCode)
	}
	// The stream is attached once its first (priming) event has come.
	body := bufio.NewReader(get.Body)
	for {
		line, err := body.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if line == "\n" {
			break
		}
	}
	return eventsFrom(get, body), func() { get.Body.Close() }
}

// A change made on one replica (the log level, DELETE) holds for a
// request on another once the change's notice has been delivered there:
// the other replica's record in memory is replaced or dropped, never
// served stale.
func TestSessionChangeSeenOnAnotherReplica(t *testing.T) {
	t.Parallel()
	rs := start(t, 2)
	a, b := rs[0], rs[1]
	sid := initialize(t, a.url, "alice")
	post(t, a.url, "alice", sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	b.waitHeard(t, sid, backend.RelayChanged) // initialize
	b.waitHeard(t, sid, backend.RelayChanged) // notifications/initialized
	level := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"level"}}`
	if got := resultText(t, events(post(t, b.url, "alice", sid, level))); got != "" {
		t.Fatalf("level on B before any was set: %q", got)
	}
	if pgreplica.CachedSessions(b.r) != 1 {
		t.Fatalf("B keeps %d session records, want 1", pgreplica.CachedSessions(b.r))
	}
	for _, lv := range []string{"info", "error"} {
		set := `{"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":"` + lv + `"}}`
		if resp := post(t, a.url, "alice", sid, set); resp.StatusCode != http.StatusOK {
			t.Fatalf("setLevel on A: %d", resp.StatusCode)
		}
		b.waitHeard(t, sid, backend.RelayChanged)
		if got := resultText(t, events(post(t, b.url, "alice", sid, level))); got != lv {
			t.Fatalf("level on B once the change was delivered: %q, want %q", got, lv)
		}
	}
	// A bad level changes nothing anywhere.
	bad := post(t, a.url, "alice", sid, `{"jsonrpc":"2.0","id":4,"method":"logging/setLevel","params":{"level":"loud"}}`)
	if m := <-events(bad); m["error"] == nil {
		t.Fatalf("a bad level was accepted: %v", m)
	}
	if got := resultText(t, events(post(t, b.url, "alice", sid, level))); got != "error" {
		t.Fatalf("level on B after a refused change: %q", got)
	}
	req, _ := http.NewRequest(http.MethodDelete, a.url, nil)
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("X-User", "alice")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	del, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	del.Body.Close()
	b.waitHeard(t, sid, backend.RelayClosed)
	if resp := post(t, b.url, "alice", sid, level); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("B after the DELETE on A was delivered: %d, want 404", resp.StatusCode)
	}
	if n := pgreplica.CachedSessions(b.r); n != 0 {
		t.Fatalf("B still keeps %d session records", n)
	}
}

// A replica whose HTTP handler stops (a rolling deploy closes it before the
// server shuts down) ends only its own copies of the sessions: a shared
// session goes on in the table and on the other replicas.
func TestStoppingHandlerLeavesSharedSessions(t *testing.T) {
	t.Parallel()
	url, schema, pool := pgtest.Schema(t)
	ctx := context.Background()
	r, err := pgreplica.Open(ctx, pgtest.Pool(t, url, schema))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close(ctx) })
	srv := sake.MustNew(app{}, r.Options()...)
	h := plug.New(srv, plug.Identify(func(req *http.Request) (*sake.Identity, error) {
		return &sake.Identity{Subject: req.Header.Get("X-User")}, nil
	}))
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	sid := initialize(t, ts.URL, "alice")
	h.Close()
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM `+schema+`.sake_sessions WHERE id = $1`, sid).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Fatalf("after the handler closed, the table holds %d records of the session, want 1", n)
	}
	// Another replica serves it.
	r2, err := pgreplica.Open(ctx, pgtest.Pool(t, url, schema))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r2.Close(ctx) })
	h2 := plug.New(sake.MustNew(app{}, r2.Options()...), plug.Identify(func(req *http.Request) (*sake.Identity, error) {
		return &sake.Identity{Subject: req.Header.Get("X-User")}, nil
	}))
	t.Cleanup(h2.Close)
	ts2 := httptest.NewServer(h2)
	t.Cleanup(ts2.Close)
	resp := post(t, ts2.URL, "alice", sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"still here"}}}`)
	if got := resultText(t, events(resp)); got != "still here" {
		t.Fatalf("the other replica answered %q", got)
	}
}
