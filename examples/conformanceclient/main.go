// Command conformanceclient is the client the official MCP conformance
// suite drives (conformance client --command ...): it is spawned as
// "conformanceclient <server-url>" once per scenario, reads the scenario's
// name from MCP_CONFORMANCE_SCENARIO and its context from
// MCP_CONFORMANCE_CONTEXT, and does what the scenario expects of a client
// with sake/client. scripts/conformance-client.sh runs the suite with it.
package main

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// redirectURL is never requested: the suite's authorization server
// redirects at once and the client reads the redirect.
const redirectURL = "http://localhost:3000/callback"

// metadataURL is the client id the suite expects with client metadata
// documents.
const metadataURL = "https://conformance-test.local/client-metadata.json"

// usage is what -h prints.
const usage = `usage: conformanceclient SERVER-URL

Conformanceclient is the client the official MCP conformance suite drives
(conformance client --command ...): the suite starts it once per scenario
with the URL of its test server, the scenario's name in
MCP_CONFORMANCE_SCENARIO and its context (JSON) in MCP_CONFORMANCE_CONTEXT,
and it does what the scenario expects of a client, with sake/client. It
takes no flags. scripts/conformance-client.sh runs the suite with it.
`

func main() {
	if len(os.Args) == 2 && (os.Args[1] == "-h" || os.Args[1] == "-help" || os.Args[1] == "--help") {
		fmt.Fprint(os.Stderr, usage)
		return
	}
	if len(os.Args) != 2 {
		log.Fatalf("usage: %s SERVER-URL (with MCP_CONFORMANCE_SCENARIO set; -h explains)", os.Args[0])
	}
	scenario := os.Getenv("MCP_CONFORMANCE_SCENARIO")
	var sc map[string]any
	if raw := os.Getenv("MCP_CONFORMANCE_CONTEXT"); raw != "" {
		if err := json.Unmarshal([]byte(raw), &sc); err != nil {
			log.Fatalf("MCP_CONFORMANCE_CONTEXT: %v", err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	if err := run(ctx, scenario, os.Args[1], sc); err != nil {
		log.Fatalf("scenario %s: %v", scenario, err)
	}
}

func run(ctx context.Context, scenario, url string, sc map[string]any) error {
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	opts := []client.Option{
		client.ClientInfo("sake-conformance-client", "1.0.0"),
		client.Logger(logger),
		client.OnElicit(func(_ context.Context, r *protocol.ElicitRequest) (*protocol.ElicitResult, error) {
			content := r.Defaults()
			if scenario == "sep-2322-client-request-state" {
				content["confirmed"] = true
			}
			return client.Accept(content), nil
		}),
		client.OnSample(func(context.Context, *sake.SamplingRequest) (*sake.SamplingResult, error) {
			return &sake.SamplingResult{Role: sake.RoleAssistant, Content: sake.Text("a response from the sake client"), Model: "sake-test-model", StopReason: "endTurn"}, nil
		}),
		client.Roots(sake.Root{URI: "file:///tmp/sake", Name: "sake"}),
	}
	if v := os.Getenv("MCP_CONFORMANCE_PROTOCOL_VERSION"); v != "" && (v == protocol.ModernVersion || protocol.IsLegacyVersion(v)) {
		opts = append(opts, client.ProtocolVersion(v))
	}
	var httpOpts []client.HTTPOption
	if strings.HasPrefix(scenario, "auth/") {
		cfg, err := oauthConfig(scenario, sc)
		if err != nil {
			return err
		}
		httpOpts = append(httpOpts, client.WithAuthorizer(client.OAuth(cfg)))
	}
	c, err := client.Connect(ctx, client.HTTP(url, nil, httpOpts...), opts...)
	if err != nil {
		return err
	}
	defer c.Close()
	tools, err := c.ListTools(ctx)
	if err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	call := func(name string, args any) error {
		_, err := c.CallTool(ctx, name, args)
		var te *sake.ToolError
		if errors.As(err, &te) {
			return nil // a tool error is an answer
		}
		return err
	}
	switch {
	case strings.HasPrefix(scenario, "auth/"):
		return call("test-tool", map[string]any{})
	case scenario == "tools_call":
		return call("add_numbers", map[string]any{"a": 5, "b": 3})
	case scenario == "elicitation-sep1034-client-defaults":
		return call("test_client_elicitation_defaults", map[string]any{})
	case scenario == "sse-retry":
		return call("test_reconnection", map[string]any{})
	case scenario == "sep-2322-client-request-state":
		for _, name := range []string{"test_mrtr_echo_state", "test_mrtr_no_state", "test_mrtr_unrelated", "test_mrtr_no_result_type"} {
			if err := call(name, map[string]any{}); err != nil {
				logger.Info("call refused", "tool", name, "err", err)
			}
		}
	case scenario == "http-standard-headers":
		if len(tools) > 0 {
			_ = call(tools[0].Name, map[string]any{})
		}
		if res, err := c.ListResources(ctx); err == nil && len(res) > 0 {
			_, _ = c.ReadResource(ctx, res[0].URI)
		}
		if prompts, err := c.ListPrompts(ctx); err == nil && len(prompts) > 0 {
			_, _ = c.GetPrompt(ctx, prompts[0].Name, map[string]string{})
		}
	case scenario == "http-custom-headers":
		calls, _ := sc["toolCalls"].([]any)
		for _, raw := range calls {
			m, _ := raw.(map[string]any)
			name, _ := m["name"].(string)
			args, _ := m["arguments"].(map[string]any)
			if args == nil {
				args = map[string]any{}
			}
			if err := call(name, args); err != nil {
				logger.Info("call refused", "tool", name, "err", err)
			}
		}
	case scenario == "json-schema-2020-12-preservation":
		for _, t := range tools {
			if t.Name == "json_schema_2020_12_tool" {
				return call("json_schema_echo", map[string]any{"schema": t.InputSchema})
			}
		}
		return errors.New("the server lists no json_schema_2020_12_tool")
	case scenario == "http-invalid-tool-headers":
		for _, t := range tools {
			if err := call(t.Name, map[string]any{"region": "us-west1"}); err != nil {
				logger.Info("call refused", "tool", t.Name, "err", err)
			}
		}
	}
	return nil
}

// oauthConfig builds the client's authorization for an auth scenario.
func oauthConfig(scenario string, sc map[string]any) (client.OAuthConfig, error) {
	str := func(k string) string { s, _ := sc[k].(string); return s }
	cfg := client.OAuthConfig{
		RedirectURL:       redirectURL,
		Browser:           client.FollowRedirects(nil, redirectURL),
		ClientMetadataURL: metadataURL,
		ClientName:        "sake-conformance-client",
		ClientID:          str("client_id"),
		ClientSecret:      str("client_secret"),
		OfflineAccess:     strings.HasPrefix(scenario, "auth/offline-access"),
	}
	if strings.HasPrefix(scenario, "auth/dpop") {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return cfg, err
		}
		cfg.DPoP = key
	}
	if jwt := str("valid_jwt"); scenario == "auth/wif-jwt-bearer" && jwt != "" {
		// A workload: its platform's identity token is the assertion.
		cfg.Assertion = func(context.Context, string, string) (string, error) { return jwt, nil }
		cfg.Browser, cfg.RedirectURL = nil, ""
	}
	if idp := str("idp_token_endpoint"); scenario == "auth/enterprise-managed-authorization" && idp != "" {
		// The user signed in at the enterprise identity provider; its ID
		// token becomes an identity assertion grant for this server.
		idToken := str("idp_id_token")
		cfg.Assertion = client.EnterpriseIdP{TokenEndpoint: idp, ClientID: str("idp_client_id"),
			IDToken: func(context.Context) (string, error) { return idToken, nil }}.Assertion
		cfg.Browser, cfg.RedirectURL = nil, ""
	}
	if strings.HasPrefix(scenario, "auth/client-credentials") {
		cfg.ClientCredentials = true
		cfg.Browser, cfg.RedirectURL = nil, ""
		if p := str("private_key_pem"); p != "" {
			key, err := parseKey(p)
			if err != nil {
				return cfg, err
			}
			cfg.PrivateKey = key
		}
	}
	return cfg, nil
}

func parseKey(p string) (crypto.Signer, error) {
	block, _ := pem.Decode([]byte(p))
	if block == nil {
		return nil, errors.New("private_key_pem holds no PEM block")
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		if ek, err2 := x509.ParseECPrivateKey(block.Bytes); err2 == nil {
			return ek, nil
		}
		return nil, err
	}
	s, ok := k.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("unsupported key type %T", k)
	}
	return s, nil
}
