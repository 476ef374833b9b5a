package main

import (
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/auth"
	"github.com/sakemcp/sake-go/sake/plug"
)

// Ledger is a small expense ledger whose tools need different scopes, and
// whose destructive tool needs a recent multi-factor sign-in.
type Ledger struct {
	mu      sync.Mutex
	entries map[string][]Entry // by owner
}

// Entry is one expense.
type Entry struct {
	Amount      float64 `json:"amount"`
	Description string  `json:"description"`
}

// NewLedger returns an empty ledger.
func NewLedger() *Ledger { return &Ledger{entries: map[string][]Entry{}} }

// Declare says what each tool requires.
func (l *Ledger) Declare(d *sake.Declarations) {
	d.Tool("AddExpense").Description("Records an expense in your ledger.").Scopes("ledger:write")
	d.Tool("ListExpenses").Description("Lists the expenses in your ledger.").Scopes("ledger:read").ReadOnly()
	d.Tool("ClearLedger").Description("Deletes every expense in your ledger.").
		Scopes("ledger:write").Destructive(true).
		Authentication([]string{"urn:mfa"}, 10*time.Minute)
	d.Tool("Whoami").Description("Says who you are signed in as.").ReadOnly()
}

// AddArgs are the arguments of add_expense.
type AddArgs struct {
	Amount      float64 `json:"amount" jsonschema:"exclusiveMinimum=0,description=Amount in euros"`
	Description string  `json:"description" jsonschema:"minLength=1,maxLength=200"`
}

func owner(ctx *sake.Context) string {
	if id := ctx.Identity(); id != nil {
		return id.Owner()
	}
	return "anonymous"
}

// AddExpense records an expense for the caller.
func (l *Ledger) AddExpense(ctx *sake.Context, a AddArgs) (string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	o := owner(ctx)
	l.entries[o] = append(l.entries[o], Entry(a))
	return fmt.Sprintf("Recorded %.2f € for %s.", a.Amount, a.Description), nil
}

// Expenses is what list_expenses returns.
type Expenses struct {
	Entries []Entry `json:"entries"`
	Total   float64 `json:"total"`
}

// ListExpenses lists the caller's expenses.
func (l *Ledger) ListExpenses(ctx *sake.Context) (Expenses, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := Expenses{Entries: append([]Entry{}, l.entries[owner(ctx)]...)}
	for _, e := range out.Entries {
		out.Total += e.Amount
	}
	return out, nil
}

// ClearLedger deletes the caller's expenses.
func (l *Ledger) ClearLedger(ctx *sake.Context) (string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(l.entries[owner(ctx)])
	delete(l.entries, owner(ctx))
	return fmt.Sprintf("Deleted %d expenses.", n), nil
}

// Whoami describes the caller.
func (l *Ledger) Whoami(ctx *sake.Context) (string, error) {
	id := ctx.Identity()
	if id == nil {
		return "anonymous", nil
	}
	scopes := append([]string(nil), id.Scopes...)
	sort.Strings(scopes)
	return fmt.Sprintf("subject=%q client=%q scopes=%v acr=%q", id.Subject, id.ClientID, scopes, id.ACR), nil
}

// Scopes are every scope the ledger knows.
var Scopes = []string{"ledger:read", "ledger:write"}

// NewRouter mounts the MCP endpoint at /mcp behind token verification,
// and the protected resource metadata (RFC 9728) at its well-known paths;
// opts are more options for the endpoint (plug.AllowedOrigins). The
// endpoint answers only to the resource's own host (plug.AllowedHosts), the
// name its tokens are issued for: a request naming another host, as a DNS
// rebinding attack does, gets 403.
func NewRouter(srv *sake.Server, v auth.Verifier, resource string, authorizationServers []string, opts ...plug.Option) http.Handler {
	r := chi.NewRouter()
	r.Use(middleware.Recoverer)
	meta := &auth.ResourceMetadata{Resource: resource, AuthorizationServers: authorizationServers,
		ScopesSupported: Scopes, ResourceName: "Ledger"}
	r.Handle(auth.WellKnownPath(resource), meta.Handler())
	r.Handle("/.well-known/oauth-protected-resource", meta.Handler())
	host := resource
	if u, err := url.Parse(resource); err == nil && u.Host != "" {
		host = u.Host
	}
	r.Handle("/mcp", plug.New(srv, append([]plug.Option{plug.Authorization(v, auth.MetadataURL(resource)), plug.AllowedHosts(host)}, opts...)...))
	return r
}
