package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

const machineRegistration = `{"client_name":"Robot","grant_types":["client_credentials"],"token_endpoint_auth_method":"client_secret_basic"}`

// registerJSON posts a registration body and returns the status and the
// decoded answer.
func (h *harness) registerJSON(body string) (int, map[string]any) {
	h.t.Helper()
	req := httptest.NewRequest(http.MethodPost, h.url(pathRegister), strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ts.Config.Handler.ServeHTTP(rec, req)
	var m map[string]any
	_ = json.Unmarshal(rec.Body.Bytes(), &m)
	return rec.Code, m
}

// By default a dynamically registered client may not use the client
// credentials grant: open registration would hand anyone a token with
// any configured scope, no person involved. The registration is refused
// and nothing is stored; a client stored with that grant (before the
// rule, or by another replica's configuration) is refused at the token
// endpoint.
func TestDynamicClientsMayNotUseClientCredentialsByDefault(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	st, m := h.registerJSON(machineRegistration)
	if st != http.StatusBadRequest || m["error"] != ErrInvalidClientMetadata || m["client_id"] != nil {
		t.Fatalf("registration asking for client_credentials: %d %v, want 400 invalid_client_metadata", st, m)
	}
	if d, _ := m["error_description"].(string); !strings.Contains(d, "client_credentials") {
		t.Fatalf("error_description %q does not name the grant", d)
	}
	if n := h.dynamicClients(); n != 0 {
		t.Fatalf("%d clients stored after a refused registration", n)
	}
	// A dynamic client already stored with the grant gets no token.
	hash, _ := HashSecret("stored-robot-secret-0123456789")
	c := &Client{ID: "stored-robot", SecretHash: hash, AuthMethod: AuthClientSecretBasic, Dynamic: true,
		GrantTypes: []string{"client_credentials"}, Created: h.clock.now()}
	if err := h.store.RegisterClient(context.Background(), c, RegistrationLimits{Total: 10, PerAddress: 10, UnusedTTL: DefaultUnusedClientTTL}); err != nil {
		t.Fatal(err)
	}
	resp, body := h.postForm(h.url(pathToken), url.Values{"grant_type": {"client_credentials"}, "scope": {"notes:write"}},
		"stored-robot", "stored-robot-secret-0123456789")
	h.wantError(resp, body, 400, ErrUnauthorizedClient)
	h.noneIssued()
	// Pre-registered machine clients keep the grant.
	if resp, tok := h.postForm(h.url(pathToken), url.Values{"grant_type": {"client_credentials"}}, machineID, machineSecr); resp.StatusCode != 200 || tok["access_token"] == nil {
		t.Fatalf("pre-registered machine client: %d %v", resp.StatusCode, tok)
	}
}

// Config.DynamicClientCredentials lets dynamic clients use the grant;
// Config.Registration, required with it, still decides each one.
func TestDynamicClientCredentialsWhenAllowed(t *testing.T) {
	t.Parallel()
	if _, err := New(Config{Issuer: "https://as.example", Login: newFakeLogin(), Resources: []string{resourceA},
		DynamicClientCredentials: true}); err == nil || !strings.Contains(err.Error(), "Config.Registration") {
		t.Fatalf("DynamicClientCredentials without a Registration hook: %v, want an error naming Config.Registration", err)
	}
	h := newHarness(t, func(c *Config) {
		c.DynamicClientCredentials = true
		c.Registration = func(_ context.Context, r *http.Request, cl *Client) error {
			if cl.allows("client_credentials") && r.Header.Get("Authorization") != "Bearer operator" {
				return errors.New("machine clients are registered by the operator")
			}
			return nil
		}
	})
	if st, m := h.registerJSON(machineRegistration); st != http.StatusBadRequest || m["error"] != ErrInvalidClientMetadata {
		t.Fatalf("machine registration the hook refuses: %d %v", st, m)
	}
	req := httptest.NewRequest(http.MethodPost, h.url(pathRegister), strings.NewReader(machineRegistration))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer operator")
	rec := httptest.NewRecorder()
	h.ts.Config.Handler.ServeHTTP(rec, req)
	var reg map[string]any
	_ = json.Unmarshal(rec.Body.Bytes(), &reg)
	if rec.Code != http.StatusCreated || reg["client_secret"] == nil {
		t.Fatalf("machine registration the hook accepts: %d %v", rec.Code, reg)
	}
	resp, tok := h.postForm(h.url(pathToken), url.Values{"grant_type": {"client_credentials"}, "scope": {"notes:read"}},
		reg["client_id"].(string), reg["client_secret"].(string))
	if resp.StatusCode != 200 || tok["access_token"] == nil {
		t.Fatalf("token for an allowed dynamic machine client: %d %v", resp.StatusCode, tok)
	}
}
