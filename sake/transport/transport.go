package transport

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/internal/bridge"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// Message is one incoming message, decoded once by Decode or Conn.Decode.
// The transport may look at it, then calls Handle or HandleInto exactly
// once. Only the server implements it.
type Message interface {
	// Kind returns what the message is: a request, a notification, a
	// response to a request the server sent, or a batch.
	Kind() protocol.Kind
	// ID returns the id of a request or a response, as sent.
	ID() json.RawMessage
	// Method returns the method of a request or a notification, or "".
	Method() string
	// Era returns the era the message was classified into.
	Era() sake.Era
	// Session returns the legacy session the message belongs to, or nil.
	Session() *sake.Session
	// LongLived reports a request that runs until it is cancelled or the
	// server shuts down (subscriptions/listen).
	LongLived() bool
	// Concurrent reports a request that may run beside others.
	// Everything else (notifications, responses, initialize, batches,
	// messages refused already) must be handled in order, before the
	// next message of the same connection is decoded: a cancellation
	// takes effect before what follows it, and the messages after an
	// initialize belong to its session.
	Concurrent() bool
	// Cancels returns the id of the request a notifications/cancelled
	// names, or nil.
	Cancels() json.RawMessage
	// Handle handles the message and returns the answer. ctx ends the
	// handling when cancelled.
	Handle(ctx context.Context) sake.Reply
	// HandleInto is Handle with the reply's body built in *buf where the
	// server can (a result; a Request hook is shown it in place): a
	// transport that writes the body out before it reuses *buf
	// allocates no body per reply. *buf is set to the buffer as grown;
	// Reply.Body is either a slice of it, valid until *buf is reused, or
	// one of its own.
	HandleInto(ctx context.Context, buf *[]byte) sake.Reply
}

// Decode decodes one message for Message.Handle, with what the transport
// knows about it (nil for nothing). It resolves in.SessionID into
// in.Session, which must not change afterwards. It never panics on bad
// input: a message the server refuses at once answers its error when
// handled.
func Decode(srv *sake.Server, msg []byte, in *sake.Inbound) Message {
	return bridge.Root().Decode(srv, msg, in).(Message)
}

// conn is the server's side of a Conn.
type conn interface {
	Decode(msg []byte) any
	Session() *sake.Session
	EndInput()
	Close()
}

// Conn is one long-lived connection of a transport (stdio, a socket): the
// requests running on it, and the legacy session its initialize opened.
// Messages decoded by a Conn belong to it; its methods are safe for
// concurrent use.
type Conn struct {
	c conn
}

// Connect starts a connection to srv. transport names it for telemetry
// (sake.Inbound.Transport, sake.Request.Transport); identity is the
// caller the host vouches for (nil: anonymous); out receives the messages
// of every request and those of the connection's legacy session that
// belong to no request. With out nil they are dropped: the session's
// Send returns ErrNoStream and subscriptions/listen is refused.
func Connect(srv *sake.Server, transport string, identity *sake.Identity, out sake.Stream) *Conn {
	return &Conn{c: bridge.Root().Connect(srv, transport, identity, out).(conn)}
}

// Decode decodes one message read on the connection.
func (c *Conn) Decode(msg []byte) Message {
	return c.c.Decode(msg).(Message)
}

// Session returns the connection's legacy session, or nil.
func (c *Conn) Session() *sake.Session { return c.c.Session() }

// EndInput says the client can send nothing more. The requests that cannot
// finish without it are cancelled: long-lived ones, and those waiting for
// the client's answer to a question; a request that asks later fails at
// once. The others run to completion.
func (c *Conn) EndInput() { c.c.EndInput() }

// Close ends the connection: every request still running is cancelled
// and the legacy session is closed.
func (c *Conn) Close() { c.c.Close() }

