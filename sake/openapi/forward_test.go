package openapi_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/auth"
	"github.com/sakemcp/sake-go/sake/openapi"
	"github.com/sakemcp/sake-go/sake/plug"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// tokenServer serves the Petstore 3.1 document behind a token verifier
// (keeping tokens or not) and connects a client with a real token.
func tokenServer(t *testing.T, api *petAPI, keep bool, era []saketest.Option, opts ...openapi.Option) *saketest.Client {
	t.Helper()
	const resource = "http://example.com/mcp"
	secret := []byte("a test secret of at least 32 bytes!")
	iss := &auth.Issuer{Issuer: "https://issuer.test", Secret: secret, Audience: resource}
	v, err := auth.NewJWTVerifier(auth.JWTConfig{Issuer: iss.Issuer, Audience: []string{resource}, HMACSecret: secret, KeepToken: keep})
	if err != nil {
		t.Fatal(err)
	}
	hc := api.srv.Client()
	srv, err := openapi.New(readSpec(t, "petstore-3.1.json"),
		append([]openapi.Option{openapi.BaseURL(api.srv.URL + "/api/v3"), openapi.HTTPClient(hc)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	h := plug.New(srv, plug.Authorization(v, "http://example.com/.well-known/oauth-protected-resource/mcp"))
	t.Cleanup(h.Close)
	c := saketest.Connect(t, srv, append(era, saketest.Handler(h, "/mcp"), saketest.TokenIssuer(iss),
		saketest.Subject("ana"), saketest.Scopes("pets"))...)
	t.Cleanup(hc.CloseIdleConnections)
	return c
}

func TestForwardBearerToken(t *testing.T) {
	saketest.BothEras(t, func(t *testing.T, era ...saketest.Option) {
		t.Run("forwarded when configured", func(t *testing.T) {
			api := newPetAPI(t)
			c := tokenServer(t, api, true, era, openapi.ForwardBearerToken())
			if _, err := c.CallTool("getPetById", map[string]any{"petId": 7}); err != nil {
				t.Fatal(err)
			}
			authz := api.last(t).Header.Get("Authorization")
			token, ok := strings.CutPrefix(authz, "Bearer ")
			if !ok || strings.Count(token, ".") != 2 {
				t.Fatalf("Authorization = %q, want the caller's JWT", authz)
			}
		})
		t.Run("not forwarded by default", func(t *testing.T) {
			api := newPetAPI(t)
			c := tokenServer(t, api, true, era)
			if _, err := c.CallTool("getPetById", map[string]any{"petId": 7}); err != nil {
				t.Fatal(err)
			}
			if authz := api.last(t).Header.Get("Authorization"); authz != "" {
				t.Fatalf("Authorization = %q reached the API without ForwardBearerToken", authz)
			}
		})
		t.Run("a token not kept is refused", func(t *testing.T) {
			api := newPetAPI(t)
			c := tokenServer(t, api, false, era, openapi.ForwardBearerToken())
			_, err := c.CallTool("getPetById", map[string]any{"petId": 7})
			var te *sake.ToolError
			if !errors.As(err, &te) || !strings.Contains(err.Error(), "KeepToken") {
				t.Fatalf("err = %v, want a tool error that names KeepToken", err)
			}
			if got := api.requests(); len(got) != 0 {
				t.Fatalf("the API received %+v without the caller's credentials", got)
			}
		})
		t.Run("edit request", func(t *testing.T) {
			api := newPetAPI(t)
			c := tokenServer(t, api, false, era, openapi.EditRequest(func(ctx *sake.Context, req *http.Request) error {
				if ctx.Identity() == nil {
					return errors.New("no caller")
				}
				req.Header.Set("X-User", ctx.Identity().Subject)
				return nil
			}))
			if _, err := c.CallTool("getPetById", map[string]any{"petId": 7}); err != nil {
				t.Fatal(err)
			}
			if got := api.last(t).Header.Get("X-User"); got != "ana" {
				t.Fatalf("X-User = %q, want the caller's subject", got)
			}
		})
	})
}

func TestMountedAndTransformed(t *testing.T) {
	api := newPetAPI(t)
	hc := api.srv.Client()
	pets, err := openapi.New(readSpec(t, "petstore-3.1.json"), openapi.BaseURL(api.srv.URL+"/api/v3"), openapi.HTTPClient(hc),
		openapi.Routes(openapi.RouteMap{Tags: []string{"user"}, Kind: openapi.Exclude}))
	if err != nil {
		t.Fatal(err)
	}
	// A transform renames a tool and fixes one of its arguments.
	if err := pets.Transform(sake.Transform{Tool: "findPetsByTags", Name: "find_good_pets",
		Args: map[string]sake.ArgTransform{"tags": {Value: []string{"good"}}}}); err != nil {
		t.Fatal(err)
	}
	parent := sake.MustNew(nil, sake.Name("gateway", "1.0.0"))
	if err := parent.Mount("petstore", pets); err != nil {
		t.Fatal(err)
	}
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		c := saketest.Connect(t, parent, opts...)
		t.Cleanup(hc.CloseIdleConnections)
		tools, err := c.ListTools()
		if err != nil {
			t.Fatal(err)
		}
		var found bool
		for _, tl := range tools {
			if strings.Contains(tl.Name, "User") {
				t.Errorf("excluded operation %s is served", tl.Name)
			}
			found = found || tl.Name == "petstore_getPetById"
		}
		if !found {
			t.Fatalf("tools = %+v, want petstore_getPetById", tools)
		}
		res, err := c.CallTool("petstore_getPetById", map[string]any{"petId": 7})
		if err != nil || !strings.Contains(res.Text(), "Rex") {
			t.Fatalf("petstore_getPetById = %v, %v", res, err)
		}
		if _, err := c.CallTool("petstore_find_good_pets", nil); err != nil {
			t.Fatal(err)
		}
		var sent bool
		for _, r := range api.requests() {
			sent = sent || (r.Path == "/api/v3/pet/findByTags" && r.RawQuery == "tags=good")
		}
		if !sent {
			t.Fatalf("the transformed tool did not reach the API with its fixed argument: %+v", api.requests())
		}
	})
}
