package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

func main() {
	addr := flag.String("http", "127.0.0.1:8080", "address to listen on")
	issuer := flag.String("issuer", "", "the issuer URL clients see (default http://ADDR)")
	var opts Options
	flag.StringVar(&opts.OIDCIssuer, "oidc-issuer", "", "sign people in at this OpenID provider instead of the login form")
	flag.StringVar(&opts.OIDCClientID, "oidc-client-id", "", "this application's client id at the OpenID provider")
	flag.StringVar(&opts.OIDCClientSecret, "oidc-client-secret", "", "its client secret (or $OIDC_CLIENT_SECRET)")
	flag.Parse()
	if opts.OIDCClientSecret == "" {
		opts.OIDCClientSecret = os.Getenv("OIDC_CLIENT_SECRET")
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if *issuer == "" {
		*issuer = "http://" + *addr
	}
	app, err := NewAppWith(context.Background(), strings.TrimSuffix(*issuer, "/"), opts, logger)
	if err != nil {
		logger.Error("starting", "err", err)
		os.Exit(1)
	}
	// ReadHeaderTimeout and IdleTimeout bound slow and idle clients; plug
	// bounds body reads itself (plug.BodyReadTimeout). No WriteTimeout: it
	// would cut SSE streams (GET streams, long tool calls) mid-response.
	hs := &http.Server{Addr: *addr, Handler: app.Router, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		_ = app.MCP.Shutdown(context.Background())
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(shutdown)
	}()
	// Listen first: once the banner is printed, the server answers.
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		logger.Error("listening", "err", err)
		os.Exit(1)
	}
	fmt.Print(app.Banner())
	if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		logger.Error("http", "err", err)
		os.Exit(1)
	}
}
