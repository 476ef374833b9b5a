// Command mcpgo is the benchmark's echo server built with
// github.com/mark3labs/mcp-go: one tool, echo, that returns its text
// argument as a text content.
//
//	mcpgo                       # stdio (the library's default worker pool)
//	mcpgo -http 127.0.0.1:8080  # Streamable HTTP at /mcp, default session mode
//
// The library decides the protocol era per request on one endpoint.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// echoIn is the echo tool's input.
type echoIn struct {
	Text string `json:"text" jsonschema:"text to echo"`
}

// echo returns a result whose one text content is the input's text.
func echo(_ context.Context, _ mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, error) {
	return mcp.NewToolResultText(in.Text), nil
}

func main() {
	addr := flag.String("http", "", "serve Streamable HTTP at ADDR/mcp instead of stdio")
	flag.Parse()

	s := server.NewMCPServer("mcpgo-echo", "1.0.0", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("echo", mcp.WithDescription("Returns the text it is given."),
		mcp.WithInputSchema[echoIn]()), mcp.NewTypedToolHandler(echo))

	var err error
	if *addr == "" {
		err = server.ServeStdio(s)
	} else {
		err = serveHTTP(*addr, s)
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, "mcpgo:", err)
		os.Exit(1)
	}
}

// serveHTTP serves s at addr/mcp until SIGINT or SIGTERM.
func serveHTTP(addr string, s *server.MCPServer) error {
	h := server.NewStreamableHTTPServer(s)
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	hs := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- hs.ListenAndServe() }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = hs.Shutdown(sctx)
	return nil
}
