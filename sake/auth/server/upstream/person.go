package upstream

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"
)

// Person is who signed in at the upstream provider.
type Person struct {
	// Subject is the person's subject at Sake's authorization server:
	// Issuer, "#", and ID, so that two providers never share one.
	Subject string `json:"subject"`
	// Issuer is the provider's issuer (for Entra, the tenant's).
	Issuer string `json:"issuer"`
	// ID is the provider's stable identifier of the person: sub, Entra's
	// oid, GitHub's numeric user id.
	ID string `json:"id"`
	// Tenant is Entra's tid.
	Tenant string `json:"tenant,omitempty"`
	// Email is the person's email address, EmailVerified whether the
	// provider verified it (GitHub: a verified address, the primary one
	// if verified).
	Email         string `json:"email,omitempty"`
	EmailVerified bool   `json:"email_verified,omitempty"`
	// HostedDomain is Google's hd claim: the Workspace domain. It is
	// read from Google's ID tokens only (another provider's hd means
	// nothing defined).
	HostedDomain string `json:"hd,omitempty"`
	// Name and Username (preferred_username, GitHub's login).
	Name     string `json:"name,omitempty"`
	Username string `json:"username,omitempty"`
	// Organizations are GitHub organisations (with the read:org scope)
	// or Auth0's org_id.
	Organizations []string `json:"organizations,omitempty"`
	// ACR, AMR and AuthTime are from the ID token (acr, amr,
	// auth_time).
	ACR      string    `json:"acr,omitempty"`
	AMR      []string  `json:"amr,omitempty"`
	AuthTime time.Time `json:"auth_time"`
	// Claims are the ID token's claims (GitHub: the user API's answer),
	// for rules that need more.
	Claims map[string]any `json:"claims,omitempty"`
}

// Rule decides whether a person may sign in: nil lets them, an error
// refuses them (its text is shown to them). Rules run after every
// successful upstream sign-in and again at each Lookup.
type Rule func(ctx context.Context, p *Person) error

// ErrNotAllowed is what the preset rules refuse with.
var ErrNotAllowed = errors.New("upstream: this account may not sign in here")

// AllowDomains lets in people whose email address is in one of domains
// and verified by the provider (email_verified true), or, at Google,
// whose Workspace domain (the hd claim) is. Only Google defines hd as the
// hosted domain: another provider's hd claim is ignored, and its people
// are judged by their verified email address alone.
func AllowDomains(domains ...string) Rule {
	return func(_ context.Context, p *Person) error {
		hosted := ""
		if isGoogle(p.Issuer) {
			hosted = p.HostedDomain
		}
		for _, d := range domains {
			d = strings.ToLower(strings.TrimPrefix(d, "@"))
			if hosted != "" && strings.EqualFold(hosted, d) {
				return nil
			}
			if p.EmailVerified && strings.HasSuffix(strings.ToLower(p.Email), "@"+d) {
				return nil
			}
		}
		return ErrNotAllowed
	}
}

// AllowTenants lets in people of the Entra tenants (tid) given.
func AllowTenants(tenantIDs ...string) Rule {
	return func(_ context.Context, p *Person) error {
		if p.Tenant != "" && slices.Contains(tenantIDs, p.Tenant) {
			return nil
		}
		return ErrNotAllowed
	}
}

// AllowOrganizations lets in members of one of orgs (GitHub
// organisation logins, compared without case, or Auth0 org ids).
func AllowOrganizations(orgs ...string) Rule {
	return func(_ context.Context, p *Person) error {
		for _, o := range p.Organizations {
			for _, want := range orgs {
				if strings.EqualFold(o, want) {
					return nil
				}
			}
		}
		return ErrNotAllowed
	}
}

// allowed runs every rule; a rule that panics refuses.
func allowed(ctx context.Context, rules []Rule, p *Person) (err error) {
	defer func() {
		if recover() != nil {
			err = ErrNotAllowed
		}
	}()
	for _, r := range rules {
		if err := r(ctx, p); err != nil {
			return err
		}
	}
	return nil
}

// claims is what Lookup gives the authorization server about p.
func (p *Person) claims() map[string]any {
	c := map[string]any{}
	if p.Name != "" {
		c["name"] = p.Name
	}
	if p.Email != "" {
		c["email"] = p.Email
		c["email_verified"] = p.EmailVerified
	}
	if p.Username != "" {
		c["preferred_username"] = p.Username
	}
	return c
}

// googleIssuer is Google's issuer; its ID tokens carry it with or
// without the scheme.
const googleIssuer = "https://accounts.google.com"

// isGoogle reports whether issuer is Google's, whose hd claim names the
// person's Workspace domain.
func isGoogle(issuer string) bool {
	return issuer == googleIssuer || issuer == strings.TrimPrefix(googleIssuer, "https://")
}
