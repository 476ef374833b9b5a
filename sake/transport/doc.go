// Package transport is what a transport needs from a sake server beyond
// sake.Server.Handle. A transport carries bytes: it frames messages, hands
// each one to the server, and writes back what the server sends. It never
// reads JSON-RPC itself; what it must know about a message (is it a
// request that may run beside others, is it long-lived, which session it
// belongs to) it learns from the Message the server decoded. sake/plug
// (Streamable HTTP) and sake/stdio need nothing of the server besides this
// package, Server.Handle and the types Handle speaks (sake.Inbound,
// sake.Reply, sake.Stream).
//
// # Two shapes of transport
//
// A transport with one exchange per message (HTTP) calls
// sake.Server.Handle, or Decode then Message.Handle when it must look at
// the message before running it (to hold its session, to choose between
// a JSON and a streamed answer).
//
// A transport with a long-lived connection (stdio, a socket) calls Connect
// once and then Conn.Decode for every message it reads:
//
//	conn := transport.Connect(srv, "mine", identity, out) // out is the connection's Stream
//	defer conn.Close()
//	for each line read {
//		m := conn.Decode(line)
//		if m.Concurrent() {
//			go func() { write(m.Handle(ctx)) }() // or a worker pool
//		} else {
//			write(m.Handle(ctx)) // before reading the next line
//		}
//	}
//	conn.EndInput() // the client can send nothing more
//
// where write sends Reply.Body when it is not nil and Reply.Cancelled is
// false. The server owns every legacy session: a Conn keeps the one its
// initialize opened; an HTTP transport names it with
// sake.Inbound.SessionID.
//
// # Doing more
//
// A transport that writes a reply out before it handles the next message
// on the same goroutine can lend the server a buffer for it
// (Message.HandleInto) and allocate no reply body. One that runs requests
// on the goroutine reading its input implements AnswerAwaiter on its
// Stream, so that a request waiting for the client's answer does not hold
// the reading; one whose client can leave a stream and resume it
// implements ResumableStream.
//
// A transport that keeps legacy sessions itself (HTTP) finds the one a
// message names with FindSession or SessionFor, holds it while a request
// or stream uses it (Hold), gives it a stream for the messages outside
// requests (SetSender; Send writes one there, or returns ErrNoStream),
// expires it when idle (LastUsed, CloseIdle), ends its own copy when it
// stops serving (CloseHere: a session shared with other replicas goes on
// there), and drops what it keeps for it when the server ends it
// (AfterClose).
// One that recovers panics of the code it runs in its own goroutines, or
// that serves an in-process client, reports them through
// WithPanicHandler. protocol.ErrorBody answers input refused before the
// server sees a message.
package transport
