package client

import (
	"context"
	"strconv"

	"github.com/sakemcp/sake-go/sake/protocol"
)

// Transport carries the client's messages to one server. HTTP, Command,
// Stream and InProcess (sake/client/memory.Transport) build one; a
// Transport serves one Client.
type Transport interface {
	// bind hands the transport the function that receives every message
	// the server sends besides the responses to the client's requests (with
	// the context of the call it came with, when the transport knows it,
	// else nil), and opens the connection.
	bind(ctx context.Context, incoming func(ctx context.Context, msg []byte), o *options) error
	// roundTrip sends a request and returns its response. When ctx ends
	// first it cancels the request the way its era asks and returns the
	// context's error.
	roundTrip(ctx context.Context, m *message) ([]byte, error)
	// send sends a notification or a response.
	send(ctx context.Context, m *message) error
	// established says the era is settled (after the handshake, or
	// server/discover).
	established(era protocol.Era, version string)
	// ready waits until the server can reach the client outside its
	// requests (a session's GET stream is open, or was refused).
	ready(ctx context.Context) error
	// close ends the connection; a legacy session ends with it.
	close() error
}

// message is one outgoing JSON-RPC message and what a transport needs to
// know about it without reading it.
type message struct {
	id      int64 // 0: a notification or a response
	method  string
	body    []byte
	era     protocol.Era
	version string
	// name is the Mcp-Name header (tools/call, prompts/get,
	// resources/read, tasks/*) when hasName.
	name    string
	hasName bool
	// params are the Mcp-Param-* headers of a tools/call.
	params [][2]string
	// long marks a request whose answer is a stream that lasts
	// (subscriptions/listen).
	long bool
	// handshake marks initialize, whose response starts a session.
	handshake bool
}

// cancelled is the notification that cancels request id.
func cancelled(id int64, reason string) []byte {
	b := protocol.AppendNotificationHead(nil, "notifications/cancelled")
	b = append(b, `{"requestId":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"reason":`...)
	b = strconv.AppendQuote(b, reason)
	return append(b, `}}`...)
}
