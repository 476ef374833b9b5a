package saketest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"runtime/pprof"
	"sync"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/client/memory"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/tasks"
	"github.com/sakemcp/sake-go/sake/transport"
)

// ErrClosed is returned by calls on a client after Close.
var ErrClosed = errors.New("saketest: the client is closed")

// Client is a test client connected to a server in memory: a
// sake/client.Client whose transport is the server itself (or, with
// Handler, the host's HTTP stack in process), with what tests need on
// top. Its methods are safe for concurrent use.
type Client struct {
	*state
	ctx context.Context // nil: the test's context
}

// state is what a client and its WithContext copies share.
type state struct {
	t    testing.TB
	srv  *sake.Server
	opts options
	cl   *client.Client
	info SessionInfo

	mu            sync.Mutex
	notifications []protocol.Notification
	asked         []Ask
	panics        []string // panics of user code not reported yet
	wire          traceRing
	label         string // goroutine label of what the client starts; "" with WithoutLeakCheck
	labels        pprof.LabelSet
	ownsTasks     bool // Connect made the server's task manager (Tasks)
}

// SessionInfo is what the client learned when it connected.
type SessionInfo struct {
	Era             sake.Era
	ProtocolVersion string
	// SessionID is the legacy session's id ("" in the modern era).
	SessionID    string
	ServerInfo   protocol.Implementation
	Capabilities json.RawMessage
	Instructions string
	// SupportedVersions is what server/discover listed (modern era).
	SupportedVersions []string
}

// Connect builds a server from impl (a value for sake.New, or a
// *sake.Server) and connects a client to it. In the modern era it calls
// server/discover; in the legacy era it runs the handshake. It fails the
// test if the server cannot be built or refuses the connection. The
// client is closed when the test ends.
func Connect(t testing.TB, impl any, opts ...Option) *Client {
	t.Helper()
	o := options{clientInfo: protocol.Implementation{Name: "saketest", Version: "1.0.0"}}
	for _, opt := range opts {
		opt(&o)
	}
	if err := o.checkClaims(); err != nil {
		t.Fatal(err)
	}
	c := &Client{state: &state{t: t, opts: o}}
	if !o.noLeakCheck {
		c.label = nextLabel()
		c.labels = pprof.Labels(labelKey, c.label)
		wait := o.waitTimeout
		if wait <= 0 {
			wait = defaultWaitTimeout
		}
		// Registered first, so it runs last: after Close and the task
		// manager's shutdown.
		t.Cleanup(func() {
			if !t.Failed() {
				c.checkLeaks(wait)
			}
		})
	}
	t.Cleanup(c.printTrace)
	srv, ok := impl.(*sake.Server)
	if !ok && o.handler != nil && impl == nil {
		ok = true // the host's stack serves; no server value to build
	}
	if ok && o.ownTasks {
		t.Fatalf("saketest: the Tasks option gives a task manager to a server Connect builds; give sake.Tasks to sake.New for a *sake.Server")
	}
	if !ok {
		var err error
		serverOpts := append([]sake.Option{sake.Logger(testLogger(t, !o.returnPanics))}, o.serverOpts...)
		c.labelled(context.Background(), func(context.Context) {
			if o.ownTasks {
				m := tasks.New(o.taskOptions...)
				c.ownsTasks = true
				serverOpts = append(serverOpts, sake.Tasks(m))
				t.Cleanup(func() {
					ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
					defer cancel()
					if err := m.Shutdown(ctx); err != nil {
						t.Errorf("saketest: the task manager did not shut down: %v", err)
					}
				})
			}
			srv, err = sake.New(impl, serverOpts...)
		})
		if err != nil {
			t.Fatalf("saketest: %v", err)
		}
	}
	c.srv = srv
	var tr client.Transport
	if o.handler != nil {
		var err error
		if tr, err = handlerTransport(t, &o); err != nil {
			t.Fatalf("saketest: %v", err)
		}
	} else {
		tr = memory.Transport(srv, c.memoryOptions()...)
	}
	var err error
	c.run(func(ctx context.Context) {
		c.cl, err = client.Connect(ctx, tr, c.clientOptions()...)
	})
	c.reportPanics()
	if err != nil {
		t.Fatalf("saketest: the server refused the connection: %v", c.fix(err))
	}
	info := c.cl.Info()
	c.info = SessionInfo{Era: info.Era, ProtocolVersion: info.ProtocolVersion, SessionID: info.SessionID,
		ServerInfo: info.Server, Capabilities: info.Capabilities, Instructions: info.Instructions,
		SupportedVersions: info.SupportedVersions}
	t.Cleanup(c.Close)
	return c
}

