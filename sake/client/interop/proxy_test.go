package interop

import (
	"context"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/plug"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/proxy"
)

// TestGoSDKBehindTheProxy puts proxy.New in front of the Go SDK's
// everything-server at 2026-07-28 (stdio, stateless HTTP) and checks that
// the log messages of a forwarded call reach its caller, in both eras.
func TestGoSDKBehindTheProxy(t *testing.T) {
	bin := gosdkServer(t)
	for _, tr := range []struct {
		name string
		make func(t *testing.T) client.Transport
	}{
		{"stdio", func(*testing.T) client.Transport { return client.Command(exec.Command(bin)) }},
		{"http-stateless", func(t *testing.T) client.Transport { return client.HTTP(gosdkHTTP(t, true), nil) }},
	} {
		t.Run(tr.name, func(t *testing.T) {
			remote := connect(t, tr.make(t), client.ForwardQuestions())
			if remote.Era() != sake.EraModern {
				t.Fatalf("the upstream era is %v, want 2026-07-28", remote.Era())
			}
			ctx, cancel := context.WithCancel(testCtx(t))
			defer cancel()
			srv, err := proxy.New(ctx, remote)
			if err != nil {
				t.Fatal(err)
			}
			ph := plug.New(srv)
			ts := httptest.NewServer(ph)
			t.Cleanup(func() { ts.Close(); ph.Close() })
			for _, pin := range []string{"", protocol.LegacyVersion} {
				name := pin
				if name == "" {
					name = "negotiated"
				}
				t.Run(name, func(t *testing.T) {
					n := newNotes()
					opts := []client.Option{client.OnNotification(n.add), client.LogLevel(sake.LevelInfo)}
					if pin != "" {
						opts = append(opts, client.ProtocolVersion(pin))
					}
					c := connect(t, client.HTTP(ts.URL, nil), opts...)
					ctx := testCtx(t)
					wantText(t, ctx, c, "test_tool_with_logging", nil, "Tool with logging executed successfully")
					for _, want := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
						if _, err := n.wait(ctx, func(x protocol.Notification) bool {
							return x.Method == "notifications/message" && strings.Contains(string(x.Params), want)
						}); err != nil {
							t.Fatalf("no log message %q reached the caller: %v", want, err)
						}
					}
				})
			}
		})
	}
}
