package proxy_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/client/memory"
	"github.com/sakemcp/sake-go/sake/plug"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/stdio"
	"github.com/sakemcp/sake-go/sake/tasks"
)

// kit is the server the client's tests call.
type kit struct {
	started  chan struct{} // Slow began
	once     sync.Once
	stopped  chan error // Slow's context ended
	release  chan struct{}
	taskSeen chan struct{}
}

func newKit() *kit {
	return &kit{started: make(chan struct{}), stopped: make(chan error, 1), release: make(chan struct{}), taskSeen: make(chan struct{})}
}

func (k *kit) Declare(d *sake.Declarations) {
	d.Tool("Echo").Description("Echoes the text.")
	d.Tool("Fail").Description("Fails as a tool.")
	d.Tool("Refuse").Description("Fails with a protocol error.")
	d.Tool("Report").Description("Reports progress and logs.")
	d.Tool("Ask").Description("Asks the user, the model and the roots.")
	d.Tool("Slow").Description("Waits until cancelled.")
	d.Tool("Admin").Description("Needs the admin scope.").Scopes("admin")
	d.Tool("Job").Description("Runs as a task.").Task(sake.TaskRequired).TaskTiming(time.Hour, time.Hour)
	d.Tool("Confirm").Description("A task that asks.").Task(sake.TaskRequired).TaskTiming(time.Hour, time.Hour)
	d.Tool("Region").Description("Takes a header argument.").InputSchema([]byte(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}`))
	d.Resource("Readme", "kit://readme").Description("The readme.").MIMEType("text/plain")
	d.ResourceTemplate("Item", "kit://items/{id}").Description("One item.").Complete("id", "ItemIDs")
	d.Prompt("Greet").Description("Greets someone.")
}

type echoArgs struct {
	Text string `json:"text"`
}

func (k *kit) Echo(_ *sake.Context, a echoArgs) (string, error) { return a.Text, nil }

func (k *kit) Fail(*sake.Context) (*sake.ToolResult, error) {
	return sake.ErrorResult("it went wrong"), nil
}

func (k *kit) Refuse(*sake.Context) (string, error) {
	return "", sake.InvalidParams("not like this")
}

func (k *kit) Report(ctx *sake.Context) (string, error) {
	ctx.Progress(1, 2, "half")
	ctx.Progress(2, 2, "done")
	ctx.Log(sake.LevelInfo, "kit", "reported")
	return "reported", nil
}

type nameForm struct {
	Name string `json:"name"`
}

func (k *kit) Ask(ctx *sake.Context) (string, error) {
	var f nameForm
	action, err := ctx.Elicit("name", "Your name?", &f)
	if err != nil {
		return "", err
	}
	res, err := ctx.Sample("model", sake.SamplingRequest{Messages: []sake.SamplingMessage{{Role: sake.RoleUser, Content: sake.Text("hi")}}, MaxTokens: 10})
	if err != nil {
		return "", err
	}
	roots, err := ctx.ListRoots("roots")
	if err != nil {
		return "", err
	}
	return string(action) + " " + f.Name + " / " + res.Text() + " / " + roots[0].URI, nil
}

func (k *kit) Slow(ctx *sake.Context) (string, error) {
	k.once.Do(func() { close(k.started) })
	<-ctx.Done()
	k.stopped <- ctx.Err()
	return "", ctx.Err()
}

func (k *kit) Admin(*sake.Context) (string, error) { return "admin", nil }

func (k *kit) Job(ctx *sake.Context) (string, error) {
	select {
	case <-k.release:
		return "job done", nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

type okForm struct {
	OK bool `json:"ok"`
}

func (k *kit) Confirm(ctx *sake.Context) (string, error) {
	var f okForm
	action, err := ctx.Elicit("go_on", "Go on?", &f)
	if err != nil {
		return "", err
	}
	if !f.OK {
		return "stopped", nil
	}
	return string(action) + " confirmed", nil
}

type regionArgs struct {
	Region string `json:"region"`
}

func (k *kit) Region(_ *sake.Context, a regionArgs) (string, error) { return "region " + a.Region, nil }

func (k *kit) Readme(*sake.Context) (string, error) { return "read me", nil }

type itemVars struct {
	ID string `json:"id"`
}

func (k *kit) Item(_ *sake.Context, v itemVars) (string, error) {
	if v.ID == "missing" {
		return "", sake.ErrResourceNotFound
	}
	return "item " + v.ID, nil
}

func (k *kit) ItemIDs(_ *sake.Context, r sake.CompleteRequest) ([]string, error) {
	var out []string
	for _, id := range []string{"apple", "apricot", "banana"} {
		if strings.HasPrefix(id, r.Value) {
			out = append(out, id)
		}
	}
	return out, nil
}

type greetArgs struct {
	Who string `json:"who"`
}

func (k *kit) Greet(_ *sake.Context, a greetArgs) (string, error) { return "Hello, " + a.Who, nil }

// newKitServer builds the kit's server with tasks and small pages.
func newKitServer(t *testing.T) (*sake.Server, *kit) {
	t.Helper()
	m := tasks.New()
	t.Cleanup(func() { _ = m.Shutdown(context.Background()) })
	k := newKit()
	srv, err := sake.New(k, sake.Tasks(m), sake.PageSize(3))
	if err != nil {
		t.Fatal(err)
	}
	return srv, k
}

// transport is one way to reach a server.
type transport struct {
	name string
	make func(t *testing.T, srv *sake.Server) client.Transport
}

var transports = []transport{
	{"memory", func(t *testing.T, srv *sake.Server) client.Transport { return memory.Transport(srv) }},
	{"http", func(t *testing.T, srv *sake.Server) client.Transport {
		h := plug.New(srv)
		ts := httptest.NewServer(h)
		t.Cleanup(func() { ts.Close(); h.Close() })
		return client.HTTP(ts.URL, ts.Client())
	}},
	{"stdio", func(t *testing.T, srv *sake.Server) client.Transport {
		return pipeTo(t, srv)
	}},
}

// pipeTo serves srv over stdio framing on pipes.
func pipeTo(t *testing.T, srv *sake.Server) client.Transport {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		err := stdio.Serve(ctx, srv, inR, outW)
		outW.Close()
		done <- err
	}()
	t.Cleanup(func() {
		inW.Close()
		err := <-done
		cancel()
		// The client closing its end while the server still has something
		// to say (a task's last status) is how a stdio session ends.
		if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.ErrClosedPipe) {
			t.Errorf("stdio.Serve: %v", err)
		}
	})
	return client.Stream(outR, inW)
}

// eras are the ways a client may settle the protocol.
var eras = []struct {
	name string
	opts []client.Option
	want sake.Era
}{
	{"negotiated", nil, sake.EraModern},
	{"legacy", []client.Option{client.ProtocolVersion(protocol.LegacyVersion)}, sake.EraLegacy},
}

// connect connects a client to srv over tr.
func connect(t *testing.T, tr transport, srv *sake.Server, opts ...client.Option) *client.Client {
	t.Helper()
	c, err := client.Connect(t.Context(), tr.make(t, srv), opts...)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// Poll closes its stream half-way (SSE polling): the rest arrives on the
// resumed stream.
func (k *kit) Poll(ctx *sake.Context) (string, error) {
	ctx.Progress(1, 2, "before")
	ctx.CloseStream()
	ctx.Progress(2, 2, "after")
	return "polled", nil
}

// recorder wraps a handler and counts what reaches it.
type recorder struct {
	h       http.Handler
	mu      sync.Mutex
	methods []string
	bodies  [][]byte
	headers []http.Header
	forget  atomic.Bool // answer 404 to the next session request
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	r.mu.Lock()
	r.methods = append(r.methods, req.Method)
	r.bodies = append(r.bodies, body)
	r.headers = append(r.headers, req.Header.Clone())
	r.mu.Unlock()
	if req.Method == http.MethodPost && req.Header.Get("Mcp-Session-Id") != "" && r.forget.CompareAndSwap(true, false) {
		http.Error(w, "session not found", http.StatusNotFound)
		return
	}
	r.h.ServeHTTP(w, req)
}

func askOptions(asked *[]string, mu *sync.Mutex) []client.Option {
	note := func(s string) {
		mu.Lock()
		*asked = append(*asked, s)
		mu.Unlock()
	}
	return []client.Option{
		client.OnElicit(func(_ context.Context, r *protocol.ElicitRequest) (*protocol.ElicitResult, error) {
			note("elicit " + r.Mode + " " + r.Message)
			return client.Accept(map[string]any{"name": "Ada"}), nil
		}),
		client.OnSample(func(_ context.Context, r *sake.SamplingRequest) (*sake.SamplingResult, error) {
			note("sample")
			return &sake.SamplingResult{Content: sake.Text("model says hi"), Model: "m"}, nil
		}),
		client.Roots(sake.Root{URI: "file:///work", Name: "work"}),
	}
}

// httpKitFor serves srv over HTTP through a recorder.
func httpKitFor(t *testing.T, srv *sake.Server) (*sake.Server, *recorder, string) {
	h := plug.New(srv)
	rec := &recorder{h: h}
	ts := httptest.NewServer(rec)
	t.Cleanup(func() { ts.Close(); h.Close() })
	return srv, rec, ts.URL
}

func isCode(err error, code int) bool {
	var e *sake.Error
	return errors.As(err, &e) && e.Code == code
}
