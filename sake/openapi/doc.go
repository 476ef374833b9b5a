// Package openapi serves an HTTP API described by an OpenAPI 3.0 or 3.1
// document as MCP components: New reads the document (JSON or YAML) and
// returns a *sake.Server whose tools, resources and resource templates
// call the API. The server is like any other: mount it into another
// (Server.Mount), transform it, enable and disable its components by tag,
// serve it with sake/plug or sake/stdio, test it with sake/saketest.
//
// By default every operation becomes a tool named after its operationId
// (characters a tool name cannot hold become "_"; an operation without one
// is named after its method and path, such as "get_pets_petId"). Route
// maps (Routes) change that: the first RouteMap that matches an
// operation's method, path and tags makes it a tool, a resource, a
// resource template, or leaves it out.
//
// A tool's arguments are the operation's path, query and header
// parameters and the properties of its request body (JSON, else a form),
// with allOf merged and references to the document's schemas kept in the
// schema's $defs. When two places use one name, the earlier place keeps
// it (path, query, header, then body) and the later one is suffixed:
// "id__query", "id__header", "id__body". A body without fixed properties
// (an array, a map, a oneOf, another media type) is one argument, "body".
//
// Requests are made with the HTTP client given to HTTPClient. The
// caller's own access token is sent only with ForwardBearerToken;
// EditRequest adds anything else a request needs. A response with a
// success status is the tool's result: its text, and its structured
// content when the operation declares a JSON response. Any other status
// is a tool error naming it. At most MaxResponseBytes of a body are read
// (DefaultMaxResponseBytes, 1 MiB).
//
// The document is parsed by github.com/pb33f/libopenapi, which reads both
// OpenAPI 3.0 and 3.1. `sake openapi SPEC` serves a document without
// writing Go.
package openapi
