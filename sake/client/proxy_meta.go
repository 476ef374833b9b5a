package client

import (
	"context"
	"encoding/json"
	"maps"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// envelope is what a forwarded call declares to a 2026-07-28 server in
// place of the client's own capabilities and log level: those of the
// proxy's caller, request by request.
type envelope struct {
	caps  sake.ClientCapabilities
	level sake.LogLevel
}

type envelopeKey struct{}

func withEnvelope(ctx context.Context, env *envelope) context.Context {
	return context.WithValue(ctx, envelopeKey{}, env)
}

func envelopeOf(ctx context.Context) *envelope {
	env, _ := ctx.Value(envelopeKey{}).(*envelope)
	return env
}

// logSlotter is a transport whose log messages do not say which request
// they belong to (stdio): one request at a time may ask for them.
type logSlotter interface {
	takeLogSlot(ctx context.Context) (release func(), ok bool)
}

// envelopeMeta renders the _meta members of a forwarded request. A
// request asks for log messages only where they can reach its caller: a
// stream (subscriptions/listen) never carries them, and over stdio only
// one request at a time may.
func (c *Client) envelopeMeta(ctx context.Context, env *envelope, long bool) ([]byte, func()) {
	level, release := env.level, func() {}
	if long {
		level = ""
	}
	if s, ok := c.t.(logSlotter); ok && level != "" {
		var got bool
		if release, got = s.takeLogSlot(ctx); !got {
			level = ""
		}
	}
	return c.renderMeta(env.caps, level), release
}

// callerEnvelope is what the proxy's caller declared for the request:
// its capabilities (the 2025-11-25 tasks capability left out, it has no
// meaning in the 2026-07-28 era) and its log level. A call of a caller of
// the handshake era declares the tasks extension: the remote server may
// answer with a task, which the proxy follows (within the call, or as a
// task of its own when the caller asked for one with params.task).
func callerEnvelope(c *sake.Context) *envelope {
	env := &envelope{level: c.LogLevel()}
	if caps := c.ClientCapabilities(); caps != nil {
		env.caps = *caps
		env.caps.Tasks = nil
		env.caps.Extensions = maps.Clone(caps.Extensions)
	}
	if (c.TaskID() != "" || c.Era() == sake.EraLegacy) && !env.caps.HasExtension(protocol.TaskExtension) {
		if env.caps.Extensions == nil {
			env.caps.Extensions = map[string]json.RawMessage{}
		}
		env.caps.Extensions[protocol.TaskExtension] = json.RawMessage(`{}`)
	}
	return env
}
