// Command proxy fronts a stdio MCP server as Streamable HTTP: it starts
// the server's command, connects to it with sake/client, and serves its
// tools, resources and prompts from a sake server at /mcp. With -issuer
// and -jwks it asks its callers for access tokens from that authorization
// server; their tokens stay here: the stdio server never sees them (MCP
// forbids passing tokens through).
//
//	go build -o /tmp/everything ./examples/everything
//	go run ./examples/proxy -http 127.0.0.1:3100 -- /tmp/everything
//	go run ./examples/proxy -http :3100 -issuer https://as.example.com -jwks https://as.example.com/jwks \
//	    -resource https://mcp.example.com/mcp -- /usr/local/bin/some-stdio-server --flag
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/auth"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/plug"
)

func main() {
	addr := flag.String("http", "127.0.0.1:3100", "serve Streamable HTTP on this address at /mcp")
	prefix := flag.String("prefix", "", "put this before the remote tools' and prompts' names")
	issuer := flag.String("issuer", "", "require access tokens from this authorization server (with -jwks and -resource)")
	jwks := flag.String("jwks", "", "the authorization server's JWKS URL")
	resource := flag.String("resource", "", "this endpoint's canonical URL, the tokens' audience")
	scopes := flag.String("scopes", "", "scopes every call needs, space-separated")
	flag.Parse()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: proxy [flags] -- command [args...]")
		os.Exit(2)
	}
	if err := run(*addr, *prefix, *issuer, *jwks, *resource, strings.Fields(*scopes), flag.Args(), logger); err != nil {
		logger.Error("proxy", "err", err)
		os.Exit(1)
	}
}

func run(addr, prefix, issuer, jwks, resource string, scopes, command []string, logger *slog.Logger) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	remote, err := client.Connect(ctx, client.Command(exec.Command(command[0], command[1:]...)),
		client.ClientInfo("sake-proxy", "1.0.0"), client.Logger(logger), client.ForwardQuestions())
	if err != nil {
		return fmt.Errorf("connecting to %s: %w", command[0], err)
	}
	defer remote.Close()
	info := remote.Info()
	logger.Info("connected", "server", info.Server.Name, "era", info.Era, "version", info.ProtocolVersion)
	var serverOpts []sake.Option
	serverOpts = append(serverOpts, sake.Name(info.Server.Name+"-proxy", info.Server.Version), sake.Logger(logger))
	if info.Instructions != "" {
		serverOpts = append(serverOpts, sake.Instructions(info.Instructions))
	}
	if len(scopes) > 0 {
		serverOpts = append(serverOpts, sake.RequireScopes(scopes...))
	}
	srv, err := client.Proxy(ctx, remote, client.Prefix(prefix), client.ProxyServerOptions(serverOpts...))
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	var plugOpts []plug.Option
	if issuer != "" {
		if jwks == "" || resource == "" {
			return fmt.Errorf("-issuer needs -jwks and -resource")
		}
		v, err := auth.NewJWTVerifier(auth.JWTConfig{Issuer: issuer, Audience: []string{resource}, Keys: auth.NewJWKS(jwks, nil)})
		if err != nil {
			return err
		}
		meta := &auth.ResourceMetadata{Resource: resource, AuthorizationServers: []string{issuer}, ScopesSupported: scopes}
		mux.Handle(auth.WellKnownPath(resource), meta.Handler())
		plugOpts = append(plugOpts, plug.Authorization(v, auth.MetadataURL(resource), scopes...), plug.AllowedHosts("*"))
	}
	h := plug.New(srv, plugOpts...)
	defer h.Close()
	mux.Handle("/mcp", h)
	hs := &http.Server{Addr: addr, Handler: mux}
	go func() {
		<-ctx.Done()
		_ = hs.Close()
	}()
	logger.Info("proxying", "url", "http://"+addr+"/mcp", "command", strings.Join(command, " "))
	if err := hs.ListenAndServe(); err != nil && err != http.ErrServerClosed {
		return err
	}
	return nil
}
