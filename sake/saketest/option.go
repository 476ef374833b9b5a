package saketest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/auth"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/tasks"
)

// Option configures a test client.
type Option func(*options)

type options struct {
	legacy       bool
	version      string
	clientInfo   protocol.Implementation
	capabilities protocol.ClientCapabilities
	returnPanics bool
	logLevel     sake.LogLevel
	serverOpts   []sake.Option
	onInput      func(protocol.ElicitRequest) protocol.ElicitResult
	sampling     func(sake.SamplingRequest) (*sake.SamplingResult, error)
	roots        []sake.Root

	principal       func() any
	principalVaries bool // PrincipalFunc: computed for every request
	scopes          []string
	withToken       bool
	subject         *string
	clientID        string
	acr             string
	authTime        time.Time
	claims          map[string]any
	claimsErr       error
	baseURL         string

	handler http.Handler
	path    string
	headers http.Header
	issuer  *auth.Issuer
	dpop    bool

	noTasks     bool
	taskTimeout time.Duration

	waitTimeout     time.Duration
	broadcastFilter func(sake.Broadcast) bool
	ownBroadcasts   bool

	ownTasks    bool
	taskOptions []tasks.Option
	noLeakCheck bool
	noTrace     bool

	onNotification func(protocol.Notification)
}

// OnNotification calls fn with every notification the server sends during
// the client's calls (progress, log messages), as it arrives; they are
// recorded for Notifications and AssertNotification as well.
func OnNotification(fn func(protocol.Notification)) Option {
	return func(o *options) { o.onNotification = fn }
}

// Tasks makes Connect give the server it builds a task manager
// (tasks.New(opts...)) that lives as long as the test: it is shut down
// when the test ends, before the goroutine check, so a test needs no
// manager of its own. It does not apply to a *sake.Server given to
// Connect (give that one sake.Tasks yourself).
func Tasks(opts ...tasks.Option) Option {
	return func(o *options) { o.ownTasks, o.taskOptions = true, append(o.taskOptions, opts...) }
}

// WithoutLeakCheck turns off the check that, when the test ends, no goroutine
// the client's calls started (in the server, its tasks or the transport)
// still runs. The check is on by default; goroutines of a task manager
// the test made itself are left to it, and so are the idle keep-alive
// connections of an HTTP client a tool used (http.DefaultClient's among
// them): they belong to the client's pool. A response body left open
// holds its connection, and is reported.
func WithoutLeakCheck() Option { return func(o *options) { o.noLeakCheck = true } }

// WithoutTrace stops the client from keeping the messages it exchanges (Trace)
// and printing them when the test fails.
func WithoutTrace() Option { return func(o *options) { o.noTrace = true } }

// WithoutTasks makes a modern client leave the tasks extension out of its
// capabilities (it is declared by default), to test tools that run as
// tasks with a client that cannot take one.
func WithoutTasks() Option { return func(o *options) { o.noTasks = true } }

// WaitTimeout sets how long the client's waits last: the assertions of a
// Listener on it (AssertListChanged, AssertResourceUpdated) and AwaitTask
// given no timeout. Given to Listen, it sets that listener's. It replaces
// the default for this client only, so parallel tests can each choose
// theirs. Default: 5 seconds for listeners, 30 seconds for tasks.
func WaitTimeout(d time.Duration) Option { return func(o *options) { o.waitTimeout = d } }

// OnlyBroadcasts makes Listen record only the broadcasts keep accepts:
// on a server shared by several tests, each keeps its own (by the URI or
// the list its components change).
func OnlyBroadcasts(keep func(sake.Broadcast) bool) Option {
	return func(o *options) { o.broadcastFilter = keep }
}

// OwnBroadcasts makes Listen record only the broadcasts caused by the
// calls of this test's clients (and of its subtests'), made by components
// that announce through their request: ctx.NotifyListChanged and
// ctx.ResourceUpdated (sake.Broadcast.Origin). A task's announcements
// count as its call's, even after the call has returned (the task's
// context keeps the values of the call under sake/tasks). Parallel
// tests sharing one server then each see their own. Broadcasts made by the
// Server's methods (AddTool, srv.ResourceUpdated) or by the test itself
// carry no origin and are not recorded: use OnlyBroadcasts, or Listen
// without a filter, for those.
func OwnBroadcasts() Option { return func(o *options) { o.ownBroadcasts = true } }

