// Package saketest connects a test client to a sake server in memory.
//
// The client is sake/client's Client, the project's one MCP client, whose
// transport is the server itself (sake/client/memory): every request is
// encoded as JSON and handed to the same dispatcher that sake/plug and
// sake/stdio use, so argument validation, errors, results and
// notifications are the production ones. Calls return what a client would
// get: values, *sake.Error for JSON-RPC errors (match them with errors.As),
// and *sake.ToolError beside the result of a tool that answered with
// isError.
//
//	func TestGreet(t *testing.T) {
//		c := saketest.Connect(t, &Greeter{})
//		res, err := c.CallTool("greet", map[string]any{"name": "Rui"})
//		if err != nil {
//			t.Fatal(err)
//		}
//		if res.Text() != "Hello, Rui!" {
//			t.Errorf("got %q", res.Text())
//		}
//	}
//
// The client speaks the modern (2026-07-28) protocol by default: each
// request carries its version, capabilities and client info in _meta.
// Legacy() makes it run the initialize handshake and use a session, as a
// 2025-11-25 client does, so one test body can run in both eras.
// Handler sends the same client's requests through the host's HTTP stack
// instead (client.HTTP over an in-process round tripper). What saketest
// adds is for tests: the simulated caller (a token from Scopes, Subject,
// ClientID, ACR, AuthTime or Claims; Principal),
// records of what the server sent and asked, assertions, broadcast
// listeners, panics reported at the test's line, the goroutine check and
// the wire trace.
//
// BothEras runs one test body in both eras, as two subtests, and returns
// once both have run:
//
//	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
//		c := saketest.Connect(t, &Greeter{}, opts...)
//		...
//	})
//
// A panic in a tool, resource, prompt or completion fails the test by
// default, once, at the line of the call, with the stack of the
// application's frames; ReturnPanics() lets the test see the error result
// a client would get instead. Through Handler too: each call's context
// carries the report back (transport.WithPanicHandler), so the host's
// stack must hand the request's context on to the server, as sake/plug
// does.
//
// Snapshot compares a server's surface (tools and their schemas,
// resources, templates, prompts, capabilities) with a golden file, the one
// `sake snapshot` writes; SAKETEST_UPDATE=1 rewrites it.
//
// When the test ends, Connect checks that no goroutine started during the
// client's calls (by a tool, a task or the transport) still runs
// (WithoutLeakCheck turns it off), and when it failed, prints the messages the
// client exchanged (Trace). Waits are bounded per client (WaitTimeout), per
// listener or per call (Listener.Within), never by a shared variable.
package saketest
