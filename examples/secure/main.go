// Command secure is an MCP server whose tools need OAuth scopes, one of
// them a recent multi-factor sign-in (RFC 9470).
//
// With -issuer it accepts tokens of a real authorization server (Keycloak,
// Auth0, Okta, Entra ID...), checking them against the issuer's keys:
//
//	go run ./examples/secure -http 127.0.0.1:8080 -issuer https://idp.example.com/realms/demo -resource http://127.0.0.1:8080/mcp
//
// Without -issuer it signs its own development tokens and prints one with
// every scope.
package main

import (
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/auth"
	"github.com/sakemcp/sake-go/sake/plug"
)

func main() {
	addr := flag.String("http", "127.0.0.1:8080", "address to serve on")
	issuer := flag.String("issuer", "", "the authorization server's issuer URL (empty: sign development tokens)")
	jwksURL := flag.String("jwks-url", "", "the issuer's JWKS URL (default: from its metadata)")
	origins := flag.String("allow-origin", "", "browser origins to accept besides loopback ones, comma-separated (scheme://host[:port]; \"*\" for any)")
	resource := flag.String("resource", "", "this endpoint's canonical URL, the tokens' audience (default http://ADDR/mcp)")
	flag.Parse()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if *resource == "" {
		*resource = "http://" + *addr + "/mcp"
	}
	srv, err := sake.New(NewLedger(), sake.Name("ledger", "1.0.0"), sake.Logger(logger), sake.CacheHints(0, 0, "private"))
	if err != nil {
		logger.Error("server", "err", err)
		os.Exit(1)
	}
	v, servers, err := verifier(context.Background(), logger, *issuer, *jwksURL, *resource)
	if err != nil {
		logger.Error("verifier", "err", err)
		os.Exit(1)
	}
	// ReadHeaderTimeout and IdleTimeout bound slow and idle clients; plug
	// bounds body reads itself (plug.BodyReadTimeout). No WriteTimeout: it
	// would cut SSE streams (GET streams, long tool calls) mid-response.
	hs := &http.Server{Addr: *addr, Handler: NewRouter(srv, v, *resource, servers, plug.AllowedOrigins(strings.Split(*origins, ",")...)), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		_ = srv.Shutdown(context.Background())
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(shutdown)
	}()
	logger.Info("serving MCP", "url", *resource)
	if err := hs.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		logger.Error("http", "err", err)
		os.Exit(1)
	}
}

func verifier(ctx context.Context, logger *slog.Logger, issuer, jwksURL, resource string) (auth.Verifier, []string, error) {
	if issuer == "" {
		secret := make([]byte, 32)
		_, _ = rand.Read(secret)
		dev := "http://" + "localhost/dev-issuer"
		v, err := auth.NewJWTVerifier(auth.JWTConfig{Issuer: dev, Audience: []string{resource}, HMACSecret: secret})
		if err != nil {
			return nil, nil, err
		}
		tok, err := (&auth.Issuer{Issuer: dev, Secret: secret, Audience: resource, TTL: 12 * time.Hour}).
			Issue("developer", "dev-client", Scopes, "urn:mfa", time.Now(), "")
		if err != nil {
			return nil, nil, err
		}
		logger.Info("development token (every scope, multi-factor sign-in, 12 h)", "token", tok)
		return v, []string{dev}, nil
	}
	client := &http.Client{Timeout: 10 * time.Second}
	if jwksURL == "" {
		md, err := auth.Discover(ctx, issuer, client)
		if err != nil {
			return nil, nil, err
		}
		jwksURL = md.JWKSURI
	}
	v, err := auth.NewJWTVerifier(auth.JWTConfig{Issuer: issuer, Audience: []string{resource}, Keys: auth.NewJWKS(jwksURL, client)})
	return v, []string{issuer}, err
}
