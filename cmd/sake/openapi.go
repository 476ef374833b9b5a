package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/openapi"
	"github.com/sakemcp/sake-go/sake/plug"
	"github.com/sakemcp/sake-go/sake/stdio"
)

const openapiUsage = `usage: sake openapi [flags] SPEC

Openapi serves the HTTP API an OpenAPI 3.0 or 3.1 document describes as an
MCP server: every operation becomes a tool named after its operationId, whose
arguments are the operation's path, query and header parameters and its JSON
body's properties. SPEC is a file (JSON or YAML) or an http(s) URL. The API
is called at the document's first server unless -base-url says otherwise.

It serves stdio by default (for a client that starts it), or Streamable HTTP
at http://ADDR/mcp with -http ADDR. -header adds a header to every request to
the API, with $VAR and ${VAR} replaced by the environment's values, so that a
secret stays out of the command line:

	sake openapi -header 'Authorization: Bearer $API_TOKEN' api.yaml

Examples:

	sake openapi petstore.yaml
	sake openapi -http 127.0.0.1:8080 -base-url http://localhost:3000/v1 api.json
	sake openapi https://petstore3.swagger.io/api/v3/openapi.json -base-url https://petstore3.swagger.io/api/v3
`

// maxSpecBytes bounds the document sake openapi reads: 64 MiB.
const maxSpecBytes = 64 << 20

// headerFlags collects -header flags.
type headerFlags []string

func (h *headerFlags) String() string     { return strings.Join(*h, ", ") }
func (h *headerFlags) Set(v string) error { *h = append(*h, v); return nil }

func runOpenAPI(ctx context.Context, e *env, args []string) error {
	flags := newFlags(e, "openapi", openapiUsage)
	addr := flags.String("http", "", "serve Streamable HTTP on this address at /mcp instead of stdio")
	baseURL := flags.String("base-url", "", "the API's URL, instead of the document's first server")
	maxResponse := flags.Int64("max-response", openapi.DefaultMaxResponseBytes, "the most bytes read of one API response")
	var headers headerFlags
	flags.Var(&headers, "header", "a header `Name: value` sent with every request to the API ($VAR expanded); repeatable")
	if err := parse(flags, e, args); err != nil {
		return err
	}
	if flags.NArg() != 1 {
		return usagef("name one OpenAPI document: sake openapi [flags] SPEC")
	}
	extra := http.Header{}
	for _, h := range headers {
		name, value, ok := strings.Cut(h, ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			return usagef("-header %q is not Name: value", h)
		}
		extra.Add(name, os.Expand(strings.TrimSpace(value), e.getenv))
	}
	spec, err := readSpec(ctx, flags.Arg(0))
	if err != nil {
		return err
	}
	opts := []openapi.Option{openapi.BaseURL(*baseURL), openapi.MaxResponseBytes(*maxResponse),
		// What is wrong with the document goes to standard error, never
		// to standard output, which carries the protocol on stdio.
		openapi.Logger(slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))}
	if len(extra) > 0 {
		opts = append(opts, openapi.EditRequest(func(_ *sake.Context, req *http.Request) error {
			for k, vs := range extra {
				req.Header[k] = vs
			}
			return nil
		}))
	}
	srv, err := openapi.New(spec, opts...)
	if err != nil {
		return err
	}
	if *addr == "" {
		return stdio.Serve(ctx, srv, e.stdin, e.stdout)
	}
	return serveHTTP(ctx, e, srv, *addr)
}

// readSpec reads a document from a file or an http(s) URL.
func readSpec(ctx context.Context, where string) ([]byte, error) {
	var r io.Reader
	if strings.HasPrefix(where, "http://") || strings.HasPrefix(where, "https://") {
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, where, nil)
		if err != nil {
			return nil, err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("fetching %s: HTTP %d", where, resp.StatusCode)
		}
		r = resp.Body
	} else {
		f, err := os.Open(where)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, maxSpecBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxSpecBytes {
		return nil, fmt.Errorf("%s is over %d bytes, the most sake openapi reads", where, maxSpecBytes)
	}
	return b, nil
}

// serveHTTP serves srv at http://addr/mcp until ctx ends.
func serveHTTP(ctx context.Context, e *env, srv *sake.Server, addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	ph := plug.New(srv)
	defer ph.Close()
	mux := http.NewServeMux()
	mux.Handle("/mcp", ph)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(e.stderr, "sake openapi: serving http://%s/mcp (Ctrl-C stops it)\n", ln.Addr())
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(shutdown)
		if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}
}
