package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"slices"

	"github.com/sakemcp/sake-go/sake/protocol"
)

// negotiate settles the era: server/discover first unless a handshake-era
// revision is pinned, then the handshake when the server is older.
func (c *Client) negotiate(ctx context.Context) error {
	switch v := c.o.version; {
	case v == protocol.ModernVersion:
		err := c.discover(ctx)
		if supportsModern(err) {
			err = c.discover(ctx) // the server lists this version after all: once more
		}
		return err
	case v != "":
		return c.initialize(ctx, v, true)
	}
	pctx, cancel := context.WithTimeout(ctx, c.o.probeTimeout)
	err := c.discover(pctx)
	if supportsModern(err) {
		err = c.discover(pctx) // the server lists this version after all: once more
	}
	cancel()
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var version = protocol.LegacyVersion
	var rpc *protocol.Error
	switch {
	case errors.As(err, &rpc) && rpc.Code == protocol.CodeUnsupportedProtocolVersion:
		// A 2026-07-28 server that serves other revisions: take the newest
		// handshake one it lists.
		v, ok := newestLegacy(rpc.Data)
		if !ok {
			return fmt.Errorf("client: the server speaks none of this client's protocol versions: %w", err)
		}
		version = v
	case isAuthError(err):
		return err
	case isNetError(err), isRedirect(err):
		return err
	}
	return c.initialize(ctx, version, false)
}

// supportsModern reports a -32022 refusal whose list of supported
// versions has 2026-07-28 in it.
func supportsModern(err error) bool {
	var rpc *protocol.Error
	if !errors.As(err, &rpc) || rpc.Code != protocol.CodeUnsupportedProtocolVersion {
		return false
	}
	m, _ := rpc.Data.(map[string]any)
	list, _ := m["supported"].([]any)
	return slices.Contains(list, any(protocol.ModernVersion))
}

// isNetError reports a failure to reach the server at all, which no
// fallback can cure.
func isNetError(err error) bool {
	var ne net.Error
	var oe *net.OpError
	return errors.As(err, &oe) || (errors.As(err, &ne) && !ne.Timeout())
}

// isRedirect reports a 3xx answer, which the handshake would get too.
func isRedirect(err error) bool {
	var he *HTTPError
	return errors.As(err, &he) && he.Status/100 == 3
}

func isAuthError(err error) bool {
	var se *protocol.InsufficientScopeError
	var ae *protocol.InsufficientAuthenticationError
	var he *HTTPError
	return errors.As(err, &se) || errors.As(err, &ae) || (errors.As(err, &he) && he.Status == 401) ||
		errors.Is(err, ErrAuthorization) // a failed authorization: the handshake would fail the same way
}

// newestLegacy picks the newest handshake-era revision of a -32022
// error's data.supported.
func newestLegacy(data any) (string, bool) {
	m, _ := data.(map[string]any)
	list, _ := m["supported"].([]any)
	for _, v := range protocol.SupportedVersions() {
		if v == protocol.ModernVersion {
			continue
		}
		if slices.Contains(list, any(v)) {
			return v, true
		}
	}
	return "", false
}

func (c *Client) setInfo(info ServerInfo) {
	c.mu.Lock()
	c.info = info
	c.mu.Unlock()
}

// discover asks server/discover in the 2026-07-28 era.
func (c *Client) discover(ctx context.Context) error {
	c.setInfo(ServerInfo{Era: protocol.EraModern, ProtocolVersion: protocol.ModernVersion})
	raw, err := c.call(ctx, "server/discover", nil, nil)
	if err != nil {
		c.setInfo(ServerInfo{})
		return err
	}
	var d struct {
		SupportedVersions []string        `json:"supportedVersions"`
		Capabilities      json.RawMessage `json:"capabilities"`
		Instructions      string          `json:"instructions"`
		Meta              struct {
			ServerInfo protocol.Implementation `json:"io.modelcontextprotocol/serverInfo"`
		} `json:"_meta"`
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		c.setInfo(ServerInfo{})
		return fmt.Errorf("client: server/discover answered something else: %w", err)
	}
	if len(d.SupportedVersions) > 0 && !slices.Contains(d.SupportedVersions, protocol.ModernVersion) {
		c.setInfo(ServerInfo{})
		return &protocol.Error{Code: protocol.CodeUnsupportedProtocolVersion, Message: "the server does not serve " + protocol.ModernVersion,
			Data: map[string]any{"supported": toAny(d.SupportedVersions), "requested": protocol.ModernVersion}}
	}
	c.setInfo(ServerInfo{Era: protocol.EraModern, ProtocolVersion: protocol.ModernVersion, Server: d.Meta.ServerInfo,
		Capabilities: d.Capabilities, Instructions: d.Instructions, SupportedVersions: d.SupportedVersions})
	c.t.established(protocol.EraModern, protocol.ModernVersion)
	return nil
}

