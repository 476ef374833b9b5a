package client

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/sakemcp/sake-go/sake/protocol"
)

// Option configures a Client.
type Option func(*options)

type options struct {
	info           protocol.Implementation
	version        string // pinned revision; "" negotiates
	logLevel       protocol.LogLevel
	caps           protocol.ClientCapabilities // as declared with Capabilities
	noTasks        bool
	forwarding     bool // ForwardQuestions: 2026-07-28 requests carry their caller's log level only
	elicit         func(context.Context, *protocol.ElicitRequest) (*protocol.ElicitResult, error)
	sample         func(context.Context, *protocol.SamplingRequest) (*protocol.SamplingResult, error)
	roots          func(context.Context) ([]protocol.Root, error)
	onNotification func(protocol.Notification)
	observe        func(protocol.Notification)
	onProgress     func(Progress)
	onMessage      func(sent bool, msg []byte)
	onQuestion     func(method string, params json.RawMessage)
	logger         *slog.Logger
	maxRounds      int
	probeTimeout   time.Duration
	maxMessage     int64
	maxServerReqs  int
	retry          *RetryPolicy // Retry; nil: no retries
	cache          *Cache       // WithCache; nil: no cache
}

func defaultOptions() options {
	return options{
		info:          protocol.Implementation{Name: "sake-client", Version: "1.0.0"},
		logger:        slog.New(slog.DiscardHandler),
		maxRounds:     10,
		probeTimeout:  10 * time.Second,
		maxMessage:    DefaultMaxMessageBytes,
		maxServerReqs: DefaultMaxServerRequests,
	}
}

// DefaultMaxMessageBytes bounds one message the client reads from a server
// (a response, or one event of a stream): 16 MiB.
const DefaultMaxMessageBytes = 16 << 20

// ClientInfo names the client to the server (clientInfo). The default is
// sake-client 1.0.0.
func ClientInfo(name, version string) Option {
	return func(o *options) { o.info = protocol.Implementation{Name: name, Version: version} }
}

// ProtocolVersion pins the protocol revision: protocol.ModernVersion (2026-07-28,
// no fallback) or a handshake-era revision from 2025-11-25 down to
// 2024-11-05 (initialize asks for it and accepts no other). Without it
// Connect negotiates.
func ProtocolVersion(v string) Option { return func(o *options) { o.version = v } }

// LogLevel asks the server for log messages at level and above: on every
// request's _meta in the 2026-07-28 era, with logging/setLevel after the
// handshake before it. A handshake-era server is sent logging/setLevel
// only when it declares the logging capability, and its refusal does not
// fail Connect (the Logger hears of it): the server then sends the log
// messages it chooses. They arrive as notifications/message.
func LogLevel(level protocol.LogLevel) Option { return func(o *options) { o.logLevel = level } }

// Capabilities sets the capabilities the client declares (extensions,
// experimental members). OnElicit, OnSample and Roots add theirs, in any
// order of the options, unless c declares that capability itself (an
// elicitation capability with the form mode only, say).
func Capabilities(c protocol.ClientCapabilities) Option {
	return func(o *options) { o.caps = c }
}

// capabilities are the declared capabilities with those of the handlers
// added.
func (o *options) capabilities() protocol.ClientCapabilities {
	caps := o.caps
	if o.elicit != nil && caps.Elicitation == nil {
		caps.Elicitation = &protocol.ElicitationCapability{Form: json.RawMessage(`{}`), URL: json.RawMessage(`{}`)}
	}
	if o.sample != nil && caps.Sampling == nil {
		caps.Sampling = &protocol.SamplingCapability{}
	}
	if o.roots != nil && caps.Roots == nil {
		caps.Roots = &protocol.RootsCapability{}
	}
	return caps
}

// WithoutTasks stops the client from declaring the tasks extension: a
// server then runs task tools to the end within the call, or refuses them.
func WithoutTasks() Option { return func(o *options) { o.noTasks = true } }

// OnElicit answers the server's questions to the user
// (elicitation/create), in form and URL modes, and declares the
// elicitation capability.
func OnElicit(fn func(ctx context.Context, req *protocol.ElicitRequest) (*protocol.ElicitResult, error)) Option {
	return func(o *options) { o.elicit = fn }
}

