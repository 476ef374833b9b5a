// Command proxy fronts a stdio MCP server as Streamable HTTP: it starts
// the server's command, connects to it with sake/client, and serves its
// tools, resources and prompts from a sake server at /mcp. With -issuer
// and -jwks it asks its callers for access tokens from that authorization
// server; their tokens stay here: the stdio server never sees them (MCP
// forbids passing tokens through). Each caller's capabilities and log
// level travel with its requests, the server's tasks become tasks owned by
// their caller, and its skills are served too: examples/everything behind
// this proxy passes the conformance suite as it does alone
// (scripts/proxy-conformance.sh). A handshake-era server's questions
// (elicitation, sampling, roots) name no call over stdio: they go to the
// caller of the one call in flight, and are refused while several run. A
// server that declares no logging (those of the Python SDK 1.x) is not
// asked for a log level.
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
	"github.com/sakemcp/sake-go/sake/proxy"
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
	cfg := config{prefix: prefix, scopes: scopes, resource: resource, issuer: issuer, logger: logger}
	if issuer != "" {
		if jwks == "" || resource == "" {
			return fmt.Errorf("-issuer needs -jwks and -resource")
		}
		v, err := auth.NewJWTVerifier(auth.JWTConfig{Issuer: issuer, Audience: []string{resource}, Keys: auth.NewJWKS(jwks, nil)})
		if err != nil {
			return err
		}
		cfg.verifier = v
	}
	remote, err := client.Connect(ctx, client.Command(exec.Command(command[0], command[1:]...)),
		client.ClientInfo("sake-proxy", "1.0.0"), client.Logger(logger), client.ForwardQuestions())
	if err != nil {
		return fmt.Errorf("connecting to %s: %w", command[0], err)
	}
	defer remote.Close()
	info := remote.Info()
	logger.Info("connected", "server", info.Server.Name, "era", info.Era, "version", info.ProtocolVersion)
	h, closeProxy, err := newProxy(ctx, remote, cfg)
	if err != nil {
		return err
	}
	defer closeProxy()
	hs := &http.Server{Addr: addr, Handler: h}
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

// config is what the proxy serves besides the remote server's components.
type config struct {
	prefix string
	scopes []string
	// verifier checks the callers' access tokens; nil serves without
	// authorization.
	verifier auth.Verifier
	// resource and issuer describe this endpoint in its protected resource
	// metadata (with verifier).
	resource, issuer string
	logger           *slog.Logger
}

// newProxy serves remote's components at /mcp (and, with authorization,
// the protected resource metadata at its well-known URL). The remote
// client keeps its own credentials: the callers' tokens are checked here
// and go no further. closeProxy ends the open streams.
func newProxy(ctx context.Context, remote *client.Client, cfg config) (h http.Handler, closeProxy func(), err error) {
	info := remote.Info()
	serverOpts := []sake.Option{sake.Name(info.Server.Name+"-proxy", info.Server.Version), sake.Logger(cfg.logger)}
	if info.Instructions != "" {
		serverOpts = append(serverOpts, sake.Instructions(info.Instructions))
	}
	if len(cfg.scopes) > 0 {
		serverOpts = append(serverOpts, sake.RequireScopes(cfg.scopes...))
	}
	srv, err := proxy.New(ctx, remote, proxy.Prefix(cfg.prefix), proxy.ServerOptions(serverOpts...))
	if err != nil {
		return nil, nil, err
	}
	mux := http.NewServeMux()
	var plugOpts []plug.Option
	if cfg.verifier != nil {
		meta := &auth.ResourceMetadata{Resource: cfg.resource, AuthorizationServers: []string{cfg.issuer}, ScopesSupported: cfg.scopes}
		mux.Handle(auth.WellKnownPath(cfg.resource), meta.Handler())
		plugOpts = append(plugOpts, plug.Authorization(cfg.verifier, auth.MetadataURL(cfg.resource), cfg.scopes...), plug.AllowedHosts("*"))
	}
	ph := plug.New(srv, plugOpts...)
	mux.Handle("/mcp", ph)
	return mux, ph.Close, nil
}
