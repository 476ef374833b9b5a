package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/sakemcp/sake-go/sake/internal/jsonscan"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// ErrClosed is returned by the calls of a closed client.
var ErrClosed = errors.New("client: the client is closed")

// Client is a connection to one MCP server. Its methods are safe for
// concurrent use.
type Client struct {
	t Transport
	o options

	ctx    context.Context // ends on Close: the handlers of server requests run under it
	cancel context.CancelFunc

	nextID atomic.Int64
	info   ServerInfo
	meta   []byte // the 2026-07-28 _meta members, without braces

	mu          sync.Mutex
	closed      bool
	progress    map[string]func(Progress)
	subs        map[string]*Subscription // by subscription id (the listen request's id)
	legacySubs  map[*Subscription]struct{}
	toolHeaders map[string][]headerParam
	taskTools   map[string]bool // handshake era: tools that support tasks
	wg          sync.WaitGroup  // answers to server requests in flight
	serving     chan struct{}   // a slot per server request being answered (MaxServerRequests)
	relinking   sync.Mutex      // one new handshake at a time
	toolHints   toolHints       // the tools that may run twice (Retry)

	infoOnce sync.Once
	infoJSON []byte // c.o.info, rendered once for every forwarded request
}

// ServerInfo is what the client learned about the server when it
// connected.
type ServerInfo struct {
	// Era is protocol.EraModern (2026-07-28) or protocol.EraLegacy (the handshake).
	Era protocol.Era
	// ProtocolVersion is the revision in use.
	ProtocolVersion string
	// Server names the server (serverInfo).
	Server protocol.Implementation
	// Capabilities is the server's capabilities object, as sent.
	Capabilities json.RawMessage
	// Instructions is the server's guidance for the model.
	Instructions string
	// SupportedVersions is what server/discover listed (2026-07-28).
	SupportedVersions []string
	// SessionID is the handshake era's session id, where the transport
	// has one (HTTP's Mcp-Session-Id, the in-memory session); "" in the
	// 2026-07-28 era.
	SessionID string
}

// HasCapability reports whether the server declared the named capability
// (tools, resources, prompts, logging, completions, ...).
// It reads the capabilities without decoding them: it is asked on every
// call (a handshake-era server's tasks).
func (s ServerInfo) HasCapability(name string) bool {
	return hasMember(s.Capabilities, name)
}

// HasExtension reports whether the server declared the extension id
// (capabilities.extensions).
func (s ServerInfo) HasExtension(id string) bool {
	var extensions []byte
	err := jsonscan.Members(s.Capabilities, func(key, v []byte) error {
		if string(key) == "extensions" {
			extensions = v
		}
		return nil
	})
	return err == nil && hasMember(extensions, id)
}

// hasMember reports whether obj is a JSON object with a member named key
// (of any value, null included, as decoding it into a map would say).
func hasMember(obj []byte, key string) bool {
	found := false
	err := jsonscan.Members(obj, func(k, _ []byte) error {
		if string(k) == key {
			found = true
		}
		return nil
	})
	return err == nil && found
}

// Connect opens t and settles the protocol era with the server (see the
// package documentation). ctx bounds the connection's setup only; Close
// ends the client.
func Connect(ctx context.Context, t Transport, opts ...Option) (*Client, error) {
	o := defaultOptions()
	for _, opt := range opts {
		opt(&o)
	}
	o.caps = o.capabilities()
	if o.version != "" && o.version != protocol.ModernVersion && !protocol.IsLegacyVersion(o.version) {
		return nil, fmt.Errorf("client: protocol version %q is not one this client speaks (%v)", o.version, protocol.SupportedVersions())
	}
	if o.onMessage != nil {
		t = &tapTransport{Transport: t, fn: o.onMessage}
	}
	c := &Client{t: t, o: o, progress: map[string]func(Progress){}, subs: map[string]*Subscription{},
		legacySubs: map[*Subscription]struct{}{}, toolHeaders: map[string][]headerParam{},
		serving: make(chan struct{}, o.maxServerReqs)}
	c.ctx, c.cancel = context.WithCancel(context.WithoutCancel(ctx))
	c.meta = c.buildMeta()
	if err := t.bind(ctx, c.incoming, &c.o); err != nil {
		c.cancel()
		return nil, err
	}
	if err := c.negotiate(ctx); err != nil {
		c.cancel()
		_ = t.close()
		return nil, err
	}
	return c, nil
}

