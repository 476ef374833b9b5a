package gateway_test

import (
	"context"
	"fmt"
	"log"
	"log/slog"
	"net/http"

	"github.com/sakemcp/sake-go/sake/gateway"
	"github.com/sakemcp/sake-go/sake/plug"
)

func ExampleLockPath() {
	fmt.Println(gateway.LockPath("/etc/gateway/mcp.json"))
	// Output: /etc/gateway/mcp.lock.json
}

// A gateway that reloads its file when it changes, pins its tools'
// definitions, and serves health probes beside its MCP endpoint.
func ExampleGateway_WatchConfig() {
	const path = "mcp.json"
	cfg, err := gateway.LoadConfig(path)
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	g, err := gateway.New(ctx, cfg, gateway.LockFile(gateway.LockPath(path)),
		gateway.Observe(gateway.Hooks{
			Restarted: func(server string) { slog.Warn("remote server restarted", "server", server) },
		}))
	if err != nil {
		log.Fatal(err)
	}
	defer g.Close()
	go func() { _ = g.WatchConfig(ctx, path) }()
	mux := http.NewServeMux()
	mux.Handle("/mcp", plug.New(g.Server()))
	mux.Handle("GET /healthz", g.HealthHandler())
	mux.Handle("GET /readyz", g.ReadyHandler())
	log.Fatal(http.ListenAndServe("127.0.0.1:8080", mux))
}

func ExampleApprove() {
	approved, err := gateway.Approve(gateway.LockPath("mcp.json"), "github", "")
	if err != nil {
		log.Fatal(err)
	}
	for _, a := range approved {
		fmt.Println("approved", a)
	}
}
