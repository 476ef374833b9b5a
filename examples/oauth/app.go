package main

import (
	"context"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/auth"
	"github.com/sakemcp/sake-go/sake/auth/server"
	"github.com/sakemcp/sake-go/sake/auth/server/upstream"
	"github.com/sakemcp/sake-go/sake/plug"
)

// DemoClientID is the pre-registered public client: any loopback port.
const DemoClientID = "demo-client"

// Scopes are what the notes tools need.
var Scopes = []server.Scope{
	{Name: "notes:read", Description: "Read your notes"},
	{Name: "notes:write", Description: "Add and delete your notes"},
}

// App is the example application: accounts, authorization server, MCP
// endpoint.
type App struct {
	// Accounts are the application's own users; nil when people sign in
	// at an upstream provider (Upstream).
	Accounts *Accounts
	// Upstream is the sign-in at an OpenID provider, when configured.
	Upstream *upstream.Login
	AS       *server.Server
	MCP      *sake.Server
	Resource string
	Router   http.Handler
}

// Options choose the sign-in: the application's own accounts (the zero
// value), or an upstream OpenID provider.
type Options struct {
	// OIDCIssuer, OIDCClientID and OIDCClientSecret sign people in at
	// that provider instead of the login form; its redirect URI is
	// ISSUER/login/callback.
	OIDCIssuer, OIDCClientID, OIDCClientSecret string
}

// NewApp builds the application for issuer (its origin, for example
// http://127.0.0.1:8080) on its own accounts; the MCP endpoint is
// issuer + "/mcp".
func NewApp(issuer string, logger *slog.Logger) (*App, error) {
	return NewAppWith(context.Background(), issuer, Options{}, logger)
}

// NewAppWith builds the application with opts.
func NewAppWith(ctx context.Context, issuer string, opts Options, logger *slog.Logger) (*App, error) {
	resource := issuer + "/mcp"
	store := server.NewMemoryStore()
	var login server.Login
	var accounts *Accounts
	var up *upstream.Login
	if opts.OIDCIssuer != "" {
		var err error
		up, err = upstream.New(ctx, upstream.Config{Provider: upstream.OIDC(opts.OIDCIssuer), ClientID: opts.OIDCClientID,
			ClientSecret: opts.OIDCClientSecret, BaseURL: issuer + "/login", Store: store, Logger: logger})
		if err != nil {
			return nil, err
		}
		login = up
	} else {
		accounts = NewAccounts()
		login = accounts
	}
	as, err := server.New(server.Config{
		Issuer:      issuer,
		Login:       login,
		Store:       store,
		Resources:   []string{resource},
		Scopes:      Scopes,
		KeyRotation: 24 * time.Hour,
		Clients: []server.Client{{ID: DemoClientID, Name: "Demo client",
			RedirectURIs: []string{"http://127.0.0.1/callback", "http://localhost/callback"},
			GrantTypes:   []string{"authorization_code", "refresh_token", "urn:ietf:params:oauth:grant-type:device_code"}}},
		Logger: logger,
	})
	if err != nil {
		return nil, err
	}
	if accounts != nil {
		accounts.AS = as
	}
	mcp, err := sake.New(NewNotes(), sake.Name("notes", "1.0.0"), sake.Logger(logger), sake.CacheHints(0, 0, "private"))
	if err != nil {
		return nil, err
	}
	v, err := as.Verifier(resource)
	if err != nil {
		return nil, err
	}

	r := chi.NewRouter()
	r.Use(middleware.Recoverer)
	as.Mount(r)
	prm := as.ResourceMetadata(resource, "notes:read", "notes:write").Handler()
	r.Handle(auth.WellKnownPath(resource), prm)
	// The endpoint answers only to the issuer's own host, the name its
	// tokens are issued for (DNS rebinding protection).
	host := issuer
	if u, err := url.Parse(issuer); err == nil && u.Host != "" {
		host = u.Host
	}
	r.Handle("/mcp", plug.New(mcp, plug.Authorization(v, auth.MetadataURL(resource)), plug.AllowedHosts(host), plug.Logger(logger)))
	if up != nil {
		up.Mount(r)
	} else {
		r.Get("/login", accounts.ServeLogin)
		r.Post("/login", accounts.ServeLogin)
	}
	r.Get("/", func(w http.ResponseWriter, r *http.Request) {
		pageHeaders(w)
		_ = homeTemplate.Execute(w, map[string]string{"MCP": resource, "Issuer": issuer})
	})
	return &App{Accounts: accounts, Upstream: up, AS: as, MCP: mcp, Resource: resource, Router: r}, nil
}

var homeTemplate = template.Must(template.New("home").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Notes</title></head>
<body><main><h1>Notes</h1><p>MCP endpoint: <code>{{.MCP}}</code></p>
<p>Authorization server: <code>{{.Issuer}}</code></p><p><a href="/login">Sign in</a></p></main></body></html>`))

// Banner is what to paste into a client.
func (a *App) Banner() string {
	if a.Upstream != nil {
		return fmt.Sprintf(`MCP endpoint:          %s
Authorization server:  %s
Pre-registered client: %s (public; redirect http://127.0.0.1:ANY/callback)
Sign-in at:            %s
Its redirect URI:      %s (register it at the provider)
`, a.Resource, a.AS.Issuer(), DemoClientID, a.Upstream.Provider().Issuer, a.Upstream.CallbackURL())
	}
	return fmt.Sprintf(`MCP endpoint:          %s
Authorization server:  %s
Pre-registered client: %s (public; redirect http://127.0.0.1:ANY/callback)
Demo user:             %s / %s (one-time code %s for a multi-factor sign-in)
`, a.Resource, a.AS.Issuer(), DemoClientID, DemoUser, DemoPassword, DemoCode)
}
