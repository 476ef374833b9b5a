package kittest

import (
	"context"
	"errors"
	"io"
	"net/http/httptest"
	"strings"
	"sync"
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

// Kit is the server the client's and the proxy's tests call.
type Kit struct {
	Started  chan struct{} // Slow began
	Once     sync.Once
	Stopped  chan error // Slow's context ended
	Release  chan struct{}
	RelOnce  sync.Once
	TaskSeen chan struct{}
}

func NewKit() *Kit {
	return &Kit{Started: make(chan struct{}), Stopped: make(chan error, 1), Release: make(chan struct{}), TaskSeen: make(chan struct{})}
}

// Declare describes the kit's components.
func (k *Kit) Declare(d *sake.Declarations) {
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

// EchoArgs are Echo's arguments.
type EchoArgs struct {
	Text string `json:"text"`
}

// Echo returns the text it is given.
func (k *Kit) Echo(_ *sake.Context, a EchoArgs) (string, error) { return a.Text, nil }

// Fail fails as a tool: an isError result.
func (k *Kit) Fail(*sake.Context) (*protocol.ToolResult, error) {
	return protocol.ErrorResult("it went wrong"), nil
}

// Refuse fails with a protocol error (-32602).
func (k *Kit) Refuse(*sake.Context) (string, error) {
	return "", protocol.InvalidParams("not like this")
}

// Report sends progress and a log message.
func (k *Kit) Report(ctx *sake.Context) (string, error) {
	ctx.Progress(1, 2, "half")
	ctx.Progress(2, 2, "done")
	ctx.Log(protocol.LevelInfo, "kit", "reported")
	return "reported", nil
}

// NameForm is the form Ask sends.
type NameForm struct {
	Name string `json:"name"`
}

// Ask asks the user, the model and the roots.
func (k *Kit) Ask(ctx *sake.Context) (string, error) {
	var f NameForm
	action, err := ctx.Elicit("name", "Your name?", &f)
	if err != nil {
		return "", err
	}
	res, err := ctx.Sample("model", protocol.SamplingRequest{Messages: []protocol.SamplingMessage{{Role: protocol.RoleUser, Content: protocol.Text("hi")}}, MaxTokens: 10})
	if err != nil {
		return "", err
	}
	roots, err := ctx.ListRoots("roots")
	if err != nil {
		return "", err
	}
	return string(action) + " " + f.Name + " / " + res.Text() + " / " + roots[0].URI, nil
}

// Slow waits until its call is cancelled.
func (k *Kit) Slow(ctx *sake.Context) (string, error) {
	k.Once.Do(func() { close(k.Started) })
	<-ctx.Done()
	k.Stopped <- ctx.Err()
	return "", ctx.Err()
}

// Admin needs the admin scope.
func (k *Kit) Admin(*sake.Context) (string, error) { return "admin", nil }

// Job runs as a task until released.
func (k *Kit) Job(ctx *sake.Context) (string, error) {
	select {
	case <-k.Release:
		return "job done", nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// OKForm is the form Confirm sends.
type OKForm struct {
	OK bool `json:"ok"`
}

// Confirm runs as a task that asks the user.
func (k *Kit) Confirm(ctx *sake.Context) (string, error) {
	var f OKForm
	action, err := ctx.Elicit("go_on", "Go on?", &f)
	if err != nil {
		return "", err
	}
	if !f.OK {
		return "stopped", nil
	}
	return string(action) + " confirmed", nil
}

// RegionArgs are Region's arguments.
type RegionArgs struct {
	Region string `json:"region"`
}

// Region takes an argument sent as a header.
func (k *Kit) Region(_ *sake.Context, a RegionArgs) (string, error) { return "region " + a.Region, nil }

// Readme is the kit://readme resource.
func (k *Kit) Readme(*sake.Context) (string, error) { return "read me", nil }

// ItemVars are the Item template's variables.
type ItemVars struct {
	ID string `json:"id"`
}

// Item is the kit://items/{id} template.
func (k *Kit) Item(_ *sake.Context, v ItemVars) (string, error) {
	if v.ID == "missing" {
		return "", protocol.ErrResourceNotFound
	}
	return "item " + v.ID, nil
}

// ItemIDs completes the item ids.
func (k *Kit) ItemIDs(_ *sake.Context, r protocol.CompleteRequest) ([]string, error) {
	var out []string
	for _, id := range []string{"apple", "apricot", "banana"} {
		if strings.HasPrefix(id, r.Value) {
			out = append(out, id)
		}
	}
	return out, nil
}

// GreetArgs are the Greet prompt's arguments.
type GreetArgs struct {
	Who string `json:"who"`
}

// Greet is the greeting prompt.
func (k *Kit) Greet(_ *sake.Context, a GreetArgs) (string, error) { return "Hello, " + a.Who, nil }

// NewServer builds the kit's server with tasks and small pages.
func NewServer(t testing.TB) (*sake.Server, *Kit) {
	t.Helper()
	m := tasks.New()
	t.Cleanup(func() { _ = m.Shutdown(context.Background()) })
	k := NewKit()
	srv, err := sake.New(k, sake.Tasks(m), sake.WithLimits(sake.Limits{PageSize: 3}))
	if err != nil {
		t.Fatal(err)
	}
	return srv, k
}

// Transport is one way to reach a server.
type Transport struct {
	Name string
	Make func(t *testing.T, srv *sake.Server) client.Transport
}

// Transports are the ways the tests reach a server: in memory, over HTTP
// and over stdio framing.
var Transports = []Transport{
	{"memory", func(t *testing.T, srv *sake.Server) client.Transport { return memory.Transport(srv) }},
	{"http", func(t *testing.T, srv *sake.Server) client.Transport {
		h := plug.New(srv)
		ts := httptest.NewServer(h)
		t.Cleanup(func() { ts.Close(); h.Close() })
		return client.HTTP(ts.URL, ts.Client())
	}},
	{"stdio", func(t *testing.T, srv *sake.Server) client.Transport {
		return PipeTo(t, srv)
	}},
}

// PipeTo serves srv over stdio framing on pipes.
func PipeTo(t testing.TB, srv *sake.Server) client.Transport {
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

// Era is one way a client may settle the protocol.
type Era struct {
	Name string
	Opts []client.Option
	Want protocol.Era
}

// Eras are the ways a client may settle the protocol.
var Eras = []Era{
	{"negotiated", nil, protocol.EraModern},
	{"legacy", []client.Option{client.ProtocolVersion(protocol.LegacyVersion)}, protocol.EraLegacy},
}

// Connect connects a client to srv over tr.
func Connect(t *testing.T, tr Transport, srv *sake.Server, opts ...client.Option) *client.Client {
	t.Helper()
	c, err := client.Connect(t.Context(), tr.Make(t, srv), opts...)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// Poll closes its stream half-way (SSE polling): the rest arrives on the
// resumed stream.
func (k *Kit) Poll(ctx *sake.Context) (string, error) {
	ctx.Progress(1, 2, "before")
	ctx.CloseStream()
	ctx.Progress(2, 2, "after")
	return "polled", nil
}
