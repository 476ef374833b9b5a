// Package toolsearch replaces a large tool catalog with search, and
// serves resources and prompts as tools, for MCP clients and models that
// do better with a few tools than with hundreds.
//
// # Search
//
// A Search is middleware (install it with sake.Use, or
// gateway.ServerOptions for a gateway). With it, tools/list shows two
// tools in place of the tools it covers (every tool, or those
// Options.Covers selects, such as one mount's with Namespace):
//
//   - search_tools takes a query in plain words ("open a pull request")
//     and returns the list entries (name, description, inputSchema) of
//     the best tools for it, five unless the query asks for up to 50;
//   - call_tool takes a tool's name and arguments and calls it.
//
// Options.AlwaysList keeps a few tools listed as well. The covered tools
// stay callable by name: the search changes what clients discover, not
// what they may call.
//
// A caller never finds a tool it could not list: the search shows what
// tools/list would show the caller (Disable, the requirements and the
// predicate of sake.PerCallerLists, tools meant only for MCP Apps views),
// and Options.OnlyPermitted also leaves out tools whose scopes the caller
// lacks on servers that list every tool. call_tool hands the server an
// ordinary tools/call of the named tool, through the middleware after the
// search, so every check of the tool applies with the errors a direct
// call gets: a missing scope (and its step-up challenge), arguments that
// do not fit the schema, an unknown or disabled tool, a tool the
// predicate refuses. A tool that asks the user questions or reports
// progress does so through call_tool as it would directly; a task tool
// becomes a task in the 2026-07-28 era, and in the 2025-11-25 era when
// the client sends params.task with the call_tool call.
//
// # Ranking
//
// Index ranks tools with BM25F: a tool's name, title, description,
// argument names and argument descriptions are fields of their own
// weight (3, 2, 1, 1 and 0.4) and length normalisation; text is split at
// snake_case, kebab-case, dots and camelCase, lower-cased, stripped of
// common English words and reduced to a light stem, so "listPullRequests"
// meets "list pull requests" and "repositories" meets "repository"; and
// a query's words are also looked up as common synonyms (delete/remove,
// folder/directory) at half weight. BM25F was chosen over plain BM25
// because a word in a tool's name says more than the same word deep in
// an argument's description, and over embeddings because it needs no
// model, no network and no allocation per tool at query time. On 322
// real tool definitions of 16 MCP servers (testdata/catalog.json) and 60
// requests written from what the tools do (testdata/queries.json), the
// intended tool is first for 58% and among the first five for 87% of the
// requests, against 57% and 77% for plain BM25; on 40 held-out requests,
// 52% and 78% against 45% and 75%. A search over 1,000 tools takes less
// than 0.1 ms.
//
// The index is built at the first search and again only when the
// server's tools change (an added, removed, disabled, transformed or
// mounted tool): other requests pay a pointer comparison.
//
// # Resources and prompts as tools
//
// ResourcesAsTools adds list_resources, list_resource_templates and
// read_resource; PromptsAsTools adds list_prompts and get_prompt. Each is
// answered by the server's own method for the same caller, so the same
// requirements, filters and errors apply.
package toolsearch
