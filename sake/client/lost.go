package client

// losingTransport is a transport that knows when its connection is gone
// for good (a command's server that exited, a stream that ended).
type losingTransport interface {
	lost() <-chan struct{}
	lostErr() error
}

func losing(t Transport) losingTransport {
	if tt, ok := t.(*tapTransport); ok {
		t = tt.Transport
	}
	l, _ := t.(losingTransport)
	return l
}

// Lost returns a channel that is closed as soon as the connection to the
// server is gone for good: with Command, the server exited or closed its
// output; with Stream, the stream ended. Every call then fails; a
// supervisor (sake/gateway) reconnects at once instead of finding out at
// its next ping. It is nil, and never ready, for the transports whose
// requests each find out for themselves (HTTP, in memory).
func (c *Client) Lost() <-chan struct{} {
	if l := losing(c.t); l != nil {
		return l.lost()
	}
	return nil
}

// LostErr says why the connection is gone, once Lost is closed (the
// command's exit status when it has exited); nil before.
func (c *Client) LostErr() error {
	l := losing(c.t)
	if l == nil {
		return nil
	}
	select {
	case <-l.lost():
		return l.lostErr()
	default:
		return nil
	}
}