// originKey marks the context of a client's calls with its test.
type originKey struct{}

// fromTest reports whether a broadcast's origin is a call made by a
// client of t or of one of its subtests.
func fromTest(t testing.TB, origin context.Context) bool {
	if origin == nil {
		return false
	}
	ot, ok := origin.Value(originKey{}).(testing.TB)
	return ok && (ot == t || strings.HasPrefix(ot.Name(), t.Name()+"/"))
}

// TaskTimeout sets how long CallTool waits for a task to finish (default
// 30 seconds).
func TaskTimeout(d time.Duration) Option { return func(o *options) { o.taskTimeout = d } }

// Principal sets the host's principal, what components see as
// ctx.Principal(): the caller as the application knows it.
func Principal(v any) Option {
	return func(o *options) { o.principal, o.principalVaries = func() any { return v }, false }
}

// PrincipalFunc sets the principal from a function called for every
// request.
func PrincipalFunc(fn func() any) Option {
	return func(o *options) { o.principal, o.principalVaries = fn, true }
}

// Scopes gives the client a simulated access token with these scopes:
// every request then carries it, and components are gated by their scope
// and authentication requirements as on an endpoint with authorization.
// Subject, ClientID, ACR, AuthTime and Claims give the client a token too
// (without scopes unless Scopes is given). Without any of them there is
// no token and no gating.
func Scopes(scopes ...string) Option {
	return func(o *options) { o.scopes, o.withToken = append([]string{}, scopes...), true }
}

// Subject gives the client a simulated access token (see Scopes) and sets
// its subject, which owns what the client starts (tasks, request states).
// The default is derived from the principal, so two clients with
// different principals are two people; "" makes it a machine client's
// token (client credentials), owned by its client id.
func Subject(sub string) Option { return func(o *options) { o.subject, o.withToken = &sub, true } }

// ClientID gives the client a simulated access token (see Scopes) and
// sets its client. Default "sake-test".
func ClientID(id string) Option { return func(o *options) { o.clientID, o.withToken = id, true } }

// ACR gives the client a simulated access token (see Scopes) and sets how
// its person signed in (the authentication context class, RFC 9470).
// Unknown by default, which meets no requirement.
func ACR(acr string) Option { return func(o *options) { o.acr, o.withToken = acr, true } }

// AuthTime gives the client a simulated access token (see Scopes) and
// sets when its person signed in. Unknown by default, which meets no
// maximum age.
func AuthTime(t time.Time) Option { return func(o *options) { o.authTime, o.withToken = t, true } }

// Claims gives the client a simulated access token (see Scopes) carrying
// these claims besides its own, as an identity provider would put a role
// or a tenant in it: components read them in ctx.Identity().Claims. The
// claims the other options set (sub, client_id, scope, acr, auth_time)
// are theirs, and a minted token's registered claims (iss, aud, exp, iat,
// nbf, jti, cnf) its own: naming one here makes Connect fail. Several Claims options add
// up; a later value of a claim replaces an earlier one. Components see
// the values as a verified token's JSON gives them (a number is a
// float64, a struct a map[string]any), in memory as through Handler with
// TokenIssuer, whose minted token carries them too; a value JSON cannot
// encode makes Connect fail.
func Claims(claims map[string]any) Option {
	return func(o *options) {
		o.withToken = true
		var decoded map[string]any
		b, err := json.Marshal(claims)
		if err == nil {
			err = json.Unmarshal(b, &decoded)
		}
		if err != nil {
			o.claimsErr = fmt.Errorf("saketest: Claims: %w", err)
			return
		}
		if o.claims == nil {
			o.claims = make(map[string]any, len(decoded))
		}
		for k, v := range decoded {
			o.claims[k] = v
		}
	}
}

// ownClaims are the claims the token options set, and those of a minted
// token's own, which Claims may not.
var ownClaims = []string{"sub", "client_id", "scope", "acr", "auth_time", "iss", "aud", "exp", "iat", "nbf", "jti", "cnf"}

