package gateway

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/sakemcp/sake-go/sake"
)

// Auth is the "auth" section of a configuration: the gateway is an
// OAuth 2.1 resource server that accepts access tokens an issuer gives
// for it: JWTs it signs, or opaque tokens it answers for (Introspection). The library keeps it for the program that serves the
// gateway (sake gateway builds a sake/auth verifier and plug's
// Authorization from it); the gateway itself enforces the entries'
// Access rules on whatever identity the transport establishes.
type Auth struct {
	// Issuer is the authorization server whose tokens are accepted (the
	// tokens' iss). Required.
	Issuer string `json:"issuer"`
	// Audience is the gateway's own URL as the tokens name it (aud,
	// RFC 8707), also the resource of its protected-resource metadata.
	// Required.
	Audience string `json:"audience"`
	// JWKSURI is where the issuer's signing keys are; empty, it is read
	// from the issuer's metadata.
	JWKSURI string `json:"jwksUri,omitempty"`
	// Scopes are required of every request.
	Scopes []string `json:"scopes,omitempty"`
	// Introspection, when set, verifies tokens by asking the issuer
	// (RFC 7662) instead of by signature.
	Introspection *Introspection `json:"introspection,omitempty"`
}

// Introspection is how the gateway asks its issuer about a token. Its
// values may name the environment ("${env:INTROSPECTION_SECRET}").
type Introspection struct {
	// Endpoint is the introspection endpoint; empty, it is read from the
	// issuer's metadata.
	Endpoint string `json:"endpoint,omitempty"`
	// ClientID and ClientSecret are the gateway's credentials there.
	ClientID     string `json:"clientId"`
	ClientSecret string `json:"clientSecret"`
}

// Access says which callers see and call an entry's components: a caller
// that does not match is shown none of them in lists and calling one is
// answered as for a component the gateway does not have. Every condition
// set must hold; an empty Access lets everyone in. Without an identity
// (no token) a caller matches no condition: authorization fails closed.
type Access struct {
	// Scopes must all be among the token's scopes.
	Scopes []string `json:"scopes,omitempty"`
	// Subjects, when set, are the token subjects (sub) let in.
	Subjects []string `json:"subjects,omitempty"`
	// Clients, when set, are the OAuth clients (client_id) let in.
	Clients []string `json:"clients,omitempty"`
	// Claims, when set, name claims and the values let in: the token's
	// claim (a string, or a list of strings such as "groups") must hold
	// one of them.
	Claims map[string][]string `json:"claims,omitempty"`
	// Tools are further rules for single tools, by their name as
	// published without the namespace (the remote name when it is one
	// every client accepts): a caller must match the entry's rule and
	// the tool's.
	Tools map[string]*Access `json:"tools,omitempty"`
}

// allows reports whether id matches a.
func (a *Access) allows(id *sake.Identity) bool {
	if a == nil {
		return true
	}
	if len(a.Scopes) == 0 && len(a.Subjects) == 0 && len(a.Clients) == 0 && len(a.Claims) == 0 {
		return true
	}
	if id == nil {
		return false
	}
	for _, s := range a.Scopes {
		if !slices.Contains(id.Scopes, s) {
			return false
		}
	}
	if len(a.Subjects) > 0 && (id.Subject == "" || !slices.Contains(a.Subjects, id.Subject)) {
		return false
	}
	if len(a.Clients) > 0 && (id.ClientID == "" || !slices.Contains(a.Clients, id.ClientID)) {
		return false
	}
	for claim, want := range a.Claims {
		if !claimHolds(id.Claims[claim], want) {
			return false
		}
	}
	return true
}

// claimHolds reports whether a claim's value (a string or a list) holds
// one of want.
func claimHolds(v any, want []string) bool {
	switch v := v.(type) {
	case string:
		return slices.Contains(want, v)
	case []string:
		for _, s := range v {
			if slices.Contains(want, s) {
				return true
			}
		}
	case []any:
		for _, s := range v {
			if s, ok := s.(string); ok && slices.Contains(want, s) {
				return true
			}
		}
	}
	return false
}