// SessionFor returns the live legacy session of srv with that id when who
// opened it, or nil: a session is only ever used by its owner. A session
// shared through a backend.SessionStore that cannot be read right now is nil
// too; use FindSession to tell that apart.
func SessionFor(srv *sake.Server, id string, who *sake.Identity) *sake.Session {
	sess, _ := FindSession(srv, id, who)
	return sess
}

// FindSession is SessionFor that tells "no such session" from "cannot say
// now": it returns the live legacy session with that id when who opened
// it; nil and no error when there is none (it ended, never existed, or
// belongs to another owner); and an error wrapping sake.ErrSessionStore
// when the SessionStore could not be read, the session maybe still alive.
func FindSession(srv *sake.Server, id string, who *sake.Identity) (*sake.Session, error) {
	v, err := bridge.Root().FindSession(srv, id, who)
	sess, _ := v.(*sake.Session)
	return sess, err
}

// SetSender sets where the messages of sess that belong to no request go
// (list changes, resource updates, server-initiated requests): over HTTP
// the standalone GET stream, over stdio the output. nil removes it; until
// one is set, Send returns ErrNoStream. A sender returns ErrNoStream when
// its stream has gone.
//
// On a shared session whose store is a backend.SessionStreamStore, the store
// is told (in the background) whether this replica now holds the stream.
func SetSender(sess *sake.Session, send func(msg []byte) error) {
	bridge.Root().SetSender(sess, send)
}

// ErrNoStream is returned by Send, and by a sender given to SetSender,
// when the client has no stream open to receive messages outside a
// request.
var ErrNoStream = bridge.ErrNoStream

// Send delivers msg, a message that belongs to no request, through the
// sender of sess (SetSender), or returns ErrNoStream. A shared session
// whose stream another replica holds has the message relayed there.
func Send(sess *sake.Session, msg []byte) error {
	return bridge.Root().Send(sess, msg)
}

// Hold marks sess as in use by the transport (an HTTP request or stream
// open for it) until the returned function is called; calling it again
// does nothing. A held session is never idle, so never evicted to make
// room nor expired.
func Hold(sess *sake.Session) (release func()) {
	// Small enough to inline, so that the hold and its release stay on
	// the caller's stack: defer Hold(s)() costs no allocation.
	h := &holding{sess: sess}
	hold(sess)
	return h.release
}

// holding is one Hold of a session.
type holding struct {
	sess *sake.Session
	done atomic.Bool
}

// release ends the hold, once.
func (h *holding) release() {
	if !h.done.Swap(true) {
		unhold(h.sess)
	}
}

// hold and unhold are the server's, for Hold to call without the check
// bridge.Root makes: package sake, which this package imports, has filled
// the bridge before these variables are initialised.
var hold, unhold = bridge.Root().Hold, bridge.Root().Unhold

// LastUsed returns when sess last handled a message, for idle expiry.
func LastUsed(sess *sake.Session) time.Time {
	return bridge.Root().LastUsed(sess)
}

// Idle reports whether sess is idle as the server judges it when it
// evicts a session to make room: no request running, no stream open for
// messages outside requests, no Hold. A transport with a cap of its own
// on sessions evicts by the same rule: the least recently used (LastUsed)
// idle session makes room.
func Idle(sess *sake.Session) bool {
	return bridge.Root().Idle(sess)
}

// CloseIdle ends sess, found idle for timeout by the transport. A session
// shared with other replicas may be in use there: its copy here is
// dropped, and the session itself ends only when the store too says it
// has been idle that long.
func CloseIdle(sess *sake.Session, timeout time.Duration) {
	bridge.Root().CloseIdle(sess, timeout)
}

// CloseHere ends this replica's copy of sess, as a transport that stops
// serving does: a session shared with other replicas lives on in its store
// and goes on there; one that is not shared simply ends. Session.Close, by
// contrast, ends the session everywhere (a client's DELETE).
func CloseHere(sess *sake.Session) {
	bridge.Root().CloseHere(sess)
}

