package proxy

import (
	"encoding/json"
	"maps"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// callerEnvelope is what the proxy's caller declared for the request:
// its capabilities (the 2025-11-25 tasks capability left out, it has no
// meaning in the 2026-07-28 era) and its log level. A call of a caller of
// the handshake era declares the tasks extension: the remote server may
// answer with a task, which the proxy follows (within the call, or as a
// task of its own when the caller asked for one with params.task). It
// is written to env.
func callerEnvelope(env *client.Forward, c *sake.Context, to client.Caller) {
	*env = client.Forward{LogLevel: c.LogLevel(), To: to}
	if caps := c.ClientCapabilities(); caps != nil {
		env.Capabilities = *caps
		env.Capabilities.Tasks = nil
	}
	if (c.TaskID() != "" || c.Request().Era == sake.EraLegacy) && !env.Capabilities.HasExtension(protocol.TaskExtension) {
		if len(env.Capabilities.Extensions) == 0 {
			// The common case (a handshake-era caller declares no
			// extension): a map shared by every call, only ever read.
			env.Capabilities.Extensions = onlyTaskExtension
			return
		}
		// The caller's map is only read; the one sent gets a copy.
		ext := maps.Clone(env.Capabilities.Extensions)
		ext[protocol.TaskExtension] = json.RawMessage(`{}`)
		env.Capabilities.Extensions = ext
	}
}

// onlyTaskExtension declares the tasks extension alone. It is shared by
// the envelopes of every call and must not be modified.
var onlyTaskExtension = map[string]json.RawMessage{protocol.TaskExtension: json.RawMessage(`{}`)}
