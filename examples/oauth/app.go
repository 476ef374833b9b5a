package main

import (
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
	Accounts *Accounts
	AS       *server.Server
	MCP      *sake.Server
	Resource string
	Router   http.Handler
}

// NewApp builds the application for issuer (its origin, for example
// http://127.0.0.1:8080); the MCP endpoint is issuer + "/mcp".
func NewApp(issuer string, logger *slog.Logger) (*App, error) {
	resource := issuer + "/mcp"
	accounts := NewAccounts()
	as, err := server.New(server.Config{
		Issuer:      issuer,
		Login:       accounts,
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
	accounts.AS = as
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
	r.Get("/login", accounts.ServeLogin)
	r.Post("/login", accounts.ServeLogin)
	r.Get("/", func(w http.ResponseWriter, r *http.Request) {
		pageHeaders(w)
		_ = homeTemplate.Execute(w, map[string]string{"MCP": resource, "Issuer": issuer})
	})
	return &App{Accounts: accounts, AS: as, MCP: mcp, Resource: resource, Router: r}, nil
}

var homeTemplate = template.Must(template.New("home").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Notes</title></head>
<body><main><h1>Notes</h1><p>MCP endpoint: <code>{{.MCP}}</code></p>
<p>Authorization server: <code>{{.Issuer}}</code></p><p><a href="/login">Sign in</a></p></main></body></html>`))

// Banner is what to paste into a client.
func (a *App) Banner() string {
	return fmt.Sprintf(`MCP endpoint:          %s
Authorization server:  %s
Pre-registered client: %s (public; redirect http://127.0.0.1:ANY/callback)
Demo user:             %s / %s (one-time code %s for a multi-factor sign-in)
`, a.Resource, a.AS.Issuer(), DemoClientID, DemoUser, DemoPassword, DemoCode)
}
