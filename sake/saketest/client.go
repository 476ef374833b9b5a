package saketest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/internal/jsonscan"
	"github.com/sakemcp/sake-go/sake/tasks"
)

// ErrClosed is returned by calls on a client after Close.
var ErrClosed = errors.New("saketest: the client is closed")

// Client is a test client connected to a server in memory. Its methods
// are safe for concurrent use.
type Client struct {
	*state
	ctx context.Context // nil: the test's context
}

// state is what a client and its WithContext copies share.
type state struct {
	t    testing.TB
	srv  *sake.Server
	opts options
	meta []byte // the modern _meta members, without braces

	mu            sync.Mutex
	nextID        int64
	session       *sake.Session
	closed        bool
	notifications []Notification
	asked         []Ask
	info          SessionInfo
	legacyVersion string
	http          *httpTransport
	in            *sake.Inbound // reused while the session and identity stay the same
	taskTools     map[string]bool
	panics        []string // panics of user code not reported yet
	wire          traceRing
	label         string // goroutine label of what the client starts; "" with NoLeakCheck
	ownsTasks     bool   // Connect made the server's task manager (Tasks)
}

// Notification is a notification the server sent during a call.
type Notification struct {
	Method string
	Params json.RawMessage
}

// SessionInfo is what the client learned when it connected.
type SessionInfo struct {
	Era             sake.Era
	ProtocolVersion string
	// SessionID is the legacy session's id ("" in the modern era).
	SessionID    string
	ServerInfo   sake.Implementation
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
	o := options{clientInfo: sake.Implementation{Name: "saketest", Version: "1.0.0"}}
	for _, opt := range opts {
		opt(&o)
	}
	o.capabilities = o.clientCapabilities()
	c := &Client{state: &state{t: t, opts: o}}
	if !o.noLeakCheck {
		c.label = nextLabel()
		wait := o.waitTimeout
		if wait <= 0 {
			wait = Timeout
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
	modernCaps := o.capabilities
	if !o.noTasks && !modernCaps.HasExtension(sake.TaskExtension) {
		ext := map[string]json.RawMessage{sake.TaskExtension: json.RawMessage(`{}`)}
		for k, v := range modernCaps.Extensions {
			ext[k] = v
		}
		modernCaps.Extensions = ext
	}
	caps, err := json.Marshal(modernCaps)
	if err != nil {
		t.Fatalf("saketest: capabilities: %v", err)
	}
	info, _ := json.Marshal(o.clientInfo)
	m := []byte(`"io.modelcontextprotocol/protocolVersion":"` + sake.Modern + `","io.modelcontextprotocol/clientCapabilities":`)
	m = append(m, caps...)
	m = append(m, `,"io.modelcontextprotocol/clientInfo":`...)
	m = append(m, info...)
	if o.logLevel != "" {
		m = append(m, `,"io.modelcontextprotocol/logLevel":`...)
		m = strconv.AppendQuote(m, string(o.logLevel))
	}
	c.meta = m
	if o.handler != nil {
		ht, err := newHTTPTransport(t, &o)
		if err != nil {
			t.Fatalf("saketest: %v", err)
		}
		c.http = ht
	}
	if err := c.connect(); err != nil {
		t.Fatalf("saketest: the server refused the connection: %v", err)
	}
	t.Cleanup(c.Close)
	return c
}

func (c *Client) connect() error {
	if !c.opts.legacy {
		raw, err := c.Request("server/discover", nil)
		if err != nil {
			return err
		}
		var d struct {
			SupportedVersions []string        `json:"supportedVersions"`
			Capabilities      json.RawMessage `json:"capabilities"`
			Instructions      string          `json:"instructions"`
			Meta              struct {
				ServerInfo sake.Implementation `json:"io.modelcontextprotocol/serverInfo"`
			} `json:"_meta"`
		}
		if err := json.Unmarshal(raw, &d); err != nil {
			return fmt.Errorf("server/discover: %w", err)
		}
		c.info = SessionInfo{Era: sake.EraModern, ProtocolVersion: sake.Modern, ServerInfo: d.Meta.ServerInfo,
			Capabilities: d.Capabilities, Instructions: d.Instructions, SupportedVersions: d.SupportedVersions}
		return nil
	}
	params := map[string]any{"protocolVersion": c.opts.version, "capabilities": c.opts.capabilities, "clientInfo": c.opts.clientInfo}
	body, err := c.encode("initialize", params)
	if err != nil {
		return err
	}
	reply, err := c.exchange(context.Background(), body)
	if err != nil {
		return err
	}
	raw, err := decodeReply(reply.Body)
	if err != nil {
		return err
	}
	var r struct {
		ProtocolVersion string              `json:"protocolVersion"`
		Capabilities    json.RawMessage     `json:"capabilities"`
		ServerInfo      sake.Implementation `json:"serverInfo"`
		Instructions    string              `json:"instructions"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	c.mu.Lock()
	c.session = reply.Session
	c.legacyVersion = r.ProtocolVersion
	c.mu.Unlock()
	c.info = SessionInfo{Era: sake.EraLegacy, ProtocolVersion: r.ProtocolVersion, ServerInfo: r.ServerInfo,
		Capabilities: r.Capabilities, Instructions: r.Instructions}
	if reply.Session != nil {
		c.info.SessionID = reply.Session.ID()
	}
	if c.http != nil {
		c.info.SessionID = c.http.sessionID()
	}
	if _, err := c.exchange(context.Background(), []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); err != nil {
		return err
	}
	if c.opts.logLevel != "" {
		if _, err := c.Request("logging/setLevel", map[string]any{"level": c.opts.logLevel}); err != nil {
			return err
		}
	}
	return nil
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
	c.mu.Lock()
	sess := c.session
	c.closed = true
	c.mu.Unlock()
	if sess != nil {
		sess.Close()
	}
	if c.http != nil {
		c.http.close()
	}
}

// Notifications returns every notification the server sent during this
// client's calls, in order.
func (c *Client) Notifications() []Notification {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Notification(nil), c.notifications...)
}

func (c *Client) inbound() *sake.Inbound {
	c.mu.Lock()
	sess := c.session
	cached := c.in
	c.mu.Unlock()
	if cached != nil && cached.Session == sess && c.opts.principal == nil {
		return cached
	}
	in := &sake.Inbound{Session: sess, Stream: sake.StreamFunc(c.record), Identity: c.identity(), BaseURL: c.opts.baseURL, Transport: "memory"}
	if !c.opts.returnPanics {
		in.OnPanic = c.notePanic
	}
	c.mu.Lock()
	c.in = in
	c.mu.Unlock()
	return in
}

func (c *Client) record(msg []byte) {
	var n struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	c.trace("<-", msg)
	if err := json.Unmarshal(msg, &n); err != nil {
		c.t.Errorf("saketest: the server sent a notification that is not JSON: %v", err)
		return
	}
	if n.ID != nil {
		c.answerServerRequest(n.ID, n.Method, n.Params)
		return
	}
	note := Notification{Method: n.Method, Params: n.Params}
	c.mu.Lock()
	c.notifications = append(c.notifications, note)
	c.mu.Unlock()
	if c.opts.onNotification != nil {
		c.opts.onNotification(note)
	}
}

// encode builds a request with the next id: the modern _meta (and a
// progress token) spliced into the params.
func (c *Client) encode(method string, params any) ([]byte, error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, ErrClosed
	}
	c.nextID++
	id := c.nextID
	c.mu.Unlock()
	var p []byte
	if params != nil {
		var err error
		if p, err = json.Marshal(params); err != nil {
			return nil, fmt.Errorf("saketest: params of %s: %w", method, err)
		}
		if string(p) == "null" {
			p = nil
		} else if len(p) < 2 || p[0] != '{' {
			return nil, fmt.Errorf("saketest: params of %s must be a JSON object, not %s", method, p)
		}
	}
	b := make([]byte, 0, 160+len(p)+len(c.meta))
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"method":`...)
	b = strconv.AppendQuote(b, method)
	b = append(b, `,"params":{"_meta":{`...)
	if !c.opts.legacy {
		b = append(b, c.meta...)
		b = append(b, ',')
	}
	b = append(b, `"progressToken":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, '}')
	if len(p) > 2 {
		b = append(b, ',')
		b = append(b, p[1:]...)
	} else {
		b = append(b, '}')
	}
	return append(b, '}'), nil
}

// Request sends any request and returns its raw result: the escape hatch
// for methods without a helper. params is encoded as a JSON object; in
// the modern era the client adds its _meta.
func (c *Client) Request(method string, params any) (json.RawMessage, error) {
	c.t.Helper()
	defer c.reportPanics()
	body, err := c.encode(method, params)
	if err != nil {
		return nil, err
	}
	reply, err := c.call(body)
	if err != nil {
		return nil, err
	}
	raw, err := decodeReply(reply.Body)
	for round := 0; err == nil && bytes.Contains(raw, []byte(`"input_required"`)); round++ {
		var ir struct {
			ResultType    string `json:"resultType"`
			InputRequests map[string]struct {
				Method string          `json:"method"`
				Params json.RawMessage `json:"params"`
			} `json:"inputRequests"`
			RequestState *string `json:"requestState"`
		}
		if json.Unmarshal(raw, &ir) != nil || ir.ResultType != "input_required" {
			break
		}
		if round == maxRounds {
			return nil, fmt.Errorf("saketest: %s still wants input after %d rounds", method, maxRounds)
		}
		answers, aerr := c.answerAll(ir.InputRequests)
		if aerr != nil {
			return nil, aerr
		}
		retry := map[string]any{}
		if params != nil {
			b, _ := json.Marshal(params)
			_ = json.Unmarshal(b, &retry)
		}
		retry["inputResponses"] = answers
		if ir.RequestState != nil {
			retry["requestState"] = *ir.RequestState
		}
		if body, err = c.encode(method, retry); err != nil {
			return nil, err
		}
		if reply, err = c.call(body); err != nil {
			return nil, err
		}
		raw, err = decodeReply(reply.Body)
	}
	return raw, err
}

// maxRounds bounds the input rounds of one call.
const maxRounds = 10

// Send hands raw bytes to the dispatcher as this client (with its session)
// and returns the reply as the dispatcher made it: for tests of malformed
// messages.
func (c *Client) Send(msg []byte) sake.Reply {
	c.t.Helper()
	defer c.reportPanics()
	reply, err := c.exchange(c.context(), msg)
	if err != nil {
		c.t.Errorf("saketest: Send: %v", err)
	}
	return reply
}

// call sends one request and waits for its reply. When the client's
// context ends first, the request is cancelled as a real client cancels
// it: a legacy client sends notifications/cancelled, a modern one closes
// its stream (the request's context ends); either way the late reply is
// dropped and the call returns the context's error.
func (c *Client) call(body []byte) (sake.Reply, error) {
	ctx := c.context()
	if c.ctx == nil || !c.opts.legacy {
		reply, err := c.exchange(ctx, body)
		if err == nil && ctx.Err() != nil {
			return sake.Reply{}, ctx.Err()
		}
		return reply, err
	}
	var peek struct {
		ID json.RawMessage `json:"id"`
	}
	_ = json.Unmarshal(body, &peek)
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-ctx.Done():
			msg := []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + string(peek.ID) + `,"reason":"the test cancelled the call"}}`)
			_, _ = c.exchange(context.Background(), msg)
		case <-done:
		}
	}()
	reply, err := c.exchange(context.WithoutCancel(ctx), body)
	if err == nil && ctx.Err() != nil {
		return sake.Reply{}, ctx.Err()
	}
	return reply, err
}

// exchange carries one message to the server: into its dispatcher, or
// through the host's HTTP stack with Handler.
func (c *Client) exchange(ctx context.Context, body []byte) (reply sake.Reply, err error) {
	c.trace("->", body)
	ctx = context.WithValue(ctx, originKey{}, c.t)
	c.labelled(ctx, func(ctx context.Context) {
		if c.http != nil {
			reply, err = c.http.post(ctx, c, body)
			return
		}
		reply = c.srv.Handle(ctx, body, c.inbound())
	})
	c.trace("<-", reply.Body)
	return reply, err
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

// identity builds the simulated caller of one request.
func (c *Client) identity() *sake.Identity {
	o := &c.opts
	var principal any
	if o.principal != nil {
		principal = o.principal()
	}
	if !o.withToken {
		if principal == nil {
			return nil
		}
		return &sake.Identity{Principal: principal}
	}
	id := &sake.Identity{Principal: principal, Scopes: o.scopes, ClientID: o.clientID, ACR: o.acr,
		AuthTime: o.authTime, FromToken: true}
	if id.ClientID == "" {
		id.ClientID = "sake-test"
	}
	switch {
	case o.subject != nil:
		id.Subject = *o.subject
	case principal != nil:
		sum := sha256.Sum256([]byte(fmt.Sprintf("%T:%#v", principal, principal)))
		id.Subject = "saketest-" + hex.EncodeToString(sum[:8])
	default:
		id.Subject = "saketest-user"
	}
	claims := map[string]any{"sub": id.Subject, "client_id": id.ClientID, "scope": strings.Join(id.Scopes, " ")}
	if id.ACR != "" {
		claims["acr"] = id.ACR
	}
	if !id.AuthTime.IsZero() {
		claims["auth_time"] = id.AuthTime.Unix()
	}
	id.Claims = claims
	return id
}

// decodeReply returns the result of a response, or its error as *sake.Error.
func decodeReply(body []byte) (json.RawMessage, error) {
	if body == nil {
		return nil, errors.New("saketest: the server sent no response")
	}
	var result, errRaw []byte
	err := jsonscan.Members(body, func(key, v []byte) error {
		switch string(key) {
		case "result":
			result = v
		case "error":
			errRaw = v
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("saketest: the response is not JSON-RPC: %w", err)
	}
	if errRaw != nil {
		var e sake.Error
		if err := json.Unmarshal(errRaw, &e); err != nil {
			return nil, fmt.Errorf("saketest: the error response is malformed: %w", err)
		}
		return nil, sake.AuthErrorFrom(&e)
	}
	if result == nil {
		return nil, fmt.Errorf("saketest: the response has neither result nor error: %s", body)
	}
	return result, nil
}
