package upstream

import (
	"context"
	"testing"
)

// AllowDomains takes the hd claim for the hosted domain only from
// Google's ID tokens; any other provider is judged by the verified
// email address's domain, since its hd (if any) means nothing defined.
func TestAllowDomainsTrustsHDOnlyFromGoogle(t *testing.T) {
	t.Parallel()
	rule := AllowDomains("corp.example")
	cases := []struct {
		name  string
		p     Person
		allow bool
	}{
		{"Google Workspace account", Person{Issuer: googleIssuer, HostedDomain: "corp.example", Email: "a@corp.example", EmailVerified: true}, true},
		{"Google hd alone", Person{Issuer: googleIssuer, HostedDomain: "corp.example"}, true},
		{"Google's issuer without its scheme", Person{Issuer: "accounts.google.com", HostedDomain: "corp.example"}, true},
		{"another provider's hd", Person{Issuer: "https://idp.example", HostedDomain: "corp.example", Email: "m@evil.example", EmailVerified: true}, false},
		{"another provider's hd, unverified email in the domain", Person{Issuer: "https://idp.example", HostedDomain: "corp.example", Email: "m@corp.example"}, false},
		{"another provider, verified email in the domain", Person{Issuer: "https://idp.example", Email: "a@CORP.example", EmailVerified: true}, true},
		{"a look-alike domain", Person{Issuer: "https://idp.example", Email: "a@evilcorp.example", EmailVerified: true}, false},
		{"Google hd of another domain", Person{Issuer: googleIssuer, HostedDomain: "other.example"}, false},
	}
	for _, tc := range cases {
		err := rule(context.Background(), &tc.p)
		if (err == nil) != tc.allow {
			t.Errorf("%s: %v, want allowed %v", tc.name, err, tc.allow)
		}
	}
}
