// Command gosdk is the benchmark's echo server built with
// github.com/modelcontextprotocol/go-sdk: one tool, echo, that returns its
// text argument as a text content.
//
//	gosdk                                  # stdio
//	gosdk -http 127.0.0.1:8080             # Streamable HTTP at /mcp, stateful (sessions)
//	gosdk -http 127.0.0.1:8080 -stateless  # stateless: the only HTTP mode that serves 2026-07-28
//
// Responses keep the library's defaults (text/event-stream on HTTP).
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

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// echoIn is the echo tool's input.
type echoIn struct {
	Text string `json:"text" jsonschema:"text to echo"`
}

// echo returns a result whose one text content is the input's text.
func echo(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
}

func main() {
	addr := flag.String("http", "", "serve Streamable HTTP at ADDR/mcp instead of stdio")
	stateless := flag.Bool("stateless", false, "serve HTTP statelessly (StreamableHTTPOptions.Stateless)")
	flag.Parse()

	s := mcp.NewServer(&mcp.Implementation{Name: "gosdk-echo", Version: "1.0.0"},
		&mcp.ServerOptions{SchemaCache: mcp.NewSchemaCache()})
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Returns the text it is given."}, echo)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	if *addr == "" {
		err = s.Run(ctx, &mcp.StdioTransport{})
	} else {
		err = serveHTTP(ctx, *addr, s, *stateless)
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, "gosdk:", err)
		os.Exit(1)
	}
}

// serveHTTP serves s at addr/mcp until ctx ends.
func serveHTTP(ctx context.Context, addr string, s *mcp.Server, stateless bool) error {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{Stateless: stateless})
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	hs := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
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
