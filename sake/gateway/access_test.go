package gateway_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake/gateway"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// TestAccessRulesOnListsAndCalls: an entry's access rules decide who
// sees and calls its tools, per entry and per tool, by scope, subject and
// claim; a caller they refuse finds the tool neither listed nor callable.
func TestAccessRulesOnListsAndCalls(t *testing.T) {
	alpha, beta, gamma := newRemote(t, "alpha"), newRemote(t, "beta"), newRemote(t, "gamma")
	g := startGateway(t, fmt.Sprintf(`{"mcpServers": {
		"alpha": {"url": %q, "access": {"scopes": ["alpha"], "tools": {"hang": {"subjects": ["ana"]}}}},
		"beta": {"url": %q},
		"gamma": {"url": %q, "access": {"claims": {"groups": ["finance"]}}}}}`, alpha.url+"/mcp", beta.url+"/mcp", gamma.url+"/mcp"), gateway.HealthCheck(time.Hour))
	for _, tc := range []struct {
		who     string
		opts    []saketest.Option
		listed  []string
		refused []string
	}{
		{"no token", nil, []string{"beta_echo", "beta_hang"}, []string{"alpha_echo", "gamma_echo"}},
		{"scope alpha, bob", []saketest.Option{saketest.Scopes("alpha"), saketest.Subject("bob")},
			[]string{"alpha_echo", "beta_echo", "beta_hang"}, []string{"alpha_hang", "gamma_echo"}},
		{"scope alpha, ana, finance", []saketest.Option{saketest.Scopes("alpha"), saketest.Subject("ana"), saketest.Claims(map[string]any{"groups": []any{"staff", "finance"}})},
			[]string{"alpha_echo", "alpha_hang", "beta_echo", "beta_hang", "gamma_echo", "gamma_hang"}, nil},
		{"ana without the scope, group staff", []saketest.Option{saketest.Subject("ana"), saketest.Claims(map[string]any{"groups": "staff"})},
			[]string{"beta_echo", "beta_hang"}, []string{"alpha_hang", "gamma_echo"}},
	} {
		t.Run(tc.who, func(t *testing.T) {
			saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
				c := saketest.Connect(t, g.Server(), append(opts, tc.opts...)...)
				if got := names(t, c); !slices.Equal(got, tc.listed) {
					t.Errorf("listed %v, want %v", got, tc.listed)
				}
				for _, tool := range tc.refused {
					if _, err := c.CallTool(tool, nil); err == nil || !strings.Contains(err.Error(), "nknown tool") {
						t.Errorf("%s: %v, want an unknown tool", tool, err)
					}
				}
			})
		})
	}
}

// TestAccessRulesNeedARestartToAppear: rules added by a reload to a
// gateway started without any are refused (its lists are not filtered
// per caller), as is a changed "auth" section; a wrong rule is refused.
func TestAccessRulesNeedARestartToAppear(t *testing.T) {
	alpha := newRemote(t, "alpha")
	g := startGateway(t, fmt.Sprintf(`{"mcpServers": {"alpha": {"url": %q}}}`, alpha.url+"/mcp"))
	err := g.Apply(parse(t, fmt.Sprintf(`{"mcpServers": {"alpha": {"url": %q, "access": {"scopes": ["x"]}}}}`, alpha.url+"/mcp")))
	if err == nil || !strings.Contains(err.Error(), "restart") {
		t.Fatalf("access rules added by a reload: %v", err)
	}
	err = g.Apply(parse(t, fmt.Sprintf(`{"auth": {"issuer": "https://idp.example.com", "audience": "https://gw.example.com/mcp"}, "mcpServers": {"alpha": {"url": %q}}}`, alpha.url+"/mcp")))
	if err == nil || !strings.Contains(err.Error(), "restart") {
		t.Fatalf("auth added by a reload: %v", err)
	}
	for _, bad := range []string{
		`{"auth": {"audience": "https://gw"}, "mcpServers": {"a": {"url": "http://x"}}}`,
		`{"auth": {"issuer": "https://idp"}, "mcpServers": {"a": {"url": "http://x"}}}`,
		`{"mcpServers": {"a": {"url": "http://x", "access": {"claims": {"groups": []}}}}}`,
		`{"mcpServers": {"a": {"url": "http://x", "access": {"tools": {"t": null}}}}}`,
		`{"auth": {"issuer": "https://idp", "audience": "https://gw", "introspection": {"clientId": "gw"}}, "mcpServers": {"a": {"url": "http://x"}}}`,
		`{"auth": {"issuer": "https://idp", "audience": "https://gw", "jwksUri": "https://idp/keys", "introspection": {"clientId": "gw", "clientSecret": "s3cret"}}, "mcpServers": {"a": {"url": "http://x"}}}`,
	} {
		if _, err := gateway.ParseConfig([]byte(bad)); err == nil {
			t.Errorf("%s was accepted", bad)
		}
	}
}
