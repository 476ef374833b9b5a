package client

import (
	"context"
)

// tapTransport shows every message of the transport it wraps to the
// OnMessage function.
type tapTransport struct {
	Transport
	fn func(sent bool, msg []byte)
}

func (t *tapTransport) bind(ctx context.Context, incoming func(context.Context, []byte), o *options) error {
	return t.Transport.bind(ctx, func(ctx context.Context, msg []byte) {
		t.fn(false, msg)
		incoming(ctx, msg)
	}, o)
}

func (t *tapTransport) roundTrip(ctx context.Context, m *message) ([]byte, error) {
	t.fn(true, m.body)
	body, err := t.Transport.roundTrip(ctx, m)
	if len(body) > 0 {
		t.fn(false, body)
	}
	return body, err
}

func (t *tapTransport) send(ctx context.Context, m *message) error {
	t.fn(true, m.body)
	return t.Transport.send(ctx, m)
}

// sessionOf returns the id of the transport's legacy session, if it has
// one.
func sessionOf(t Transport) string {
	if tt, ok := t.(*tapTransport); ok {
		t = tt.Transport
	}
	if s, ok := t.(interface{ sessionID() string }); ok {
		return s.sessionID()
	}
	return ""
}