// clientOptions are the options of the client underneath.
func (c *Client) clientOptions() []client.Option {
	o := &c.opts
	version := protocol.ModernVersion
	if o.legacy {
		version = o.version
	}
	opts := []client.Option{
		client.ClientInfo(o.clientInfo.Name, o.clientInfo.Version),
		client.ProtocolVersion(version),
		client.Capabilities(o.capabilities),
		client.OnMessage(c.onMessage),
		client.ObserveNotifications(c.onNotification),
		client.OnQuestion(c.onQuestion),
		// Every request carries a progress token, so that servers report
		// progress; the notifications are recorded as they arrive.
		client.OnProgress(func(client.Progress) {}),
	}
	if o.logLevel != "" {
		opts = append(opts, client.LogLevel(o.logLevel))
	}
	if o.noTasks {
		opts = append(opts, client.WithoutTasks())
	}
	if fn := o.onInput; fn != nil {
		opts = append(opts, client.OnElicit(func(_ context.Context, r *protocol.ElicitRequest) (*protocol.ElicitResult, error) {
			a := fn(protocol.ElicitRequest{Mode: r.Mode, Message: r.Message, RequestedSchema: r.RequestedSchema, URL: r.URL})
			return &protocol.ElicitResult{Action: a.Action, Content: a.Content}, nil
		}))
	} else if o.capabilities.Elicitation != nil {
		opts = append(opts, client.OnElicit(func(context.Context, *protocol.ElicitRequest) (*protocol.ElicitResult, error) {
			return nil, errNoHandler("elicitation", "saketest.OnInput")
		}))
	}
	if fn := o.sampling; fn != nil {
		opts = append(opts, client.OnSample(func(_ context.Context, r *sake.SamplingRequest) (*sake.SamplingResult, error) {
			return fn(*r)
		}))
	} else if o.capabilities.Sampling != nil {
		opts = append(opts, client.OnSample(func(context.Context, *sake.SamplingRequest) (*sake.SamplingResult, error) {
			return nil, errNoHandler("sampling", "saketest.Sampling or saketest.SamplingText")
		}))
	}
	if o.roots != nil {
		opts = append(opts, client.Roots(o.roots...))
	} else if o.capabilities.Roots != nil {
		opts = append(opts, client.OnRoots(func(context.Context) ([]sake.Root, error) {
			return nil, errNoHandler("roots", "saketest.Roots")
		}))
	}
	return opts
}

// errNoHandler is the answer of a client that declares a capability
// (Capabilities) without the option that answers for it.
func errNoHandler(capability, option string) error {
	return sake.NewError(sake.CodeMethodNotFound, "saketest: the client declares the %s capability but has nothing to answer with: pass %s", capability, option)
}

// memoryOptions are the options of the in-memory transport: the
// simulated caller, the endpoint URL, the panics of user code.
func (c *Client) memoryOptions() []memory.Option {
	o := &c.opts
	opts := []memory.Option{memory.BaseURL(o.baseURL)}
	switch {
	case o.principalVaries:
		opts = append(opts, memory.IdentityFunc(c.identity))
	case o.principal != nil || o.withToken:
		opts = append(opts, memory.AsIdentity(c.identity()))
	}
	if !o.returnPanics {
		opts = append(opts, memory.OnPanic(c.notePanic))
	}
	return opts
}

// onMessage keeps the trace.
func (c *Client) onMessage(sent bool, msg []byte) {
	if sent {
		c.trace("->", msg)
		return
	}
	c.trace("<-", msg)
}

// onNotification records a notification the server sent, as the client
// read it.
func (c *Client) onNotification(n protocol.Notification) {
	if bytes.Contains(n.Params, []byte(`"io.modelcontextprotocol/subscriptionId"`)) {
		return // the client's own subscription (awaiting a task)
	}
	note := protocol.Notification{Method: n.Method, Params: n.Params}
	c.mu.Lock()
	c.notifications = append(c.notifications, note)
	c.mu.Unlock()
	if c.opts.onNotification != nil {
		c.opts.onNotification(note)
	}
}