// buildMeta renders the members every 2026-07-28 request carries.
func (c *Client) buildMeta() []byte {
	caps := c.o.caps
	if !c.o.noTasks && !caps.HasExtension(protocol.TaskExtension) {
		ext := map[string]json.RawMessage{protocol.TaskExtension: json.RawMessage(`{}`)}
		for k, v := range caps.Extensions {
			ext[k] = v
		}
		caps.Extensions = ext
	}
	level := c.o.logLevel
	if c.o.forwarding {
		// A proxy's own requests want no log messages: over stdio they
		// could not be told from those of a forwarded call.
		level = ""
	}
	return c.renderMeta(nil, caps, level)
}

// renderMeta renders the _meta members of a 2026-07-28 request declaring
// caps and asking for log messages at level and above ("" for none),
// appended to dst (nil for a new buffer).
func (c *Client) renderMeta(dst []byte, caps protocol.ClientCapabilities, level protocol.LogLevel) []byte {
	c.infoOnce.Do(func() { c.infoJSON, _ = json.Marshal(c.o.info) })
	m := slices.Grow(dst[:0], 160+len(c.infoJSON))
	m = append(m, `"io.modelcontextprotocol/protocolVersion":"`+protocol.ModernVersion+`","io.modelcontextprotocol/clientCapabilities":`...)
	m = appendCapabilities(m, &caps)
	m = append(m, `,"io.modelcontextprotocol/clientInfo":`...)
	m = append(m, c.infoJSON...)
	if level != "" {
		m = append(m, `,"io.modelcontextprotocol/logLevel":`...)
		m = strconv.AppendQuote(m, string(level))
	}
	return m
}

// Info returns what the client learned about the server.
func (c *Client) Info() ServerInfo {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.info
}

// Era returns the protocol era in use.
func (c *Client) Era() protocol.Era { return c.Info().Era }

// Close ends the client: subscriptions end, a legacy session is deleted,
// a command's process is stopped. Calls after it return ErrClosed.
func (c *Client) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	subs := make([]*Subscription, 0, len(c.subs))
	for _, s := range c.subs {
		subs = append(subs, s)
	}
	// A session's subscriptions end with the session: nothing to
	// unsubscribe from once it is deleted.
	legacy := make([]*Subscription, 0, len(c.legacySubs))
	for s := range c.legacySubs {
		legacy = append(legacy, s)
	}
	clear(c.legacySubs)
	c.mu.Unlock()
	for _, s := range subs {
		s.stop()
	}
	for _, s := range legacy {
		close(s.done)
	}
	c.cancel()
	err := c.t.close()
	c.wg.Wait()
	return err
}

func (c *Client) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

// Request sends any request and returns its raw result, after answering
// the server's questions (input_required) as every call does: the escape
// hatch for methods without a helper. params must encode as a JSON object
// (or be nil); the client adds its _meta.
func (c *Client) Request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	return c.call(ctx, method, params, nil)
}

// callOpts are the transport details of one call.
type callOpts struct {
	name    string
	hasName bool
	params  [][2]string
	long    bool
	// onID learns the request's id before it is sent (subscriptions).
	onID func(id int64)
}

// call sends a request, answering input_required rounds, and returns its
// result.
func (c *Client) call(ctx context.Context, method string, params any, co *callOpts) (json.RawMessage, error) {
	p, err := encodeParams(method, params)
	if err != nil {
		return nil, err
	}
	look := c.cacheLookup(ctx, method, p)
	if look.hit != nil {
		return look.hit, nil
	}
	raw, err := c.sendRetrying(ctx, method, p, nil, co)
	if err != nil {
		return nil, err
	}
	return c.rounds(ctx, method, p, co, look, raw)
}

// rounds answers the input_required rounds of a call whose first answer
// is raw, and returns its result.
func (c *Client) rounds(ctx context.Context, method string, p []byte, co *callOpts, look cacheLook, raw json.RawMessage) (json.RawMessage, error) {
	var extra []byte
	for round := 0; ; round++ {
		if round > 0 {
			var err error
			if raw, err = c.sendRetrying(ctx, method, p, extra, co); err != nil {
				return nil, err
			}
		}
		if !bytes.Contains(raw, []byte(`"input_required"`)) {
			if round == 0 {
				c.cacheStore(ctx, look, raw)
			}
			return raw, nil
		}
		var ir struct {
			ResultType    string                     `json:"resultType"`
			InputRequests map[string]json.RawMessage `json:"inputRequests"`
			RequestState  *string                    `json:"requestState"`
		}
		if json.Unmarshal(raw, &ir) != nil || ir.ResultType != "input_required" {
			if round == 0 {
				c.cacheStore(ctx, look, raw)
			}
			return raw, nil
		}
		if round+1 >= c.o.maxRounds {
			return nil, fmt.Errorf("client: %s still asks for input after %d rounds (raise MaxInputRounds if the server needs more)", method, c.o.maxRounds)
		}
		answers, err := c.answerAll(ctx, ir.InputRequests)
		if err != nil {
			return nil, err
		}
		extra = extra[:0]
		extra = append(extra, `"inputResponses":`...)
		ab, err := json.Marshal(answers)
		if err != nil {
			return nil, err
		}
		extra = append(extra, ab...)
		if ir.RequestState != nil {
			extra = append(extra, `,"requestState":`...)
			extra = strconv.AppendQuote(extra, *ir.RequestState)
		}
	}
}

