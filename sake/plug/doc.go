// Package plug serves a sake.Server over Streamable HTTP: both protocol
// eras, the stateless 2026-07-28 revision ("modern") and the 2025-11-25
// handshake-and-session revision ("legacy"), on one URL.
//
// The package frames bytes, reads headers, picks status codes and keeps
// legacy sessions and their streams. It holds no JSON-RPC method logic:
// every message goes to sake.Server.Handle, which classifies, validates
// and answers it.
//
// # Mounting
//
// A *Handler is an http.Handler. Mount it on chi, on http.ServeMux or on
// any router, at the path of the MCP endpoint:
//
//	srv := sake.MustNew(&Tools{})
//	h := plug.New(srv, plug.AllowedHosts("mcp.example.com"))
//	defer h.Close()
//
//	r := chi.NewRouter()
//	r.Mount("/mcp", h) // or r.Handle("/mcp", h); or mux.Handle("/mcp", h)
//	httpServer := &http.Server{Addr: ":8080", Handler: r}
//	httpServer.RegisterOnShutdown(h.Close)
//
// The handler passes the URL a request addressed (scheme, Host, path) to
// the server as the base URL; behind a TLS-terminating proxy it believes
// X-Forwarded-Proto: https. Close ends open streams, which
// http.Server.Shutdown would otherwise wait for.
//
// # Which era a request belongs to
//
// The dispatcher decides per message (sake/dispatch.go, classify), from
// what it has already decoded:
//
//  1. A body that is not one JSON object is refused: -32700 (not JSON) or
//     -32600 (an array, a batch, or not JSON-RPC), HTTP 400.
//  2. params._meta carries io.modelcontextprotocol/protocolVersion or
//     io.modelcontextprotocol/clientCapabilities: modern. Mcp-Session-Id
//     is ignored; the MCP-Protocol-Version, Mcp-Method, Mcp-Name and
//     Mcp-Param-* headers must match the body.
//  3. The MCP-Protocol-Version header names a version that is not a legacy
//     one, the method is not initialize, and no known session is named:
//     modern (and then missing _meta is -32602, an unknown version -32022).
//  4. Anything else is legacy: initialize starts a session (its id comes
//     back in Mcp-Session-Id); a known Mcp-Session-Id routes the message to
//     its session; an unknown or ended one gets 404; without a session the
//     message is served statelessly at the version its header names, or
//     2025-03-26. Client notifications and JSON-RPC responses (answers to
//     server-initiated requests) are legacy and get 202.
//
// GET and DELETE are legacy only: they need the Mcp-Session-Id of a live
// session.
//
// # Limits
//
// Every limit is an option with a default:
//
//	request body                       4 MiB          MaxBodyBytes (413)
//	time to read a body                30 s           BodyReadTimeout (408)
//	idle legacy session                30 min         SessionIdleTimeout
//	replay events per stream           256            ReplayBuffer
//	replay bytes per session           4 MiB          ReplayBytes
//	replay bytes per handler           64 MiB         ReplayBytes
//	finished streams kept per session  16             (fixed)
//	a dropped stream's questions       30 s           ResumeGrace
//	Retry-After of a 503               5 s            DefaultRetryAfter
//	legacy sessions kept by a handler  10000          MaxSessions (idle LRU evicted, else 503)
//
// Replay events beyond a bound are dropped oldest first; a GET resuming
// from before a dropped event gets 410 and sends its request again. The
// server's own limits (sessions per owner and in all, requests in flight,
// id and progress token size) are in the sake package documentation.
//
// # HTTP status codes
//
//	what happened                                   status
//	Host not allowed (DNS rebinding protection)     403
//	Origin not allowed, or not as a browser sends   403
//	the handler was closed                          503
//	a method other than POST, GET or DELETE         405, Allow: GET, POST, DELETE
//	POST without Content-Type: application/json     415
//	Accept allows neither JSON nor SSE (GET: SSE)   406
//	Identify returned an error                      401 (or the error's HTTPStatus)
//	the token cannot be checked (key set outage)    503, Retry-After
//	body larger than MaxBodyBytes                   413
//	body not in within BodyReadTimeout              408, Connection: close
//	  (a body refused unread is read, or its connection closed, within it)
//	notification or JSON-RPC response accepted      202, no body
//	request answered                                200, application/json (or per the error code, below)
//	a notification came before the reply            200, text/event-stream
//	initialize with no room for a session           503, Retry-After (-32000, sake.TooManySessionsMessage)
//	session store down (read or write)              503, Retry-After (-32000 "session store")
//	initialize while the server shuts down          503, Retry-After
//	GET or DELETE without Mcp-Session-Id            405, Allow: POST
//	unknown or ended session (POST, GET, DELETE)    404 (not while a session store is down: 503)
//	GET with a Last-Event-ID no stream issued       400
//	GET with a Last-Event-ID whose events dropped   410
//	DELETE of a live session                        204
//	panic in the handler                            500
//
// For a JSON reply, the JSON-RPC error code sets the status. Modern era:
// -32700, -32600, -32602, -32020, -32021 and -32022 are 400, -32601 is 404,
// any other error 200. Legacy era: -32700 and -32600 are 400 (404 when
// the session is gone), any other error 200. The transport's own
// refusals carry a JSON-RPC error with a null id.
//
// # Streams
//
// A POST answers with JSON unless the dispatcher sends a notification
// (progress, a log message, a subscriptions/listen event) before the
// reply; the response then becomes text/event-stream, one SSE event per
// message, the reply last. A client whose Accept allows only JSON gets no
// notifications; one that allows only SSE gets the reply as an event.
//
// Modern streams carry no event ids, and closing one cancels the request.
// Legacy streams of a session are resumable: the first event primes the
// stream (an id, retry: 1000, empty data), every event has an id
// "<stream>-<seq>" unique within the session, and each stream keeps its
// last ReplayBuffer events. A legacy client's disconnect does not cancel
// its request (it cancels with notifications/cancelled); it reconnects
// with GET and Last-Event-ID, gets the events it missed, then the rest of
// that stream. A GET without Last-Event-ID opens the session's standalone
// stream, where list changes, resource updates and server-initiated
// requests go; it gets a comment every 25 seconds while idle. A new GET
// takes the stream over from an older one. A request whose connection
// dropped (or that closed it with Context.CloseStream) and that nobody
// resumes within ResumeGrace (30 seconds) can no longer ask the client:
// its questions fail at once instead of waiting for the ask timeout.
// When the server closes a stream mid-call it says Connection: close, so
// a pooling client does not send its next request on that connection.
//
// # Sessions
//
// The sake.Server owns the legacy sessions: it creates them, checks their
// owner on every message (Inbound.SessionID), limits them
// (sake.Limits.MaxSessions, 10000 per server;
// sake.Limits.MaxSessionsPerOwner, 100 per owner, anonymous callers counted
// per remote IP, the owner's least recently used idle session evicted to
// make room, 503 when none is idle) and caps each one's requests in flight
// (sake.Limits.MaxInFlight, 256; beyond it -32000). The handler keeps only
// what is HTTP's: each session's SSE streams and replay
// buffers, keyed by the session, and drops them the moment the server ends
// the session (transport.AfterClose), whoever ends it. Anonymous sessions
// count against the caller's IP (IPv6: its /64): behind a reverse proxy
// every anonymous caller has the proxy's, so there authenticate callers
// (Identify) to give each its own quota. When a session store
// (sake.SessionStore) cannot be read, a session's message gets 503
// with Retry-After rather than 404: the session is not known to be gone.
//
// # Security
//
// Without AllowedHosts, a request that arrived on a loopback address must
// carry a loopback Host (localhost, 127.0.0.0/8, ::1, any port): a web page
// cannot reach a local server through DNS rebinding. Without
// AllowedOrigins, a browser's Origin must name the Host it addressed, or,
// on a loopback address, any loopback origin (a local inspector on
// another port); foreign origins are refused, and so is an Origin that is
// not exactly scheme://host[:port] as a browser sends it (http or https,
// a port from 1 to 65535, no path, userinfo or query).
// Identify authenticates every request; a legacy session belongs to the
// identity that created it.
//
// # Options
//
// AllowedHosts, AllowedOrigins: the Host and Origin allowlists ("*"
// disables a check). MaxBodyBytes: the largest body (4 MiB).
// SessionIdleTimeout: when an idle legacy session expires (30 minutes).
// MaxSessions: the cap on live legacy sessions (10000). ReplayBuffer:
// events each legacy stream keeps for resumption (256). ResumeGrace: how
// long an abandoned legacy stream waits for its client (30 seconds).
// Identify: the authentication hook. Logger: where the handler logs.
package plug
