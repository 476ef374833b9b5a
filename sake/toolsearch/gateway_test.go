package toolsearch_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/gateway"
	"github.com/sakemcp/sake-go/sake/plug"
	"github.com/sakemcp/sake-go/sake/saketest"
	"github.com/sakemcp/sake-go/sake/toolsearch"
)

// TestSearchOverAGateway puts the search in front of a gateway whose
// remote is a server over Streamable HTTP: the remote's tools are found
// by search and called through call_tool.
func TestSearchOverAGateway(t *testing.T) {
	t.Parallel()
	remote := newShop(t, toolsearch.Options{Covers: func(string) bool { return false }}).srv
	ph := plug.New(remote)
	ts := httptest.NewServer(ph)
	t.Cleanup(func() { ts.Close(); ph.Close() })

	s, err := toolsearch.New(toolsearch.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := gateway.ParseConfig(fmt.Appendf(nil, `{"mcpServers": {"shop": {"url": %q}}}`, ts.URL))
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	g, err := gateway.New(t.Context(), cfg, gateway.HTTPClient(hc), gateway.ServerOptions(sake.Use(s.Middleware())))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.Close() })
	connected := func() bool { return g.Server().ToolCatalog().Lookup("shop_weather") >= 0 }
	if !connected() {
		changed := make(chan struct{}, 1)
		stop := g.Server().Watch(func(sake.Broadcast) {
			select {
			case changed <- struct{}{}:
			default:
			}
		})
		defer stop()
		timeout := time.After(20 * time.Second)
		for !connected() {
			select {
			case <-changed:
			case <-timeout:
				t.Fatalf("the remote's tools never arrived: %+v", g.Status())
			}
		}
	}

	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		c := saketest.Connect(t, g.Server(), opts...)
		if got := listed(t, c); !slices.Equal(got, []string{"search_tools", "call_tool"}) {
			t.Fatalf("tools/list = %v", got)
		}
		if got := found(t, c, "forecast for a town"); len(got) == 0 || got[0] != "shop_weather" {
			t.Fatalf("search = %v", got)
		}
		res, err := c.CallTool("call_tool", map[string]any{"name": "shop_weather", "arguments": map[string]any{"city": "Kyoto"}})
		if err != nil || !strings.Contains(res.Text(), "sunny in Kyoto") {
			t.Fatalf("call_tool shop_weather = %v, %v", res, err)
		}
	})
}