// onQuestion records a question of the server.
func (c *Client) onQuestion(method string, params json.RawMessage) {
	c.mu.Lock()
	c.asked = append(c.asked, Ask{Method: method, Params: params})
	c.mu.Unlock()
}

// Session returns what the client learned when it connected.
func (c *Client) Session() SessionInfo { return c.info }

// Server returns the server the client is connected to.
func (c *Client) Server() *sake.Server { return c.srv }

// Close ends the client (and its legacy session). Calls after it return
// ErrClosed. Connect arranges for it to run when the test ends.
func (c *Client) Close() {
	c.t.Helper()
	defer c.reportPanics()
	c.run(func(context.Context) { _ = c.cl.Close() })
}

// Notifications returns every notification the server sent during this
// client's calls, in order.
func (c *Client) Notifications() []protocol.Notification {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]protocol.Notification(nil), c.notifications...)
}

// Request sends any request and returns its raw result: the escape hatch
// for methods without a helper. params is encoded as a JSON object; in
// the modern era the client adds its _meta. The server's questions are
// answered on the way, as for every call.
func (c *Client) Request(method string, params any) (json.RawMessage, error) {
	c.t.Helper()
	defer c.reportPanics()
	var raw json.RawMessage
	var err error
	c.run(func(ctx context.Context) { raw, err = c.cl.Request(ctx, method, params) })
	return raw, c.fix(err)
}

// Send hands raw bytes to the server as this client (with its session)
// and returns the reply as the server made it (Body, with its Method,
// ErrorCode and Era): for tests of malformed messages.
func (c *Client) Send(msg []byte) sake.Reply {
	c.t.Helper()
	defer c.reportPanics()
	var a client.RawAnswer
	var err error
	c.run(func(ctx context.Context) { a, err = c.cl.Exchange(ctx, msg) })
	if err != nil {
		c.t.Errorf("saketest: Send: %v", c.fix(err))
	}
	return sake.Reply{Method: a.Method, Body: a.Body, ErrorCode: a.ErrorCode, Era: c.info.Era}
}

// run runs one call of the client under its context, marked with its test
// (OwnBroadcasts) and its goroutine label (the leak check).
func (c *Client) run(fn func(ctx context.Context)) {
	c.labelled(c.callContext(), fn)
}

// callContext is the context of one call: the client's, marked with its
// test (OwnBroadcasts) and, through the host's stack, where the server is
// the stack's and no transport of saketest's sees its panics, carrying
// the handler of the panics the call causes.
func (c *Client) callContext() context.Context {
	ctx := context.WithValue(c.context(), originKey{}, c.t)
	if c.opts.handler != nil && !c.opts.returnPanics {
		ctx = transport.WithPanicHandler(ctx, c.notePanic)
	}
	return ctx
}

// fix turns an error of the client underneath into the one saketest
// documents.
func (c *Client) fix(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, client.ErrClosed) {
		return ErrClosed
	}
	var he *client.HTTPError
	if errors.As(err, &he) {
		challenge := he.Header.Get("WWW-Authenticate")
		if env, err := protocol.Peek(he.Body); he.RPC != nil && err == nil && len(env.ID) > 0 && string(env.ID) != "null" {
			// The server's JSON-RPC answer, sent with an HTTP error status.
			return withChallenge(protocol.AuthErrorFrom(he.RPC), challenge)
		}
		return &HTTPError{StatusCode: he.Status, Challenge: challenge, Body: string(he.Body)}
	}
	return err
}

func (c *Client) context() context.Context {
	if c.ctx != nil {
		return c.ctx
	}
	if tc, ok := c.t.(interface{ Context() context.Context }); ok {
		return tc.Context()
	}
	return context.Background()
}

// WithContext returns a client whose calls run under ctx: cancelling it
// cancels the call in progress, as a client closing its stream (modern) or
// sending notifications/cancelled (legacy) does. It shares everything else
// (session, records) with c.
func (c *Client) WithContext(ctx context.Context) *Client {
	return &Client{state: c.state, ctx: ctx}
}

// WithVersion returns a client whose CallTool, GetPrompt and
// ReadResource ask for version v of the component (ToolDef.Version)
// instead of the highest. It shares everything else with c.
func (c *Client) WithVersion(v string) *Client {
	return &Client{state: c.state, ctx: client.WithVersion(c.context(), v)}
}
