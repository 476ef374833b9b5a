// Package stdio serves a sake.Server over a byte stream: the standard
// input and output of a process that an MCP client started (ServeStdio),
// or any reader and writer, such as a Unix socket or a TCP connection
// (Serve).
//
//	func main() {
//		srv := sake.MustNew(&Weather{})
//		if err := stdio.ServeStdio(srv); err != nil {
//			log.Fatal(err)
//		}
//	}
//
// # Framing
//
// Every message is one line of JSON-RPC: a JSON object followed by "\n".
// A trailing "\r" is ignored, and so are blank lines. Lines are read with
// a buffered reader, not a fixed-size scanner: a message may be up to
// MaxLineBytes long (4 MiB by default). A longer line is discarded as it
// is read, without holding it in memory, and answered with a -32600 error
// whose id is null; the next line is served as usual. A line that is not
// JSON gets the dispatcher's -32700 error, and serving goes on.
//
// Responses and notifications are written one per line through a single
// buffered writer, which is flushed whenever no other message is waiting
// to be written. A message never contains a raw newline: the dispatcher's
// JSON has none, and one coming from elsewhere (a json.RawMessage a tool
// returned pretty-printed) can only be whitespace, which becomes a space.
//
// The output carries nothing but protocol messages. The transport logs to
// os.Stderr (see Logger), which clients show or ignore; tools must not
// print to os.Stdout.
//
// # Both eras
//
// The transport reads no JSON-RPC: every line goes to a transport.Conn
// of the server, which decodes it once and says how to run it (a request
// that may run beside others, or a message to handle before the next line);
// the same Conn tracks the requests for cancellation and holds the legacy
// session. A modern
// (2026-07-28) request carries its version and capabilities in
// params._meta and is served on its own, before or after any initialize,
// including the server/discover probe a dual-era client sends first. A
// legacy (2025-11-25) client starts with initialize: its session belongs
// to the connection from then on, every later message is handled in it,
// and the server's broadcasts for it (list changes, resource updates) are
// written to the output once the client has sent
// notifications/initialized. A tool in a legacy session may ask the client
// (sampling, elicitation, roots): the request goes out like a
// notification, and the client's response is handled as soon as it is
// read, while the tool waits. A second initialize replaces the session,
// closing the first.
//
// # Concurrency
//
// Requests run concurrently, so a slow tool does not hold up the others:
// responses are written as they complete, in any order, and the
// notifications a request sends (progress, log messages) are written
// before its response. At most MaxConcurrent (64 by default) run at once.
// When nothing waits, the goroutine that reads runs the request itself,
// which costs no hand-off. A new goroutine takes over the reading as soon
// as that request asks the client something (sampling, elicitation, roots),
// so the answer is read at once, and otherwise when the request still runs
// 10 to 20 milliseconds later: a slow tool delays the next line by about
// that much, once, and the next requests go to a pool of workers started
// as needed, which stay until Serve returns. Long-lived requests
// (subscriptions/listen) always go to the workers. When every slot is
// busy, the next requests wait in a queue. Reading never waits for a
// worker, so a cancellation and the client's answers to the server's own
// questions always get through; the server bounds the requests in flight
// on the connection (sake.Limits.MaxInFlight, 256 by default) and refuses those
// beyond with a -32000 error.
//
// Responses are buffered while more whole lines wait in the input, and
// written out before the next read that may wait: a burst of requests is
// answered with one write.
//
// A proxy or gateway served this way forwards a tools/call to a stdio
// command without a goroutine waiting for its answer: its stream takes
// the response later (transport.ReplyDeferrer), and the forwarded
// requests of a burst are written to the command together
// (transport.BurstReader). Such a call holds no MaxConcurrent slot once
// forwarded; MaxInFlight counts it until it is answered, and Serve waits
// for it at the end of the input as for a running request.
//
// Notifications and responses from the client, and initialize, are handled
// one at a time as they are read, before the next line: a
// notifications/initialized or a notifications/cancelled takes effect
// before anything sent after it, and the messages after an initialize
// belong to its session.
//
// # Cancellation
//
// notifications/cancelled cancels the context of the request it names, in
// either era, and is then handed to the dispatcher as well. No response is
// written for a cancelled request: the dispatcher still returns one (often
// the tool's error), but the protocol says a cancelled request gets none,
// so the transport drops the response, and any later notification, of
// every request whose context was cancelled before it completed — by
// notifications/cancelled, by the end of Serve's context, or because a
// second initialize replaced the session it ran in.
//
// # Shutdown
//
// When the input ends (the client closes the server's stdin, its way of
// asking it to exit), Serve stops reading, lets the running requests
// finish and writes their responses, closes the legacy session, and
// returns nil. The requests that cannot finish without the client are
// cancelled: subscriptions/listen, and the requests of a legacy session
// waiting for the client's answer to a question (or asking one later). When the context is cancelled
// (ServeStdio: on SIGINT or SIGTERM), the running requests are cancelled,
// their late results are dropped, and Serve returns the context's error
// once they have returned. When a write fails (the client went away),
// Serve stops the same way and returns the write's error. In every case
// Serve returns only after every goroutine it started has ended; see
// Serve for how it interrupts a pending read.
package stdio
