package client

import (
	"context"
	"errors"

	"github.com/sakemcp/sake-go/sake/protocol"
)

// RootsChanged tells the server that the roots the client's OnRoots
// answers with have changed (notifications/roots/list_changed), so that a
// server of the handshake era asks for them again. A 2026-07-28 server
// asks for the roots within each request that needs them: there is
// nothing to send, and RootsChanged returns nil. Declare that the client
// sends it with Capabilities(protocol.ClientCapabilities{Roots:
// &protocol.RootsCapability{ListChanged: true}}).
func (c *Client) RootsChanged(ctx context.Context) error {
	if c.o.roots == nil {
		return errors.New("client: RootsChanged without roots: give the client Roots or OnRoots")
	}
	if c.Era() == protocol.EraModern {
		return nil
	}
	return c.notify(ctx, "notifications/roots/list_changed", nil)
}
