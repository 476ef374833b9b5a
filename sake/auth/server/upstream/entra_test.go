package upstream

import (
	"net/http"
	"testing"
)

// entraHarness is the test provider standing in for Entra ID: tenant is
// "T1" (an application of one tenant) or "organizations"; the person is
// of tenant tid, and the ID token's issuer is iss.
func entraHarness(t *testing.T, tenant, tid, iss string, allow ...Rule) *harness {
	h := newHarness(t, func(c *Config) {
		c.Provider = entraAt(c.Provider.Issuer+"/", tenant)
		c.Allow = allow
	})
	h.op.sendIss = false // Entra does not send iss (RFC 9207)
	h.op.claims["tid"], h.op.claims["oid"] = tid, "oid-of-alice"
	if iss == "" {
		iss = h.op.issuer() + "/" + tid + "/v2.0"
	}
	h.op.claims["iss"] = iss
	return h
}

func TestEntraTenants(t *testing.T) {
	t.Run("one tenant", func(t *testing.T) {
		h := entraHarness(t, "T1", "T1", "")
		body := h.tokens()
		if sub := jwtClaims(t, body["access_token"].(string))["sub"]; sub != h.op.issuer()+"/T1/v2.0#oid-of-alice" {
			t.Fatalf("sub %v: want the tenant's issuer and the oid", sub)
		}
	})
	t.Run("several tenants, restricted to some", func(t *testing.T) {
		h := entraHarness(t, "organizations", "T2", "", AllowTenants("T1", "T2"))
		_, q := authorizeParams()
		h.signIn(q)
	})
	for name, h := range map[string]func(t *testing.T) *harness{
		"a person of another tenant than the application's": func(t *testing.T) *harness { return entraHarness(t, "T1", "T2", "") },
		"an issuer that is not the person's tenant's": func(t *testing.T) *harness {
			return entraHarness(t, "organizations", "T2", "https://evil.example/T2/v2.0")
		},
		"a tenant not allowed": func(t *testing.T) *harness {
			return entraHarness(t, "organizations", "T3", "", AllowTenants("T1", "T2"))
		},
	} {
		t.Run(name, func(t *testing.T) {
			h := h(t)
			_, q := authorizeParams()
			resp, body := h.get(h.fromProvider(h.toProvider(q)))
			if resp.StatusCode != http.StatusForbidden {
				t.Fatalf("callback: %d %s", resp.StatusCode, body)
			}
			if h.signedIn() {
				t.Fatal("signed in")
			}
		})
	}
}
