package sake

import (
	"encoding/json"

	"github.com/sakemcp/sake-go/sake/protocol"
)

// message is one incoming message, decoded once: the value behind
// transport.Message, whose documentation its exported methods follow. The
// transport may look at it, then calls Handle (or HandleInto) exactly
// once.
type message struct {
	// The server is req.srv, set when the message is decoded.
	in   *Inbound
	msg  []byte
	kind protocol.Kind
	era  Era
	fail *Reply // the answer, when decoding decided it

	paramsErr *decodeError
	flights   *inFlight // the tracker of req.fl, the request's entry, if tracked

	// One allocation holds the message, its request, params, _meta and
	// the handlers' Context.
	env    envelope
	params Params
	meta   RequestMeta
	req    Request
	ctx    Context
}

// decodeNew decodes msg into a new message, with what the transport knows
// about it (nil for nothing).
func (s *Server) decodeNew(msg []byte, in *Inbound) *message {
	m := &message{}
	if in == nil {
		in = &Inbound{}
	}
	s.decode(m, msg, in)
	return m
}

// Kind returns what the message is.
func (m *message) Kind() protocol.Kind { return m.kind }

// ID returns the id of a request or a response, as sent.
func (m *message) ID() json.RawMessage { return m.env.ID }

// Method returns the method of a request or a notification, or "".
func (m *message) Method() string { return m.env.method }

// Era returns the era the message was classified into.
func (m *message) Era() Era { return m.era }

// Session returns the legacy session the message belongs to, or nil.
func (m *message) Session() *Session {
	if m.era == EraLegacy {
		return m.in.Session
	}
	return nil
}

// LongLived reports a request that runs until it is cancelled or the
// server shuts down (subscriptions/listen).
func (m *message) LongLived() bool {
	return m.kind == protocol.KindRequest && m.fail == nil && m.env.method == "subscriptions/listen"
}

// Concurrent reports a request that may run beside others; everything
// else must be handled in order (see transport.Message).
func (m *message) Concurrent() bool {
	return m.kind == protocol.KindRequest && m.fail == nil && m.env.method != "initialize"
}

// Cancels returns the id of the request a notifications/cancelled names,
// or nil.
func (m *message) Cancels() json.RawMessage {
	if m.kind == protocol.KindNotification && m.env.method == "notifications/cancelled" {
		return m.params.RequestID
	}
	return nil
}
