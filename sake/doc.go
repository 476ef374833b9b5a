// Package sake builds Model Context Protocol servers from Go values.
//
// A server is a struct: its exported methods that take a context first
// become tools, their argument structs become JSON Schemas, and a Declare
// method says the rest (descriptions, annotations, which methods are
// resources, prompts and completions, and what each requires of its
// caller). New reflects a type once and caches what it learns, so building
// a server per request costs a map lookup.
//
//	type Greeter struct{}
//
//	type GreetArgs struct {
//		Name string `json:"name" jsonschema:"description=Who to greet"`
//	}
//
//	func (Greeter) Greet(ctx *sake.Context, a GreetArgs) (string, error) {
//		return "Hello, " + a.Name + "!", nil
//	}
//
//	srv, err := sake.New(Greeter{})
//
// The vocabulary a tool writes (Text, ToolResult, Error, the error codes,
// ElicitAction, SamplingRequest, ...) is that of package sake/protocol,
// which the client (sake/client) and the test client (sake/saketest)
// share; the names here are aliases of it. A test meets the server as a
// client does, in memory, through saketest.Connect.
//
// # One dispatcher, two eras
//
// Server.Handle answers every JSON-RPC message of both protocol eras: the
// stateless 2026-07-28 revision, where each request carries its version and
// client capabilities in params._meta, and the handshake era (2025-11-25,
// 2025-06-18, 2025-03-26, 2024-11-05), where initialize opens a Session.
// Each message is decoded once and classified by what it carries: modern
// _meta (or a modern MCP-Protocol-Version header) means modern; initialize,
// or a session, means legacy. The transports (sake/plug for Streamable
// HTTP, sake/stdio) and the test client (sake/saketest) all go through
// Server.Handle or package sake/transport (Decode and Message, Connect and
// Conn); none of them interprets JSON-RPC, and the server owns every
// session. A new transport needs nothing else: see package sake/transport.
//
// Limits, with their defaults: Limits.MaxSessions (10000 legacy sessions
// per server; when full, the owner holding the most gives up an idle one),
// Limits.MaxSessionsPerOwner (100 per owner; anonymous callers per remote
// address, IPv6 per /64; the owner's least recently used idle session makes
// room), Limits.MaxInFlight (256 requests at once per session or
// connection; beyond it -32000), Limits.MaxSubscriptions (256 resources per
// session) and Limits.MaxSubscriptionURIBytes (2048 bytes; beyond either
// -32602). Server.Shutdown refuses new sessions, ends listen streams and
// sessions, and waits for the requests still running.
//
// In the modern era every result carries resultType, the six cacheable
// results carry ttlMs and cacheScope, and _meta names the server. The
// legacy era gets the shapes of its revision: no resultType, -32002 for an
// unknown resource, server-initiated requests on the session.
//
// # Asking the client
//
// Tool, resource and prompt code asks the user (Context.Elicit), the
// client's model (Context.Sample) or the client's roots (Context.ListRoots)
// with one call, whatever the era. In the legacy era the call sends a
// request on the session and waits for the answer. In the modern era it
// returns ErrInputRequired: the tool returns that error, the dispatcher
// answers with an input_required result listing every question asked and a
// requestState signed with the server's secret, bound to the caller and
// the request, and expiring; when the client retries with the answers the
// tool runs again and each question finds its answer by key. Work done
// before the first question is repeated on each round: keep it free of
// side effects, or keep its results in the request state with Context.Keep.
//
// # Authorization
//
// A component may require OAuth scopes and an authentication level
// (ToolDef.Scopes, ToolDef.Authentication, and the server-wide
// RequireScopes and RequireAuthentication). Requirements fail closed: over
// HTTP (and any transport but stdio and memory) a component that declares
// them never runs for a caller who has not proven them, so an anonymous
// caller is refused and any identity, from a token or a custom
// plug.Identify, is checked against its Scopes, ACR and AuthTime. Over
// stdio and in memory the host vouches for its caller: there only
// identities from an access token (Identity.FromToken) are checked. A call
// that fails them returns
// *protocol.InsufficientScopeError (every scope the component needs, so that one
// new authorization covers them) or *protocol.InsufficientAuthenticationError
// (RFC 9470 acr_values and max_age), which sake/plug turns into 403 and
// 401 challenges. Lists show every component, whatever the caller's
// scopes, so that a client can discover a tool and step up when it calls
// it; the lists are therefore the same for everyone and cacheable as
// "public". The PerCallerLists option instead shows each caller only what
// it may use, in lists marked "private".
//
// # Reshaping
//
// Server.Transform renames and re-describes components, and renames,
// re-describes, defaults, hides or wraps a tool's arguments; Server.Enable
// and Server.Disable switch components on and off by name or tag while the
// server runs. Both work by name on what the server holds, its own
// components, those added later, mounted or proxied, alike.
//
// # Versions
//
// A tool, prompt or resource may declare a version (ToolDef.Version and
// its siblings); several versions of one name are served side by side.
// Lists show the highest (CompareVersions orders them) with the versions
// in _meta (MetaComponentVersion, MetaComponentVersions), and a request
// asks for another with MetaComponentVersion in its _meta; a version the
// server does not serve is answered as an unknown name. Server.Disable
// takes one version (Components.Version), and Server.FilterVersions serves
// a range (VersionFilter).
//
// # Limits
//
// The dispatcher bounds what a caller can grow, each with a default:
// Limits.MaxSessions (10000) and Limits.MaxSessionsPerOwner (100) legacy
// sessions, Limits.MaxInFlight (256) requests per session or connection,
// Limits.MaxSubscriptions (256) resources a session subscribes to, each URI
// of at most Limits.MaxSubscriptionURIBytes (2048 bytes) of valid UTF-8
// without NUL and naming a resource or template the server serves (else
// -32602, and nothing is kept), request ids and progress tokens of at most
// protocol.MaxIDBytes (256 bytes of JSON; longer ones get -32600 and
// -32602), Limits.RequestStateTTL (10 minutes), Limits.MaxSingleUseStates
// (100000) redeemed single-use states remembered, and decoded client
// capabilities cached only for values up to 2 KiB, 256 KiB in all. A
// 2025-03-26 batch is flat: an element that is an array is one -32600
// answer, decided without looking inside it. A retry's inputResponses count
// only for the questions its requestState asked; others are ignored. Owners
// (Identity.Owner) are type-prefixed and escaped.
//
// # Tasks
//
// A tool declared with ToolDef.Task runs as a task its caller polls when the
// server has a task manager (the Tasks option, sake/tasks) and the client can
// take one: the 2026-07-28 tasks extension (tasks/get, tasks/update,
// tasks/cancel, notifications/tasks on subscriptions/listen) or the 2025-11-25
// experimental tasks (params.task, tasks/get, tasks/result, tasks/list,
// tasks/cancel). The tool's code does not change: Context.Progress sets the
// task's status message, questions park the task until the client answers,
// and cancelling the task ends its context. Tasks belong to the caller
// (Identity.Owner); nobody else can see them.
//
// # Errors
//
// A tool's error becomes a result with isError set, which the model reads;
// invalid arguments too, with a message naming each field. A *Error
// becomes a JSON-RPC error. A panic in user code becomes an error result,
// is logged, and the server goes on.
package sake