// OnSample answers the server's requests for a model completion
// (sampling/createMessage) and declares the sampling capability.
func OnSample(fn func(ctx context.Context, req *protocol.SamplingRequest) (*protocol.SamplingResult, error)) Option {
	return func(o *options) { o.sample = fn }
}

// Roots answers roots/list with roots and declares the roots capability.
func Roots(roots ...protocol.Root) Option {
	list := append([]protocol.Root{}, roots...)
	return OnRoots(func(context.Context) ([]protocol.Root, error) { return list, nil })
}

// OnRoots answers roots/list with what fn returns and declares the roots
// capability.
func OnRoots(fn func(ctx context.Context) ([]protocol.Root, error)) Option {
	return func(o *options) { o.roots = fn }
}

// OnNotification receives every notification that is not a call's progress
// nor a subscription's: log messages, list changes and resource updates
// of the handshake era, and anything else a server sends. It runs on the
// client's reading goroutine: keep it short.
func OnNotification(fn func(protocol.Notification)) Option {
	return func(o *options) { o.onNotification = fn }
}

// ObserveNotifications is told of every notification the server sends,
// as it arrives and before it is delivered (to a call's progress handler,
// a subscription, a forwarded log, or OnNotification): for tests and
// tracing. It observes only, runs on the client's reading goroutine (keep
// it short), and must not change n.Params.
func ObserveNotifications(fn func(n protocol.Notification)) Option {
	return func(o *options) { o.observe = fn }
}

// OnMessage receives every JSON-RPC message the client exchanges with the
// server, as it goes: sent is true for what the client sends (requests,
// notifications, answers to the server's requests), false for what it
// receives (responses, notifications, the server's requests). For
// logging and debugging; fn runs on the goroutine that sends or reads the
// message, must not keep msg past its return (copy it) and must not
// change it.
func OnMessage(fn func(sent bool, msg []byte)) Option {
	return func(o *options) { o.onMessage = fn }
}

// OnQuestion is told of every request the server makes of the client
// (elicitation/create, sampling/createMessage, roots/list, ping), with its
// params, before the client answers it: the requests of a session, the
// input requests of an input_required result and those of a task alike.
// It observes only; the handlers (OnElicit, OnSample, Roots) answer.
func OnQuestion(fn func(method string, params json.RawMessage)) Option {
	return func(o *options) { o.onQuestion = fn }
}

// OnProgress receives the progress of every call: each request then
// carries a progress token. WithProgress sets a handler for the calls of
// one context instead (those calls' progress goes to it alone).
func OnProgress(fn func(Progress)) Option { return func(o *options) { o.onProgress = fn } }

// Logger receives the client's own diagnostics and the standard error of a
// command's server process. The default discards them.
func Logger(l *slog.Logger) Option {
	return func(o *options) {
		if l != nil {
			o.logger = l
		}
	}
}

// MaxInputRounds bounds how many input_required rounds one call may take
// (default 10).
func MaxInputRounds(n int) Option {
	return func(o *options) {
		if n > 0 {
			o.maxRounds = n
		}
	}
}

// ProbeTimeout bounds how long Connect waits for the answer to
// server/discover before it falls back to the handshake (default 10s). A
// server that never answers unknown methods is taken for an older one.
func ProbeTimeout(d time.Duration) Option {
	return func(o *options) {
		if d > 0 {
			o.probeTimeout = d
		}
	}
}

// MaxMessageBytes bounds one message read from the server (default
// DefaultMaxMessageBytes).
func MaxMessageBytes(n int64) Option {
	return func(o *options) {
		if n > 0 {
			o.maxMessage = n
		}
	}
}

// DefaultMaxServerRequests bounds the server's requests the client
// answers at once: 256.
const DefaultMaxServerRequests = 256

// MaxServerRequests bounds how many of the server's requests
// (elicitation/create, sampling/createMessage, roots/list, ping: those of
// a handshake-era session, on any of its streams) the client answers at
// once, each on a goroutine of its own (default DefaultMaxServerRequests).
// A request beyond the bound is refused at once with a -32000 error
// (protocol.CodeServerBusy, "too many requests in flight"), sent before the
// client reads the next message of that stream.
func MaxServerRequests(n int) Option {
	return func(o *options) {
		if n > 0 {
			o.maxServerReqs = n
		}
	}
}
