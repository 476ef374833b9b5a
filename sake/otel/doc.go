// Package otel traces and measures a sake server with OpenTelemetry,
// following the OpenTelemetry semantic conventions for the Model Context
// Protocol. One option switches it on:
//
//	srv := sake.MustNew(&Weather{}, sakeotel.Instrument())
//
// (imported as sakeotel "github.com/sakemcp/sake-go/sake/otel"). It uses the
// global tracer and meter providers and propagator unless options name
// others; with no provider installed its spans and metrics are no-ops.
//
// # Spans
//
// Every request and notification gets one SERVER span, named
// "{mcp.method.name} {target}" (the tool of tools/call, the prompt of
// prompts/get) or "{mcp.method.name}", with mcp.method.name,
// jsonrpc.request.id, mcp.protocol.version, mcp.session.id (legacy
// sessions), gen_ai.tool.name and gen_ai.operation.name "execute_tool"
// (tools/call), gen_ai.prompt.name (prompts/get), mcp.resource.uri
// (resources/read, subscribe, unsubscribe), network.transport ("tcp" over
// HTTP, "pipe" over stdio) and network.protocol.name/version (HTTP). A failed
// request has error.type (the JSON-RPC code, or "tool_error" for a tool
// result with isError), rpc.response.status_code (the JSON-RPC code) and an
// error status.
//
// The span's parent is the W3C trace context the client sent in
// params._meta (traceparent, tracestate, baggage); the context the request
// arrived with (an HTTP server span, or the trace context of the HTTP
// headers extracted by Handler) is then a link. Without _meta the span is
// the child of that context.
//
// Inside a request's span: an INTERNAL span per question asked in the
// modern era or by a task ("elicitation/create", "sampling/createMessage",
// "roots/list"), a CLIENT span per request sent to a legacy client for the
// same, and for a call that becomes a task an INTERNAL span "task {tool}"
// from its creation until its work ends, child of and linked to the
// request that created it; the task's code runs in it. A panic in user code
// is an "exception" event on the span it ran in.
//
// # Metrics
//
//   - mcp.server.operation.duration (histogram, s): every request and
//     notification, with the conventions' bucket boundaries.
//   - mcp.server.session.duration (histogram, s): legacy sessions, when they
//     close.
//   - sake.server.tool.errors (counter): tool results with isError, by tool.
//   - sake.server.tasks.active (up-down counter): tasks whose work runs.
//   - sake.server.sessions.open (up-down counter): open legacy sessions.
//   - sake.server.listen_streams.open (up-down counter): open
//     subscriptions/listen requests and, through Handler, legacy GET
//     streams.
//
// # What is recorded
//
// Nothing secret: no tokens, headers, arguments or results. Session and
// task ids are recorded as a SHA-256 digest (the first 16 bytes, in hex)
// unless RawIDs is given (over HTTP
// a session id is the session's only credential when the server has no
// authorization). Arguments and results of the tools named in RecordToolIO
// are recorded as gen_ai.tool.call.arguments and gen_ai.tool.call.result,
// each truncated to 8 KiB. Names longer than 128 bytes are truncated, and
// an unknown tool or prompt (answered -32602) does not name the span or the
// metrics, so a caller cannot grow their cardinality.
//
// # HTTP, clients and logs
//
// Handler wraps the HTTP handler (sake/plug) to continue the trace of the
// HTTP headers when _meta carries none, to record the HTTP version, and to
// count legacy GET streams. RoundTripper instruments an MCP client's HTTP
// transport (sake/client, or any other): a CLIENT span per request, named
// from the Mcp-Method and Mcp-Name headers, whose context travels in the
// traceparent header. LogHandler adds trace_id and span_id to slog records
// logged with a span's context, which the server does for the panics it
// logs.
package otel
