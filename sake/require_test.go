package sake_test

import (
	"context"
	"errors"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/protocol"
)

type scoped struct{}

func (scoped) Declare(d *sake.Declarations) { d.Tool("Admin").Scopes("admin") }

func (scoped) Admin(ctx *sake.Context) (string, error) { return "ran", nil }

// Requirements fail closed: only stdio and memory, where the host vouches
// for its caller, let an anonymous or host-given identity through.
func TestRequirementsByTransport(t *testing.T) {
	t.Parallel()
	s := sake.MustNew(scoped{})
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"admin",` + modernMeta + `}}`
	host := &sake.Identity{Subject: "ana"}
	token := &sake.Identity{Subject: "ana", FromToken: true}
	withScope := &sake.Identity{Subject: "ana", FromToken: true, Scopes: []string{"admin"}}
	cases := []struct {
		transport string
		id        *sake.Identity
		ok        bool
	}{
		{"memory", nil, true},
		{"stdio", host, true},
		{"stdio", token, false},
		{"stdio", withScope, true},
		{"http", nil, false},
		{"http", host, false},
		{"http", token, false},
		{"http", withScope, true},
		{"", nil, false},
		{"websocket", host, false},
		{"websocket", &sake.Identity{Scopes: []string{"admin"}}, true},
	}
	for _, tc := range cases {
		r := s.Handle(context.Background(), []byte(call), &sake.Inbound{Transport: tc.transport, Identity: tc.id})
		if ok := r.ErrorCode == 0; ok != tc.ok {
			t.Errorf("transport %q, identity %+v: %s", tc.transport, tc.id, r.Body)
		}
		if !tc.ok && (r.ErrorCode != sake.CodeInsufficientScope || !isScopeError(r.Auth)) {
			t.Errorf("transport %q: refusal %d %+v", tc.transport, r.ErrorCode, r.Auth)
		}
	}
}

func isScopeError(err error) bool {
	_, ok := errors.AsType[*protocol.InsufficientScopeError](err)
	return ok
}
