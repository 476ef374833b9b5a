// Package client calls Model Context Protocol servers, in both protocol
// eras, over Streamable HTTP, stdio or in memory (sake/client/memory).
//
// It speaks the vocabulary of sake/protocol and imports no server code:
// a program that only connects to servers links neither the sake
// package nor its schema reflection.
//
//	c, err := client.Connect(ctx, client.HTTP("https://example.com/mcp", nil))
//	if err != nil { ... }
//	defer c.Close()
//	res, err := c.CallTool(ctx, "greet", map[string]any{"name": "Ada"})
//
// # Eras
//
// Connect asks the server what it speaks with server/discover and uses the
// stateless 2026-07-28 revision when it is offered; otherwise it runs the
// initialize handshake of 2025-11-25, accepting any revision down to
// 2024-11-05 the server answers with. ProtocolVersion pins a revision
// instead. In the handshake era over HTTP the client keeps the session
// (Mcp-Session-Id), opens the standalone GET stream for the server's
// notifications and requests, resumes broken streams with Last-Event-ID,
// starts a new session when the server forgets the old one, and ends the
// session with DELETE on Close.
//
// # Answering the server
//
// The handlers given with OnElicit, OnSample and Roots answer the server's
// questions, whatever the era: a 2026-07-28 server returns an
// input_required result, which the client answers and retries with
// inputResponses and requestState until the call completes (at most
// MaxInputRounds rounds); an older server sends requests during the call,
// which the client answers on the session. The client declares a
// capability only when it has the handler for it.
//
// # Errors
//
// Calls return errors as values: *protocol.Error for a JSON-RPC error,
// *protocol.ToolError beside the result when a tool answered with isError,
// *protocol.InsufficientScopeError and *protocol.InsufficientAuthenticationError
// when the server asks for a stronger authorization (with the raw
// challenge), and *HTTPError for a transport failure (its status, with the
// JSON-RPC error inside when the body held one; for a redirect, where it
// points). An answer that is not the response to its request (another id)
// is an error, never a result.
//
// A handler that answers the server's questions (OnElicit, OnSample,
// OnRoots) and fails is reported to the server as -32603 with the error's
// text, unless it returns (or wraps) a *protocol.Error, which the server gets
// with its own code and message.
//
// # Limits
//
// Limits, with their defaults: MaxMessageBytes (16 MiB per message read
// from the server), MaxInputRounds (10 input_required rounds per call),
// ProbeTimeout (10s for the answer to server/discover), MaxServerRequests
// (256 of the server's requests answered at once; beyond it -32000,
// "too many requests in flight"), RetryPolicy (3 tries, waits from 200ms
// doubling to at most 10s), NewCache's CacheMaxEntries (1024 results),
// CacheMaxBytes (16 MiB; one result at most a quarter of it) and
// CacheMaxTTL (1 hour, whatever ttlMs says).
//
// # Retries and caches
//
// Retry makes the client try again a request that may run twice (lists,
// reads, completions, tools/call of a tool listed as read-only or
// idempotent; AllowRetry for any call of a context) when it failed on a
// connection error of the HTTP transport, an HTTP 429 or 503, or the
// JSON-RPC error -32029 on any transport. It waits what the server asks
// (data.retryAfterMs, Retry-After in seconds or as a date), else backs off
// exponentially with jitter, never past the call's deadline. Over stdio a
// server whose process ended stays ended: its calls fail at once.
//
// WithCache keeps tools/list, prompts/list, resources/list,
// resources/templates/list and resources/read results in a Cache, which
// clients may share, as long as the server's ttlMs allows: "private"
// results for the credential that fetched them only, "public" ones for
// every client of the server. A list_changed notification drops the
// list's entries, resources/updated the resource's.
//
// # Tasks
//
// CallTool waits for a tool the server runs as a task: it listens for the
// task's notifications where the server offers them and otherwise polls at
// the interval the server asks, answering the task's questions with the
// same handlers. StartTool returns the task instead, for GetTask,
// UpdateTask, CancelTask, AwaitTask and TaskResult.
//
// # Observing
//
// OnMessage shows every message the client sends and receives, OnQuestion
// every question the server asks (whichever era carried it), and Raw sends
// a hand-made message in the client's session: sake/saketest, the test
// client, is this client on the in-memory transport (sake/client/memory)
// with these on top.
//
// # Authorization
//
// OAuth makes an HTTP transport authorize itself: on a 401 it discovers the
// protected resource and its authorization server, identifies the client
// (metadata document, dynamic registration or a pre-registered id), runs
// the authorization code flow with PKCE through a browser hook (or the
// device authorization grant through OAuthConfig.Device, for a machine
// without a browser; or, with no user, the client credentials grant or the JWT bearer grant of
// OAuthConfig.Assertion: a workload's identity token, or an enterprise
// identity provider's assertion through EnterpriseIdP), binds tokens to a
// key with DPoP (answering servers' nonces), keeps tokens in a TokenStore, refreshes them
// before they expire and steps up when the server asks for more scopes or
// a stronger sign-in. A token is only ever sent to the resource it was
// issued for.
//
// The HTTP transport follows no redirects: a 3xx answer is an *HTTPError
// naming its Location, and the fix is to configure that URL as the
// endpoint. So credentials (Authorization, DPoP proofs, the headers given
// with Header) never reach an origin other than the endpoint's.
//
// # Forwarding
//
// A call made with WithForward's context is made for another party, such
// as a proxy's caller (sake/proxy builds a sake server from a Client this
// way): a 2026-07-28 request declares the party's capabilities and log
// level, not the client's own, and with ForwardQuestions the server's
// questions and log messages of the call go to the party's Caller.
// InProcess and Endpoint connect to a server in the same process
// (sake/client/memory).
package client
