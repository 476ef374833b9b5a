// Package middleware is the middleware a production MCP server needs: rate
// limits, a cache of results, per-tool timeouts and concurrency caps, a cap
// on result sizes, error masking, an access log and health probes. Each
// composes with
// sake.Use or sake.UseObserving (or, for the access log, is a server
// option) and with the others, and works the same in both protocol eras
// and over every transport:
//
//	rl, err := middleware.NewRateLimiter([]middleware.Limit{
//		{Rate: 10, Methods: []string{"tools/call"}},                  // 10 calls/s per caller
//		{Name: "search", Rate: 2, Tools: []string{"search", "fetch"}}, // a tool group
//		{Name: "server", Rate: 500, Key: middleware.Everyone},         // the whole server
//	})
//	cache, err := middleware.Cache{TTL: time.Minute}.Middleware()
//	limits, err := middleware.ToolLimits(middleware.ToolLimit{Timeout: 30 * time.Second, MaxConcurrent: 64, MaxPerSubject: 4})
//	sink := middleware.NewJSONSink(os.Stderr, nil) // Close it at exit
//	srv := sake.MustNew(impl,
//		sake.UseObserving(rl.Middleware()),
//		sake.Use(middleware.MaskErrors(logger), cache, limits, middleware.ResultCap{}.Middleware()),
//		middleware.AccessLog{Logger: slog.New(sink)}.Option())
//
// Put the rate limiter first, so that a refused request costs nothing, the
// cache before the tool limits, so that a kept result holds no slot, and
// the result cap last, nearest the tools. examples/production wires them
// all, with health probes and a graceful shutdown.
//
// # Observing or reading results
//
// The rate limiter looks at the request only and the access log at the
// outcome only (whether a tool result has isError set, the reply's
// length): install the rate limiter with sake.UseObserving, and the
// access log's Option does the same for its hook (sake.ObserveOutcome).
// With nothing else between a tool and the reply, a tool result left
// encoded, as a proxy or a gateway relays it, goes into the reply as the
// remote wrote it, without being decoded and encoded again. MaskErrors,
// ResultCap and Cache read or replace results, and ToolLimits replaces
// the result of a call that timed out: they are installed with sake.Use,
// which has such a result decoded for them.
//
// # Caching
//
// Cache keeps the results of tools marked read-only and of resources/read,
// keyed by the tool and its arguments in canonical form, or the URI, and,
// for a private result, by the subject who asked. A tool's results are
// private unless a CacheRule says otherwise; a resource's follow the
// server's cacheScope (sake.CacheHints). The component's requirement is
// checked before every hit (sake.Server.CacheHint), so a cached result is
// never served to a caller the tool or resource would refuse. A tool whose
// transform computes a hidden argument from the request
// (sake.ArgTransform.ValueFunc, a tenant from the token) is not cached: the
// caller's arguments do not say what it ran with. Errors and
// isError results are not kept. A resource update drops the resource's
// results, a tools or resources list_changed all results of that kind;
// with a broker (sake.Broker, sake/pgbroker) the changes raised on any
// replica reach every replica's cache. docs/caching.md is the guide.
//
// # Subjects
//
// Limits count per subject (SubjectOf): the person (the token's sub), a
// machine client acting for itself (its client id), an anonymous caller
// over HTTP (its IP address; for IPv6 its /64), or, without any of these
// (stdio, the in-memory test client without an identity), one anonymous
// subject. ByClient counts per OAuth client instead, Everyone counts the
// whole server together, and a Limit's Key may be any function. Behind a
// reverse proxy the HTTP stack must restore the client's address (a
// trusted X-Forwarded-For middleware before the MCP handler), or every
// anonymous caller is the proxy.
//
// # Refusals
//
// A request over a rate limit, or over a per-subject concurrency cap, is
// answered with the JSON-RPC error sake.CodeRateLimited (-32029) whose data
// says when to retry: {"retryAfterMs":100,"limit":"search"}. Over HTTP
// (sake/plug) the answer is 429 Too Many Requests with Retry-After in whole
// seconds, rounded up, and the JSON-RPC error as its body; on stdio and in
// memory it is the JSON-RPC error. A call refused because its tool runs as
// many calls as it may is sake.CodeServerBusy, HTTP 503 with Retry-After.
// A refused request does not run and takes no token from the other limits.
//
// # Limits and defaults
//
//	what                                   default                 option               beyond it
//	buckets in memory                      100000 keys             MaxKeys              the least recently used bucket is dropped (its caller starts full)
//	limits per RateLimiter                 64                      (use several)        NewRateLimiter fails
//	rate limit store failing               fail closed             FailOpen             CodeServerBusy, HTTP 503, Retry-After 1 s; logged once
//	tool call duration                     none                    ToolLimit.Timeout    the tool's context ends; an isError result says so
//	calls of one tool at once              none                    ToolLimit.MaxConcurrent  queued if Queue allows, else CodeServerBusy (503)
//	calls of one tool at once per subject  none                    ToolLimit.MaxPerSubject  CodeRateLimited (429), Retry-After 1 s
//	calls waiting for a slot, per tool     0                       ToolLimit.Queue      CodeServerBusy (503)
//	time a queued call waits               10 s                    ToolLimit.QueueWait  CodeServerBusy (503)
//	tool result size                       1 MiB                   ResultCap.MaxBytes   an isError result saying to ask for less, or truncated (Truncate)
//	recorded arguments in the access log   none; 8 KiB when named  AccessLog.RecordArguments  cut
//	names and URIs in the access log       256 bytes               -                    cut
//	one readiness check                    2 s                     CheckTimeout         the check fails: /readyz answers 503
//	cached results, bytes                  32 MiB                  Cache.MaxBytes       the least recently used results give way
//	cached results, entries                10000                   Cache.MaxEntries     the least recently used results give way
//	a cached result's life                 1 min                   Cache.TTL, CacheRule.TTL, the read ttlMs of sake.CacheHints  kept no longer
//	arguments of a cached call             16 KiB                  MaxCachedArgumentBytes (fixed)  the call is not cached
//	bytes a JSONSink holds                 1 MiB                   JSONSinkOptions.Buffer  the logging goroutine writes them itself
//	time a JSONSink holds a record         100 ms                  JSONSinkOptions.Interval  written
//	idle keys of a concurrency gate        1024                    -                    idle keys dropped
//
// Concurrency gates hold an entry while calls run or wait, and up to 1024
// idle ones, so they are bounded by the calls in flight (sake.Limits.MaxInFlight
// bounds those per connection and session) plus 1024.
//
// A timeout ends the call's context; it cannot stop code that ignores its
// context, and such a call keeps its slot until it returns. The time a
// legacy call spends waiting for the client's answers counts towards its
// timeout. A call that becomes a task is not limited once it is one; its
// final result is masked (MaskErrors) and capped (ResultCap) as a result
// answered in the request is, before the task manager stores it.
//
// # What the access log records
//
// One record per request and notification: method, component (tool,
// prompt or URI), subject, client id, era, protocol version, transport,
// duration, outcome (ok, tool_error, input_required, task, cancelled,
// error) with the JSON-RPC code of an error, and the bytes in and out.
// Never arguments (unless RecordArguments names the tool), results, tokens
// or headers.
//
// # Across replicas
//
// The buckets of the default store live in one process: behind a load
// balancer with k replicas, a limit of 10/s per caller lets a caller make
// up to 10k/s. A BucketStore shared by the replicas makes it hold per
// caller: sake/middleware/pgbuckets keeps the buckets in PostgreSQL and
// leases tokens to each replica, so that a call costs no database round
// trip. Concurrency caps are per process. Each replica has its own cache;
// the server's broker carries the changes that make results stale, so a
// replica serves a stale result only until the broker delivers the change.
//
// # Cost
//
// The rate limiter, the result cap, MaskErrors and a cache the call passes
// through allocate nothing. A timeout costs one small context, which makes
// a Done channel only when the tool asks for it; its deadlines are watched
// by one goroutine per ToolLimit, which a finishing call does not wake. The
// access log costs what its slog handler costs to write a record, most of
// a call through slog's JSON handler; through a JSONSink it writes its
// records itself, into a buffer written out by the sink's goroutine. A
// cache hit costs less than the call it saves. See the benchmarks in
// bench_test.go; they report CPU time per call (cpu-ns/op) beside wall
// time.
package middleware
