package saketest_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/saketest"
)

type vault struct{}

func (vault) Declare(d *sake.Declarations) {
	d.Tool("Read").Scopes("vault:read")
	d.Tool("Write").Scopes("vault:read", "vault:write")
	d.Tool("Destroy").Scopes("vault:write").Authentication([]string{"urn:mfa"}, 5*time.Minute)
	d.Resource("Secret", "vault://secret").Scopes("vault:read")
	d.Prompt("Audit").Scopes("vault:audit")
}

func (vault) Read(ctx *sake.Context) (string, error)    { return "read", nil }
func (vault) Write(ctx *sake.Context) (string, error)   { return "written", nil }
func (vault) Destroy(ctx *sake.Context) (string, error) { return "destroyed", nil }
func (vault) Whoami(ctx *sake.Context) (string, error) {
	id := ctx.Identity()
	if id == nil {
		return "anonymous", nil
	}
	b, _ := json.Marshal(map[string]any{"sub": id.Subject, "client": id.ClientID, "principal": ctx.Principal()})
	return string(b), nil
}
func (vault) Secret(ctx *sake.Context) (string, error) { return "s3cr3t", nil }
func (vault) Audit(ctx *sake.Context) (string, error)  { return "audit", nil }

func TestNoTokenNoGating(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, era saketest.Option) {
		c := saketest.Connect(t, vault{}, era)
		for _, name := range []string{"read", "write", "destroy"} {
			if _, err := c.CallTool(name, nil); err != nil {
				t.Errorf("%s without a token: %v", name, err)
			}
		}
		if res, _ := c.CallTool("whoami", nil); res.Text() != "anonymous" {
			t.Errorf("whoami = %s", res.Text())
		}
	})
}

func TestScopeGating(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, era saketest.Option) {
		c := saketest.Connect(t, vault{}, era, saketest.Scopes("vault:read"))
		if res, err := c.CallTool("read", nil); err != nil || res.Text() != "read" {
			t.Fatalf("read: %v %v", res, err)
		}
		_, err := c.CallTool("write", nil)
		var se *protocol.InsufficientScopeError
		if !errors.As(err, &se) || !reflect.DeepEqual(se.Scopes, []string{"vault:read", "vault:write"}) {
			t.Fatalf("write: %v (want every required scope in one challenge)", err)
		}
		if _, err := c.ReadResource("vault://secret"); err != nil {
			t.Errorf("resource with the scope: %v", err)
		}
		if _, err := c.GetPrompt("audit", nil); !errors.As(err, &se) || se.Scopes[0] != "vault:audit" {
			t.Errorf("prompt without the scope: %v", err)
		}
		// tools/list shows every tool, so that a client can step up.
		tools, err := c.ListTools()
		if err != nil || len(tools) != 4 {
			t.Errorf("tools/list = %d tools, %v", len(tools), err)
		}
		none := saketest.Connect(t, vault{}, era, saketest.Scopes())
		if _, err := none.ReadResource("vault://secret"); !errors.As(err, &se) {
			t.Errorf("resource without the scope: %v", err)
		}
	})
}

func TestStepUpAuthentication(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, era saketest.Option) {
		var ae *protocol.InsufficientAuthenticationError
		weak := saketest.Connect(t, vault{}, era, saketest.Scopes("vault:write"))
		_, err := weak.CallTool("destroy", nil)
		if !errors.As(err, &ae) || !reflect.DeepEqual(ae.ACRValues, []string{"urn:mfa"}) || ae.MaxAge == nil || *ae.MaxAge != 5*time.Minute {
			t.Fatalf("unknown acr: %v", err)
		}
		stale := saketest.Connect(t, vault{}, era, saketest.Scopes("vault:write"), saketest.ACR("urn:mfa"), saketest.AuthTime(time.Now().Add(-time.Hour)))
		if _, err := stale.CallTool("destroy", nil); !errors.As(err, &ae) {
			t.Fatalf("stale sign-in: %v", err)
		}
		wrong := saketest.Connect(t, vault{}, era, saketest.Scopes("vault:write"), saketest.ACR("urn:password"), saketest.AuthTime(time.Now()))
		if _, err := wrong.CallTool("destroy", nil); !errors.As(err, &ae) {
			t.Fatalf("weak acr: %v", err)
		}
		strong := saketest.Connect(t, vault{}, era, saketest.Scopes("vault:write"), saketest.ACR("urn:mfa"), saketest.AuthTime(time.Now()))
		if res, err := strong.CallTool("destroy", nil); err != nil || res.Text() != "destroyed" {
			t.Fatalf("strong: %v %v", res, err)
		}
	})
}

type user struct{ Name string }

func TestSubjects(t *testing.T) {
	t.Parallel()
	whoami := func(opts ...saketest.Option) map[string]any {
		c := saketest.Connect(t, vault{}, opts...)
		res, err := c.CallTool("whoami", nil)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		_ = json.Unmarshal([]byte(res.Text()), &m)
		return m
	}
	ana := whoami(saketest.Principal(user{"ana"}), saketest.Scopes())
	rui := whoami(saketest.Principal(user{"rui"}), saketest.Scopes())
	ana2 := whoami(saketest.Principal(user{"ana"}), saketest.Scopes())
	if ana["sub"] == rui["sub"] || ana["sub"] != ana2["sub"] || ana["client"] != "sake-test" {
		t.Errorf("subjects: ana %v, rui %v, ana again %v", ana, rui, ana2)
	}
	if p := ana["principal"].(map[string]any); p["Name"] != "ana" {
		t.Errorf("principal = %v", p)
	}
	machine := whoami(saketest.Subject(""), saketest.ClientID("robot"), saketest.Scopes())
	if machine["sub"] != "" || machine["client"] != "robot" {
		t.Errorf("machine = %v", machine)
	}
}

func TestRequestStateBelongsToItsCaller(t *testing.T) {
	t.Parallel()
	srv := sake.MustNew(interview{}, sake.Secret([]byte("shared")))
	ana := saketest.Connect(t, srv, saketest.Subject("ana"), saketest.Scopes())
	rui := saketest.Connect(t, srv, saketest.Subject("rui"), saketest.Scopes())
	state := firstRound(t, ana, "ask")
	accept := map[string]any{"who": map[string]any{"action": "accept", "content": map[string]any{"name": "Rui"}}}
	if _, code := retry(t, rui, "ask", state, accept); code != sake.CodeInvalidParams {
		t.Errorf("another subject's state: code %d", code)
	}
	if res, code := retry(t, ana, "ask", state, accept); code != 0 || res == nil {
		t.Errorf("the owner's retry: code %d", code)
	}
}
