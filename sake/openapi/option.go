package openapi

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/sakemcp/sake-go/sake"
)

// Option configures New.
type Option func(*config)

type config struct {
	baseURL     string
	client      *http.Client
	forward     bool
	edit        func(*sake.Context, *http.Request) error
	routes      []RouteMap
	names       map[string]string
	maxResponse int64
	scheme      string
	serverOpts  []sake.Option
	noOutputs   bool
	logger      *slog.Logger
}

// DefaultMaxResponseBytes bounds the bytes of one upstream response body
// that a tool or resource reads: 1 MiB. A longer body ends the call with
// a tool error that names the bound (MaxResponseBytes).
const DefaultMaxResponseBytes = 1 << 20

// DefaultTimeout bounds one upstream request made with the default HTTP
// client: 30 seconds. A client given with HTTPClient keeps its own
// timeout.
const DefaultTimeout = 30 * time.Second

// DefaultURIScheme is the scheme of the URIs of the resources and
// templates an OpenAPI server makes: "api", as in api://getPet/{petId}.
const DefaultURIScheme = "api"

// MaxErrorBodyBytes bounds the part of an upstream error body quoted in a
// tool error: 2 KiB.
const MaxErrorBodyBytes = 2 << 10

// BaseURL sets the URL the operations' paths are appended to, overriding
// the first entry of the document's servers (which is used otherwise). It
// may carry a path ("https://api.example.com/v2").
func BaseURL(u string) Option { return func(c *config) { c.baseURL = u } }

// HTTPClient sets the client the requests are made with (default: a
// client of its own with DefaultTimeout). Give one whose transport adds
// the API's credentials (an API key, an OAuth2 token source) when every
// caller shares them.
func HTTPClient(hc *http.Client) Option { return func(c *config) { c.client = hc } }

// ForwardBearerToken sends the caller's own access token to the API as
// "Authorization: Bearer …". It is off by default: a token issued for
// this MCP server is not meant for another audience, so forward it only to
// an API that accepts the same tokens. The token must have been kept by
// the verifier (auth.JWTConfig.KeepToken; see auth.TokenOf): a call by an
// identity established from a token that was not kept fails with an
// error that says so, rather than reaching the API without credentials.
// A caller without an identity is forwarded nothing.
func ForwardBearerToken() Option { return func(c *config) { c.forward = true } }

// EditRequest calls edit on every upstream request before it is sent, to
// add what the caller's identity selects (a per-user API key, a tenant
// header). An error from edit ends the call with a tool error and nothing
// is sent.
func EditRequest(edit func(ctx *sake.Context, req *http.Request) error) Option {
	return func(c *config) { c.edit = edit }
}

// Routes sets the route maps, tried in order for every operation: the
// first that matches decides what the operation becomes. An operation no
// route map matches becomes a tool.
func Routes(maps ...RouteMap) Option {
	return func(c *config) { c.routes = append(c.routes, maps...) }
}

// Names renames operations: the key is an operationId (or, for an
// operation without one, the fallback name, such as "get_pets_petId"),
// the value the component's name, which must be a valid tool name.
func Names(names map[string]string) Option {
	return func(c *config) {
		if c.names == nil {
			c.names = map[string]string{}
		}
		for k, v := range names {
			c.names[k] = v
		}
	}
}

// MaxResponseBytes bounds the bytes read of one upstream response body
// (default DefaultMaxResponseBytes; n <= 0 keeps the default).
func MaxResponseBytes(n int64) Option { return func(c *config) { c.maxResponse = n } }

// URIScheme sets the scheme of the resources' and templates' URIs
// (default DefaultURIScheme).
func URIScheme(scheme string) Option { return func(c *config) { c.scheme = scheme } }

// WithoutOutputSchemas leaves the output schemas out of the tools: their
// results are then text only, for APIs whose answers do not keep to the
// schemas their documents declare.
func WithoutOutputSchemas() Option { return func(c *config) { c.noOutputs = true } }

// Logger receives what the parser finds wrong with the document while New
// reads it (a reference it cannot resolve, a circular one), each a
// message at level Error or Warn. By default they are dropped: New fails
// only for what makes the document unusable.
func Logger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// ServerOptions are options for the sake server New returns (its name,
// authorization requirements, middleware...). By default the server is
// named after the document's info.title and info.version.
func ServerOptions(opts ...sake.Option) Option {
	return func(c *config) { c.serverOpts = append(c.serverOpts, opts...) }
}

func (c *config) maxResponseBytes() int64 {
	if c.maxResponse > 0 {
		return c.maxResponse
	}
	return DefaultMaxResponseBytes
}