// Shared reports whether sess is shared with other replicas (see
// the sake.SessionStore option) and this is one replica's copy.
func Shared(sess *sake.Session) bool {
	return bridge.Root().Shared(sess)
}

// AfterClose arranges for f to be called once, when this copy of sess
// ends: sake.Session.Close, CloseIdle, the server evicting it to make
// room, sake.Server.Shutdown, or another replica ending a shared session.
// f runs on the goroutine that ended the session, after its requests were
// cancelled and the server forgot it, so it must not block; on a session
// already ended it runs at once. A transport uses it to drop what it
// keeps for the session the moment the server no longer has it.
func AfterClose(sess *sake.Session, f func()) {
	bridge.Root().AfterClose(sess, f)
}

// WithPanicHandler returns a copy of ctx that carries fn: when user code
// panics while handling a request made with that context (or a task such
// a request starts), the server calls fn with the recovered value and the
// stack, besides logging it and calling sake.Hooks.Panic and
// sake.Inbound.OnPanic. It serves an in-process client that reaches the
// server through a host's HTTP stack (sake/saketest's Handler) and wants
// the panics its calls cause: a transport that hands the request's context
// on delivers it, as sake/plug does; a context does not cross a network.
func WithPanicHandler(ctx context.Context, fn func(recovered any, stack []byte)) context.Context {
	return context.WithValue(ctx, bridge.PanicKey{}, fn)
}

// StreamFunc adapts a function to a sake.Stream.
type StreamFunc func(msg []byte)

// Send calls f(msg).
func (f StreamFunc) Send(msg []byte) { f(msg) }

// AnswerAwaiter is a sake.Stream told when a request handled on it waits
// for the client's answer to a request the server sent (sampling,
// elicitation, roots). A transport that runs requests on the goroutine
// reading its input hands the reading on to another one then, so the
// answer can be read. AwaitingAnswer is called after the request is sent,
// on the goroutine of the waiting request; it must not block.
type AnswerAwaiter interface {
	sake.Stream
	AwaitingAnswer()
}

// ReplyDeferrer is a sake.Stream that can take a request's response after
// Handle returned, from another goroutine. The server asks for it when a
// call is forwarded to another server over a stream (a proxy's stdio
// command): Handle then returns a Reply without a Body, and the server
// calls respond exactly once with the response, or with nil when there is
// none to write (the request was cancelled). afterBurst, when not nil,
// works as BurstReader.AfterBurst for the burst of answers the response
// was read with: the transport may leave its flush to that burst's end
// (it may call afterBurst only before respond returns). DeferReply is called on the
// goroutine handling the request, before Handle returns; respond may be
// called on any goroutine, even before Handle returns. A transport that
// waits for its requests before it stops waits for these too, until
// respond is called.
type ReplyDeferrer interface {
	sake.Stream
	DeferReply() (respond func(body []byte, afterBurst func(func()) bool))
}

// BurstReader is a sake.Stream whose transport reads its input in bursts
// (stdio: the lines already read together). A proxy forwarding the
// burst's requests to a stdio command writes them to the command
// together: it leaves a write to the burst's end. AfterBurst arranges for
// f to run once the requests of the burst being handled have been, before
// the transport waits for more input, and reports true; it reports false
// when no burst is under way (f is not called: the caller does the work
// now). It must not block; f runs on the reading goroutine.
type BurstReader interface {
	sake.Stream
	AfterBurst(f func()) bool
}

// ResumableStream is a sake.Stream that a client can leave and resume
// (HTTP's SSE streams of a legacy session).
type ResumableStream interface {
	sake.Stream
	// CloseStream ends the connection carrying the stream while the
	// request goes on (sake.Context.CloseStream) and reports whether it
	// could.
	CloseStream() bool
	// Abandoned returns a channel closed when nobody can receive the
	// stream any more: the client left and did not resume it in time. A
	// request asking the client on it then gets an error instead of
	// waiting.
	Abandoned() <-chan struct{}
}
