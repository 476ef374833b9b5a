package client

import (
	"context"
	"errors"

	"github.com/sakemcp/sake-go/sake/protocol"
)

// Endpoint is a server in the same process, reached through function
// calls instead of a wire. Package sake/client/memory makes one of a
// *sake.Server; InProcess turns one into a Transport.
type Endpoint interface {
	// Open hands the endpoint the function that receives every message
	// the server sends besides responses: with the context of the call it
	// belongs to when the endpoint knows it, else nil.
	Open(incoming func(ctx context.Context, msg []byte)) error
	// Exchange hands the server one message and returns its answer: the
	// response to a request; for anything else (a notification, an
	// answer to the server's request) nothing, or the error response the
	// server refused it with. It returns ErrSessionGone when the server
	// no longer knows the session, and ErrClosed after Close.
	Exchange(ctx context.Context, m Outgoing) ([]byte, error)
	// SessionID is the id of the handshake era's session, or "".
	SessionID() string
	// Close ends the connection, and the session with it.
	Close() error
}

// Outgoing is one message the client sends to an Endpoint, and what the
// endpoint needs to know of it without reading it.
type Outgoing struct {
	// Body is the JSON-RPC message.
	Body []byte
	// ID is a request's id, 0 for a notification or an answer.
	ID int64
	// Method is the method of a request or notification.
	Method string
	// Era is the era the client speaks with the server.
	Era protocol.Era
	// Initialize marks the handshake's request, whose response starts a
	// session.
	Initialize bool
	// Forwarded marks a call made for another party (see WithForward):
	// the server's messages of the call go to incoming with its context.
	Forwarded bool
	// Raw asks for the server's answer as it is, whatever it is
	// (Client.Exchange).
	Raw bool
}

// ErrSessionGone says the server no longer knows the handshake era's
// session; the client opens a new one and tries once more.
var ErrSessionGone = errors.New("client: the server ended the session")

// InProcess returns a Transport over an Endpoint.
func InProcess(e Endpoint) Transport { return &inProcess{e: e} }

type inProcess struct{ e Endpoint }

func (t *inProcess) outgoing(ctx context.Context, m *message) Outgoing {
	return Outgoing{Body: m.body, ID: m.id, Method: m.method, Era: m.era, Initialize: m.handshake, Forwarded: forwardOf(ctx) != nil}
}

func (t *inProcess) bind(_ context.Context, incoming func(context.Context, []byte), _ *options) error {
	return t.e.Open(incoming)
}

func (t *inProcess) roundTrip(ctx context.Context, m *message) ([]byte, error) {
	return t.e.Exchange(ctx, t.outgoing(ctx, m))
}

func (t *inProcess) send(ctx context.Context, m *message) error {
	body, err := t.e.Exchange(ctx, t.outgoing(ctx, m))
	if err != nil || body == nil {
		return err
	}
	_, err = decodeResponse(body)
	return err
}

func (t *inProcess) raw(ctx context.Context, m *message, _ string) ([]byte, error) {
	o := t.outgoing(ctx, m)
	o.Raw = true
	return t.e.Exchange(ctx, o)
}

func (t *inProcess) established(protocol.Era, string) {}

func (t *inProcess) ready(context.Context) error { return nil }

func (t *inProcess) close() error { return t.e.Close() }

func (t *inProcess) sessionID() string { return t.e.SessionID() }
