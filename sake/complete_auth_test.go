package sake_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// guardedCompletions is a server whose prompts and templates each have a
// completion and a requirement, a tag or a rule that keeps some callers
// out.
func guardedCompletions(t *testing.T) *sake.Server {
	t.Helper()
	values := func(*sake.Context, sake.CompleteRequest) ([]string, error) { return []string{"secret-value"}, nil }
	type args struct {
		X string `json:"x"`
	}
	get := func(_ *sake.Context, a args) (string, error) { return a.X, nil }
	read := func(_ *sake.Context, vars map[string]string) (string, error) { return vars["id"], nil }
	srv := sake.MustNew(nil, sake.PerCallerLists(func(req *sake.Request, c sake.ComponentInfo) bool {
		return !slices.Contains(c.Tags, "staff") || req.Identity != nil && req.Identity.Subject == "staff"
	}))
	for _, p := range []*sake.PromptDef{
		sake.NewPrompt("admin", get).Scopes("admin").Complete("x", values),
		sake.NewPrompt("mfa", get).Authentication([]string{"mfa"}, 0).Complete("x", values),
		sake.NewPrompt("staff", get).Tags("staff").Complete("x", values),
		sake.NewPrompt("off", get).Complete("x", values),
	} {
		if err := srv.AddPrompt(p); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range []*sake.ResourceDef{
		sake.NewResourceTemplate("admin://{id}", read).Scopes("admin").Complete("id", values),
		sake.NewResourceTemplate("staff://{id}", read).Tags("staff").Complete("id", values),
		sake.NewResource("admin://static", func(*sake.Context) (string, error) { return "s", nil }).Scopes("admin"),
	} {
		if err := srv.AddResource(r); err != nil {
			t.Fatal(err)
		}
	}
	srv.Disable(sake.Components{Prompts: []string{"off"}})
	return srv
}

// Completing a prompt's or template's argument asks what reading it asks:
// its requirement (scopes, sign-in), the list policy and Disable. A caller
// refused the component gets the error reading it gives and no values.
func TestCompletionAppliesTheComponentsRequirement(t *testing.T) {
	t.Parallel()
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		srv := guardedCompletions(t)
		guest := saketest.Connect(t, srv, append(opts, saketest.Scopes())...)
		admin := saketest.Connect(t, srv, append(opts, saketest.Scopes("admin"), saketest.Subject("staff"), saketest.ACR("mfa"))...)

		// What reading gives the guest, completing gives too.
		_, getErr := guest.GetPrompt("admin", map[string]string{"x": "1"})
		_, compErr := guest.Complete(protocol.PromptRef("admin"), "x", "", nil)
		var se *protocol.InsufficientScopeError
		if !errors.As(getErr, &se) || !errors.As(compErr, &se) || !slices.Equal(se.Scopes, []string{"admin"}) {
			t.Fatalf("prompts/get = %v; completion/complete = %v; want insufficient scope admin for both", getErr, compErr)
		}
		for _, uri := range []string{"admin://{id}", "admin://static"} {
			arg := "id"
			if _, err := guest.Complete(protocol.ResourceRef(uri), arg, "", nil); !errors.As(err, &se) {
				t.Errorf("completing %s as a guest = %v, want insufficient scope", uri, err)
			}
		}
		var ae *protocol.InsufficientAuthenticationError
		if _, err := guest.Complete(protocol.PromptRef("mfa"), "x", "", nil); !errors.As(err, &ae) {
			t.Errorf("completing a prompt that needs mfa = %v, want insufficient authentication", err)
		}
		var e *sake.Error
		for _, ref := range []protocol.CompleteRef{protocol.PromptRef("staff"), protocol.ResourceRef("staff://{id}"), protocol.PromptRef("off")} {
			arg := "x"
			if ref.Type == "ref/resource" {
				arg = "id"
			}
			got, err := guest.Complete(ref, arg, "", nil)
			if !errors.As(err, &e) || e.Code != sake.CodeInvalidParams || !strings.Contains(e.Message, "Unknown") {
				t.Errorf("completing %+v as a guest = %+v, %v; want -32602 unknown", ref, got, err)
			}
		}

		// The caller who may read them completes them.
		for _, ref := range []protocol.CompleteRef{protocol.PromptRef("admin"), protocol.PromptRef("mfa"), protocol.PromptRef("staff"),
			protocol.ResourceRef("admin://{id}"), protocol.ResourceRef("staff://{id}")} {
			arg := "x"
			if ref.Type == "ref/resource" {
				arg = "id"
			}
			got, err := admin.Complete(ref, arg, "", nil)
			if err != nil || !slices.Equal(got.Values, []string{"secret-value"}) {
				t.Errorf("completing %+v as admin = %+v, %v", ref, got, err)
			}
		}
		if _, err := admin.Complete(protocol.PromptRef("off"), "x", "", nil); !errors.As(err, &e) || e.Code != sake.CodeInvalidParams {
			t.Errorf("completing a disabled prompt = %v, want -32602", err)
		}
	})
}