func toAny(list []string) []any {
	out := make([]any, len(list))
	for i, v := range list {
		out[i] = v
	}
	return out
}

// legacyCaps is the capabilities object of initialize: what the client
// declares, handlers included.
func (c *Client) legacyCaps() protocol.ClientCapabilities { return c.o.caps }

// initialize runs the handshake, asking for version; strict refuses any
// other answer.
func (c *Client) initialize(ctx context.Context, version string, strict bool) error {
	c.setInfo(ServerInfo{Era: protocol.EraLegacy, ProtocolVersion: version})
	params := map[string]any{"protocolVersion": version, "capabilities": c.legacyCaps(), "clientInfo": c.o.info}
	id := c.nextID.Add(1)
	p, _ := json.Marshal(params)
	m := &message{id: id, method: "initialize", era: protocol.EraLegacy, handshake: true, body: c.encode(id, "initialize", p, nil, false, protocol.EraLegacy)}
	body, err := c.t.roundTrip(ctx, m)
	if err != nil {
		return err
	}
	raw, err := decodeResponse(body)
	if err != nil {
		return err
	}
	var r struct {
		ProtocolVersion string                  `json:"protocolVersion"`
		Capabilities    json.RawMessage         `json:"capabilities"`
		ServerInfo      protocol.Implementation `json:"serverInfo"`
		Instructions    string                  `json:"instructions"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return fmt.Errorf("client: initialize answered something else: %w", err)
	}
	if !protocol.IsLegacyVersion(r.ProtocolVersion) || (strict && r.ProtocolVersion != version) {
		return fmt.Errorf("client: the server answered initialize with protocol version %q, which this client does not accept (it asked for %s)", r.ProtocolVersion, version)
	}
	c.setInfo(ServerInfo{Era: protocol.EraLegacy, ProtocolVersion: r.ProtocolVersion, Server: r.ServerInfo,
		Capabilities: r.Capabilities, Instructions: r.Instructions, SessionID: sessionOf(c.t)})
	c.t.established(protocol.EraLegacy, r.ProtocolVersion)
	if err := c.notify(ctx, "notifications/initialized", nil); err != nil {
		return err
	}
	// Calls start once the server can reach the client outside them (the
	// GET stream of a session over HTTP): some servers send their
	// requests only there.
	if err := c.t.ready(ctx); err != nil {
		return err
	}
	if err := c.askLogLevel(ctx); err != nil {
		return err
	}
	c.mu.Lock()
	subs := make([]*Subscription, 0, len(c.legacySubs))
	for s := range c.legacySubs {
		subs = append(subs, s)
	}
	c.mu.Unlock()
	for _, s := range subs {
		for _, uri := range s.filter.Resources {
			if _, err := c.call(ctx, "resources/subscribe", map[string]any{"uri": uri}, nil); err != nil {
				if ctx.Err() != nil || c.isClosed() {
					return err
				}
				// The new session refuses what the old one took: the
				// session stands, without updates of that resource.
				c.o.logger.Warn("client: the new session refused a resource subscription", "uri", uri, "err", err)
			}
		}
	}
	return nil
}

// askLogLevel sends the LogLevel option's logging/setLevel to a session
// whose server declared the logging capability. A server that refuses it
// keeps the connection: log messages are a wish of the client's, not a
// condition of it, and many servers (those of the Python SDK 1.x among
// them) declare no logging and know no logging/setLevel. Only the end of
// ctx fails it.
func (c *Client) askLogLevel(ctx context.Context) error {
	if c.o.logLevel == "" {
		return nil
	}
	if !c.Info().HasCapability("logging") {
		c.o.logger.Debug("client: the server declares no logging: logging/setLevel not sent", "level", c.o.logLevel)
		return nil
	}
	if err := c.SetLogLevel(ctx, c.o.logLevel); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		c.o.logger.Warn("client: the server refused logging/setLevel; it sends the log messages it chooses", "level", c.o.logLevel, "err", err)
	}
	return nil
}

// relink starts a new session after the server ended the old one. It
// runs within the call that found the session gone, but for the client:
// what the server asks on the new session's handshake requests (its own
// startup questions) is not that call's caller's to answer.
func (c *Client) relink(ctx context.Context, version string) error {
	c.relinking.Lock()
	defer c.relinking.Unlock()
	return c.initialize(unforwarded{ctx}, version, true)
}

// unforwarded is a context whose requests are the client's own, not a
// forwarded call's (see WithForward), with the deadline and cancellation
// of the one it wraps.
type unforwarded struct{ context.Context }

func (u unforwarded) Value(key any) any {
	if _, ok := key.(forwardKey); ok {
		return nil
	}
	return u.Context.Value(key)
}