// checkAccess checks an entry's rules.
func (a *Access) check() error {
	if a == nil {
		return nil
	}
	for claim, vals := range a.Claims {
		if claim == "" || len(vals) == 0 {
			return fmt.Errorf(`"access": the claim %q lists no value; list the values let in`, claim)
		}
	}
	for name, t := range a.Tools {
		if t == nil {
			return fmt.Errorf(`"access": the tool %q has no rule`, name)
		}
		if len(t.Tools) > 0 {
			return fmt.Errorf(`"access": the tool %q has "tools" of its own`, name)
		}
		if err := t.check(); err != nil {
			return err
		}
	}
	return nil
}

func (c *Config) hasAccess() bool {
	if c.Auth != nil {
		return true
	}
	for _, e := range c.Servers {
		if e.Access != nil {
			return true
		}
	}
	return false
}

// checkAuth checks the "auth" section.
func (a *Auth) check() error {
	if a == nil {
		return nil
	}
	switch {
	case a.Issuer == "":
		return errors.New(`"auth" needs "issuer", the authorization server whose tokens are accepted`)
	case a.Audience == "":
		return errors.New(`"auth" needs "audience", the gateway's URL as its tokens name it`)
	case !strings.HasPrefix(a.Issuer, "https://") && !strings.HasPrefix(a.Issuer, "http://"):
		return fmt.Errorf(`"auth": the issuer %q is not a URL`, a.Issuer)
	case a.Introspection != nil && (a.Introspection.ClientID == "" || a.Introspection.ClientSecret == ""):
		return errors.New(`"auth": "introspection" needs "clientId" and "clientSecret"`)
	case a.Introspection != nil && a.JWKSURI != "":
		return errors.New(`"auth": "introspection" and "jwksUri" exclude each other; keep one`)
	}
	return nil
}

// checkReloadable refuses a configuration whose authorization a running
// gateway cannot take: another "auth" section (the transport verifies
// tokens with the one it started with), or access rules when the gateway
// started without any (its lists are not filtered per caller).
func (g *Gateway) checkReloadable(cfg *Config) error {
	if !reflect.DeepEqual(g.auth, cfg.Auth) {
		return errors.New(`the "auth" section changed; restart the gateway to change how it verifies tokens`)
	}
	if cfg.hasAccess() && !g.perCaller {
		return errors.New(`"access" rules appeared in a gateway started without any; restart the gateway to enforce them`)
	}
	for k, e := range cfg.Servers {
		if e.perUser() && (g.o.vault == nil || g.o.publicURL == "") {
			return fmt.Errorf(`%q signs each caller in ("perUser") and the gateway started without UserTokens and PublicURL; restart it with them`, k)
		}
	}
	return nil
}

// allow is the gateway's list policy: a component of an entry with
// access rules is shown to, and callable by, the callers they let in.
func (g *Gateway) allow(req *sake.Request, c sake.ComponentInfo) bool {
	r := g.owner(c)
	if r == nil {
		return true
	}
	if r.entry.perUser() {
		// A caller sees what their own session lists (fail closed
		// while the entry is not served).
		pu := r.users.Load()
		if pu == nil || !pu.lists(req, c) {
			return false
		}
	}
	a := r.entry.Access
	if a == nil {
		return true
	}
	if !a.allows(req.Identity) {
		return false
	}
	if c.List == sake.ListTools && len(a.Tools) > 0 {
		local := c.Name
		if r.ns != "" {
			local = strings.TrimPrefix(local, r.ns+"_")
		}
		return a.Tools[local].allows(req.Identity)
	}
	return true
}

// owner is the remote a listed component comes from.
func (g *Gateway) owner(c sake.ComponentInfo) *remote {
	table := g.routes.Load()
	if table == nil {
		return nil
	}
	name, sep, kind := c.Name, "_", "tool:"
	switch c.List {
	case sake.ListPrompts:
		kind = "prompt:"
	case sake.ListResources:
		name, sep, kind = c.URI, "+", "uri:"
	}
	if ns, _, ok := strings.Cut(name, sep); ok {
		if r := table.byNS[ns]; r != nil {
			return r
		}
	}
	if key, ok := g.claims.owner(kind + name); ok {
		return table.merged[key]
	}
	return nil
}
