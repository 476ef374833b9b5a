package gateway_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// TestGatewayNamesTheEntryOfAMissingTool: while an entry is down, a call
// of a tool under its namespace is answered with an error naming the
// entry and saying it is coming back, not as an unknown tool; a name
// under no entry's namespace is still unknown (-32602).
func TestGatewayNamesTheEntryOfAMissingTool(t *testing.T) {
	alpha, beta := newRemote(t, "alpha"), newRemote(t, "beta")
	g := startGateway(t, fmt.Sprintf(`{"mcpServers": {"alpha": {"url": %q}, "beta": {"url": %q}}}`, alpha.url+"/mcp", beta.url+"/mcp"))
	c := saketest.Connect(t, g.Server())
	alpha.down.Store(true)
	alpha.ts.CloseClientConnections()
	until(t, g.Server(), "alpha's tools leave", func() bool { return !slices.Contains(names(t, c), "alpha_echo") })
	_, err := c.CallTool("alpha_echo", nil)
	var e *sake.Error
	if !errors.As(err, &e) || e.Code != sake.CodeInternalError || !strings.Contains(e.Message, `"alpha"`) || !strings.Contains(e.Message, "not connected") {
		t.Errorf("a call of a down entry's tool = %v; want an error naming the entry", err)
	}
	if _, err := c.CallTool("gamma_echo", nil); !errors.As(err, &e) || e.Code != sake.CodeInvalidParams || !strings.Contains(e.Message, "Unknown tool") {
		t.Errorf("a tool under no entry = %v; want unknown tool", err)
	}
	if _, err := c.CallTool("beta_nothing", nil); !errors.As(err, &e) || e.Code != sake.CodeInvalidParams {
		t.Errorf("an unknown tool of a connected entry = %v; want unknown tool", err)
	}
}