// encodeParams encodes a request's params as a JSON object, or nil.
func encodeParams(method string, params any) ([]byte, error) {
	if params == nil {
		return nil, nil
	}
	var p []byte
	switch v := params.(type) {
	case *callParams:
		if b, ok := v.appendFast(nil); ok {
			return b, nil
		}
		var err error
		if p, err = json.Marshal(params); err != nil {
			return nil, fmt.Errorf("client: params of %s: %w", method, err)
		}
	case json.RawMessage:
		p = v
	case []byte:
		p = v
	default:
		var err error
		if p, err = json.Marshal(params); err != nil {
			return nil, fmt.Errorf("client: params of %s: %w", method, err)
		}
	}
	p = bytes.TrimSpace(p)
	if string(p) == "null" {
		return nil, nil
	}
	if len(p) < 2 || p[0] != '{' {
		return nil, fmt.Errorf("client: the params of %s must be a JSON object, not %s", method, p)
	}
	return p, nil
}

// send1 sends one request of a call and decodes its response.
func (c *Client) send1(ctx context.Context, method string, p, extra []byte, co *callOpts) (json.RawMessage, error) {
	if c.isClosed() {
		return nil, ErrClosed
	}
	id := c.nextID.Add(1)
	info := c.Info()
	// A call with a progress handler of its own registers it under its
	// token; the client-wide handler takes the tokens nobody registered.
	token := false
	if fn := progressOf(ctx); fn != nil {
		token = true
		key := "p" + strconv.FormatInt(id, 10)
		c.mu.Lock()
		c.progress[key] = fn
		c.mu.Unlock()
		defer func() {
			c.mu.Lock()
			delete(c.progress, key)
			c.mu.Unlock()
		}()
	} else if c.o.onProgress != nil {
		token = true
	}
	meta := c.meta
	if env := forwardOf(ctx); env != nil && info.Era == protocol.EraModern {
		// The forwarded request's _meta is rendered in a scratch buffer: it
		// is copied into the request at once.
		bp := getScratch()
		defer putScratch(bp)
		var release func()
		meta, release = c.envelopeMeta(ctx, env, co != nil && co.long, (*bp)[:0])
		*bp = meta
		defer release()
	}
	var dst []byte
	if _, ok := c.t.(*streamTransport); ok {
		// Over stdio the request is copied into the write queue, so its
		// buffer serves the next one once the call is done.
		bp := getScratch()
		defer putScratch(bp)
		dst = (*bp)[:0]
		defer func() { *bp = dst }()
	}
	m := &message{id: id, method: method, era: info.Era, version: info.ProtocolVersion,
		body: c.encodeMeta(dst, id, method, p, extra, token, info.Era, meta, versionMeta(ctx))}
	dst = m.body
	if co != nil {
		m.name, m.hasName, m.params, m.long = co.name, co.hasName, co.params, co.long
		if co.onID != nil {
			co.onID(id)
		}
	}
	body, err := c.t.roundTrip(ctx, m)
	if errors.Is(err, ErrSessionGone) && info.Era == protocol.EraLegacy {
		// The server forgot the session: start a new one and try once more.
		if rerr := c.relink(ctx, info.ProtocolVersion); rerr != nil {
			return nil, fmt.Errorf("client: the server ended the session and refused a new one: %w", rerr)
		}
		body, err = c.t.roundTrip(ctx, m)
	}
	if err != nil {
		return nil, err
	}
	if _, ok := c.t.(*streamTransport); ok {
		// Its reader validated the line when it read the answer's id.
		return decodeValidResponse(body)
	}
	return decodeResponse(body)
}

// encode builds a request: the 2026-07-28 _meta (and, with token, the
// progress token "p<id>") spliced before the params' own members.
func (c *Client) encode(id int64, method string, p, extra []byte, token bool, era protocol.Era) []byte {
	return c.encodeMeta(nil, id, method, p, extra, token, era, c.meta, nil)
}

