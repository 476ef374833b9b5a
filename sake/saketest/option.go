package saketest

import (
	"github.com/sakemcp/sake-go/sake"
)

// Option configures a test client.
type Option func(*options)

type options struct {
	legacy       bool
	version      string
	clientInfo   sake.Implementation
	capabilities sake.ClientCapabilities
	returnPanics bool
	logLevel     sake.LogLevel
	serverOpts   []sake.Option
	onInput      func(ElicitParams) Answer
	sampling     func(sake.SamplingRequest) (*sake.SamplingResult, error)
	roots        []sake.Root
}

// Legacy makes the client run the initialize handshake and speak the
// 2025-11-25 protocol in a session.
func Legacy() Option { return LegacyVersion(sake.Legacy) }

// LegacyVersion is Legacy with another handshake-era version to ask for
// (2025-06-18, 2025-03-26, 2024-11-05).
func LegacyVersion(version string) Option {
	return func(o *options) { o.legacy, o.version = true, version }
}

// ClientInfo sets the name and version the client reports.
func ClientInfo(name, version string) Option {
	return func(o *options) { o.clientInfo = sake.Implementation{Name: name, Version: version} }
}

// Capabilities sets the capabilities the client declares.
func Capabilities(c sake.ClientCapabilities) Option {
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