// checkClaims refuses a claim Claims may not set.
func (o *options) checkClaims() error {
	if o.claimsErr != nil {
		return o.claimsErr
	}
	for _, k := range ownClaims {
		if _, ok := o.claims[k]; ok {
			return fmt.Errorf("saketest: Claims sets %q, which saketest sets itself: use Subject, ClientID, Scopes, ACR or AuthTime for sub, client_id, scope, acr and auth_time (iss, aud, exp, iat, nbf, jti and cnf are the minted token's)", k)
		}
	}
	return nil
}

// Secret sets the key that signs cursors and request states of a server
// Connect builds (sake.Secret).
func Secret(key []byte) Option {
	return func(o *options) { o.serverOpts = append(o.serverOpts, sake.Secret(key)) }
}

// BaseURL sets the endpoint URL components see as
// ctx.Request().BaseURL. Default "", as over stdio. With Handler, requests go to it when it has a path
// ("https://mcp.acme.test/mcp"); one without a path
// ("https://mcp.acme.test") gives the origin the Handler's path is added
// to.
func BaseURL(u string) Option { return func(o *options) { o.baseURL = u } }

// Legacy makes the client run the initialize handshake and speak the
// 2025-11-25 protocol in a session.
func Legacy() Option { return LegacyVersion(protocol.LegacyVersion) }

// LegacyVersion is Legacy with another handshake-era version to ask for
// (2025-06-18, 2025-03-26, 2024-11-05).
func LegacyVersion(version string) Option {
	return func(o *options) { o.legacy, o.version = true, version }
}

// ClientInfo sets the name and version the client reports.
func ClientInfo(name, version string) Option {
	return func(o *options) { o.clientInfo = protocol.Implementation{Name: name, Version: version} }
}

// Capabilities sets the capabilities the client declares. OnInput,
// Sampling and Roots add theirs to these, whatever the order of the
// options, unless c declares that capability itself. A question for a
// capability declared here without the option that answers it gets an
// error naming that option.
func Capabilities(c protocol.ClientCapabilities) Option {
	return func(o *options) { o.capabilities = c }
}

// ReturnPanics makes a panic in user code come back as the error result a
// client would get, instead of failing the test.
func ReturnPanics() Option { return func(o *options) { o.returnPanics = true } }

// LogLevel asks the server for log messages at or above level: per request
// in the modern era, with logging/setLevel after the handshake in the
// legacy one. They are recorded with the other notifications.
func LogLevel(level sake.LogLevel) Option { return func(o *options) { o.logLevel = level } }

// ServerOptions are passed to sake.New when Connect builds the server from
// a value (they do not apply to a *sake.Server given to Connect).
func ServerOptions(opts ...sake.Option) Option {
	return func(o *options) { o.serverOpts = append(o.serverOpts, opts...) }
}

// Handler sends every request through h, the host's HTTP stack (a chi
// router with its middleware and authorization, or a plug.Handler), in
// process, at path (default "/mcp"), as a real client sends it over HTTP.
// The stack computes the caller from the request, so Principal does not
// apply; with Scopes and TokenIssuer the client sends a real access token
// for Subject. The server's questions work through the stack in both eras
// (legacy requests arrive on the POST's stream and are answered by POST).
// Pass the *sake.Server behind the stack as Connect's impl to Listen to it
// and to wake AwaitTask on its task manager, or nil. A panic in the
// server's user code fails the test as in memory, through the context of
// the call (transport.WithPanicHandler): a stack that serves the server
// with a context not derived from the request's loses it.
func Handler(h http.Handler, path string) Option {
	return func(o *options) {
		if path == "" {
			path = "/mcp"
		}
		o.handler, o.path = h, path
	}
}

// Header adds a header to every HTTP request sent with Handler.
func Header(key, value string) Option {
	return func(o *options) {
		if o.headers == nil {
			o.headers = http.Header{}
		}
		o.headers.Add(key, value)
	}
}

// TokenIssuer makes a client with Handler and Scopes send access tokens
// minted by iss: the issuer whose secret the endpoint's verifier shares.
func TokenIssuer(iss *auth.Issuer) Option { return func(o *options) { o.issuer = iss } }

// DPoP binds the client's token to a key it signs a DPoP proof with for
// every request (RFC 9449), for endpoints that require sender-constrained
// tokens.
func DPoP() Option { return func(o *options) { o.dpop = true } }