// encodeMeta is encode with the given 2026-07-28 _meta members, and more
// members of _meta for either era, appended to dst (nil for a new
// buffer).
func (c *Client) encodeMeta(dst []byte, id int64, method string, p, extra []byte, token bool, era protocol.Era, meta, more []byte) []byte {
	b := slices.Grow(dst[:0], 96+len(p)+len(extra)+len(meta)+len(more))
	var idText [20]byte
	rid := strconv.AppendInt(idText[:0], id, 10)
	modern := era == protocol.EraModern
	hasMeta := modern || token || len(more) > 0
	members := len(p) > 2 || len(extra) > 0
	if !hasMeta && !members {
		return protocol.AppendRequest(b, rid, method, nil)
	}
	b = protocol.AppendRequestHead(b, rid, method)
	b = append(b, '{')
	sep := false
	if hasMeta {
		b = append(b, `"_meta":{`...)
		start := len(b)
		if modern {
			b = append(b, meta...)
		}
		if token {
			if len(b) > start {
				b = append(b, ',')
			}
			b = append(b, `"progressToken":"p`...)
			b = strconv.AppendInt(b, id, 10)
			b = append(b, '"')
		}
		if len(more) > 0 {
			if len(b) > start {
				b = append(b, ',')
			}
			b = append(b, more...)
		}
		b = append(b, '}')
		sep = true
	}
	if len(p) > 2 {
		inner := bytes.TrimSpace(p[1 : len(p)-1])
		if len(inner) > 0 {
			if sep {
				b = append(b, ',')
			}
			b = append(b, inner...)
			sep = true
		}
	}
	if len(extra) > 0 {
		if sep {
			b = append(b, ',')
		}
		b = append(b, extra...)
	}
	return append(b, `}}`...)
}

// notify sends a notification.
func (c *Client) notify(ctx context.Context, method string, params any) error {
	p, err := encodeParams(method, params)
	if err != nil {
		return err
	}
	if len(p) == 0 {
		p = nil
	}
	b := protocol.AppendNotification(nil, method, p)
	info := c.Info()
	return c.t.send(ctx, &message{method: method, body: b, era: info.Era, version: info.ProtocolVersion})
}

// decodeResponse returns the result of a response, or its error.
func decodeResponse(body []byte) (json.RawMessage, error) {
	env, err := protocol.Peek(body)
	if err != nil {
		return nil, fmt.Errorf("client: the server's response is not JSON-RPC: %w", err)
	}
	return responseResult(body, env.Result, env.Error)
}

// decodeValidResponse is decodeResponse for a body already known to be
// valid JSON (a stdio line its reader peeked at): its members are walked,
// not validated a second time.
func decodeValidResponse(body []byte) (json.RawMessage, error) {
	var result, errRaw []byte
	_ = jsonscan.MembersValid(body, func(key, v []byte) error {
		switch string(key) {
		case "result":
			result = v
		case "error":
			errRaw = v
		}
		return nil
	})
	return responseResult(body, result, errRaw)
}

// responseResult returns a response's result, or its error.
func responseResult(body, result, errRaw []byte) (json.RawMessage, error) {
	if errRaw != nil {
		var e protocol.Error
		if err := json.Unmarshal(errRaw, &e); err != nil {
			return nil, fmt.Errorf("client: the server's error response is malformed: %w", err)
		}
		return nil, protocol.AuthErrorFrom(&e)
	}
	if result == nil {
		return nil, fmt.Errorf("client: the server's response has neither result nor error: %.200s", body)
	}
	return result, nil
}

// incoming receives every message the server sends besides responses.
func (c *Client) incoming(ctx context.Context, msg []byte) {
	m, err := protocol.Peek(msg)
	if err != nil {
		c.o.logger.Warn("client: the server sent a message that is not JSON", "err", err)
		return
	}
	if m.Method == "" {
		return // a response nobody waits for (a cancelled call)
	}
	// What the handlers keep must not share the transport's buffer.
	m.Params = bytes.Clone(m.Params)
	if m.ID != nil {
		c.serveRequest(ctx, bytes.Clone(m.ID), m.Method, m.Params)
		return
	}
	n := protocol.Notification{Method: m.Method, Params: m.Params}
	if fn := c.o.observe; fn != nil {
		fn(n)
	}
	c.cacheNotified(n)
	if n.Method == "notifications/progress" && c.deliverProgress(n.Params) {
		return
	}
	if n.Method == "notifications/message" && ctx != nil && forwardLog(ctx, n.Params) {
		return // a forwarded call's, not the session's
	}
	if c.deliverToSubscription(n) {
		return
	}
	if fn := c.o.onNotification; fn != nil {
		fn(n)
	}
}
