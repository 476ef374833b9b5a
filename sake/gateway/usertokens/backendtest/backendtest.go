// Package backendtest checks that a usertokens.Backend keeps what a
// vault needs of it. A backend's own tests call Run.
package backendtest

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/sakemcp/sake-go/sake/gateway/usertokens"
)

// Run checks the backend that fresh returns (a new, empty one each call).
func Run(t *testing.T, fresh func(t *testing.T) usertokens.Backend) {
	ctx := context.Background()
	t.Run("AbsentIsNil", func(t *testing.T) {
		b := fresh(t)
		got, err := b.Get(ctx, "ann", "https://a.example/mcp")
		if err != nil || got != nil {
			t.Fatalf("Get of nothing = %q, %v; want nil, nil", got, err)
		}
	})
	t.Run("PutGetReplace", func(t *testing.T) {
		b := fresh(t)
		mustPut(t, b, "ann", "https://a.example/mcp", []byte("one"))
		mustPut(t, b, "ann", "https://a.example/mcp", []byte("two"))
		want(t, b, "ann", "https://a.example/mcp", "two")
	})
	t.Run("UsersAndResourcesApart", func(t *testing.T) {
		b := fresh(t)
		mustPut(t, b, "ann", "https://a.example/mcp", []byte("ann-a"))
		mustPut(t, b, "bob", "https://a.example/mcp", []byte("bob-a"))
		mustPut(t, b, "ann", "https://b.example/mcp", []byte("ann-b"))
		want(t, b, "ann", "https://a.example/mcp", "ann-a")
		want(t, b, "bob", "https://a.example/mcp", "bob-a")
		want(t, b, "ann", "https://b.example/mcp", "ann-b")
		want(t, b, "bob", "https://b.example/mcp", "")
		// Names that would collide if joined naively stay apart.
		mustPut(t, b, "ann\x00https", "x", []byte("odd"))
		want(t, b, "ann", "https\x00x", "")
	})
	t.Run("Delete", func(t *testing.T) {
		b := fresh(t)
		mustPut(t, b, "ann", "https://a.example/mcp", []byte("ann-a"))
		mustPut(t, b, "ann", "https://b.example/mcp", []byte("ann-b"))
		if err := b.Delete(ctx, "ann", "https://a.example/mcp"); err != nil {
			t.Fatal(err)
		}
		want(t, b, "ann", "https://a.example/mcp", "")
		want(t, b, "ann", "https://b.example/mcp", "ann-b")
		if err := b.Delete(ctx, "nobody", "https://a.example/mcp"); err != nil {
			t.Fatalf("Delete of nothing: %v", err)
		}
	})
	t.Run("DeleteUser", func(t *testing.T) {
		b := fresh(t)
		for i := range 3 {
			mustPut(t, b, "ann", fmt.Sprintf("https://%d.example/mcp", i), []byte("ann"))
		}
		mustPut(t, b, "bob", "https://0.example/mcp", []byte("bob"))
		if err := b.DeleteUser(ctx, "ann"); err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			want(t, b, "ann", fmt.Sprintf("https://%d.example/mcp", i), "")
		}
		want(t, b, "bob", "https://0.example/mcp", "bob")
	})
	t.Run("GetReturnsACopy", func(t *testing.T) {
		b := fresh(t)
		v := []byte("sealed")
		mustPut(t, b, "ann", "r", v)
		v[0] = 'X'
		got, _ := b.Get(ctx, "ann", "r")
		got[1] = 'Y'
		want(t, b, "ann", "r", "sealed")
	})
}

func mustPut(t *testing.T, b usertokens.Backend, user, resource string, v []byte) {
	t.Helper()
	if err := b.Put(context.Background(), user, resource, v); err != nil {
		t.Fatalf("Put(%q, %q): %v", user, resource, err)
	}
}

func want(t *testing.T, b usertokens.Backend, user, resource, v string) {
	t.Helper()
	got, err := b.Get(context.Background(), user, resource)
	if err != nil {
		t.Fatalf("Get(%q, %q): %v", user, resource, err)
	}
	if v == "" {
		if got != nil {
			t.Fatalf("Get(%q, %q) = %q, want nothing", user, resource, got)
		}
		return
	}
	if !bytes.Equal(got, []byte(v)) {
		t.Fatalf("Get(%q, %q) = %q, want %q", user, resource, got, v)
	}
}
