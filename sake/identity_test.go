package sake_test

import (
	"testing"

	"github.com/sakemcp/sake-go/sake"
)

// Owners are type-prefixed and escaped: distinct identities never share
// one.
func TestOwnersAreUnambiguous(t *testing.T) {
	t.Parallel()
	ids := []*sake.Identity{
		{Subject: "42"},
		{ClientID: "42"},
		{Subject: "client:42"},
		{Subject: "a:b"},
		{Subject: "a%3Ab"},
		{Subject: "a%3ab"},
		{ClientID: "a:b"},
		{Subject: "x\n"},
		{Subject: "x"},
	}
	seen := map[string]*sake.Identity{}
	for _, id := range ids {
		o := id.Owner()
		if o == "" {
			t.Fatalf("%+v owns nothing", id)
		}
		if prev, ok := seen[o]; ok {
			t.Errorf("%+v and %+v share the owner %q", prev, id, o)
		}
		seen[o] = id
	}
	for _, tc := range []struct {
		id   *sake.Identity
		want string
	}{
		{&sake.Identity{Subject: "ana", ClientID: "app"}, "sub:ana"},
		{&sake.Identity{ClientID: "app"}, "client:app"},
		{&sake.Identity{Subject: "a:b%"}, "sub:a%3Ab%25"},
		{nil, ""},
		{&sake.Identity{Scopes: []string{"x"}}, ""},
	} {
		if got := tc.id.Owner(); got != tc.want {
			t.Errorf("%+v: owner %q, want %q", tc.id, got, tc.want)
		}
	}
}
