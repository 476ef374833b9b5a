package usertokens_test

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/gateway/usertokens"
)

// TestSealOpensWithItsBoundAlone: what Seal sealed opens with its bound
// and the vault's keys (an older one included), and nothing else does:
// another bound, another key, a changed byte, a token's sealing, or more
// than MaxSealBytes.
func TestSealOpensWithItsBoundAlone(t *testing.T) {
	t.Parallel()
	oldKey, newKey := bytes.Repeat([]byte{1}, usertokens.KeySize), bytes.Repeat([]byte{2}, usertokens.KeySize)
	backend := usertokens.Memory(0, 0)
	old, _ := usertokens.New(backend, oldKey)
	rotated, _ := usertokens.New(backend, newKey, oldKey)
	other, _ := usertokens.New(backend, newKey)
	sealed, err := old.Seal([]byte("verifier"), []byte("state\x00ann"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(sealed, []byte("verifier")) {
		t.Fatal("the plain text shows in the sealed bytes")
	}
	for _, v := range []*usertokens.Vault{old, rotated} {
		if plain, err := v.Open(sealed, []byte("state\x00ann")); err != nil || string(plain) != "verifier" {
			t.Fatalf("Open = %q, %v", plain, err)
		}
	}
	changed := append([]byte(nil), sealed...)
	changed[len(changed)-1] ^= 1
	for name, try := range map[string]func() ([]byte, error){
		"another bound":  func() ([]byte, error) { return old.Open(sealed, []byte("state\x00bob")) },
		"another key":    func() ([]byte, error) { return other.Open(sealed, []byte("state\x00ann")) },
		"a changed byte": func() ([]byte, error) { return old.Open(changed, []byte("state\x00ann")) },
		"nothing":        func() ([]byte, error) { return old.Open(nil, nil) },
	} {
		if plain, err := try(); !errors.Is(err, usertokens.ErrUnreadable) || plain != nil {
			t.Errorf("%s: %q, %v, want ErrUnreadable", name, plain, err)
		}
	}
	// A token's sealing is not Seal's, and the reverse.
	if err := old.For("ann").Save(context.Background(), "r", &client.Token{AccessToken: "at"}); err != nil {
		t.Fatal(err)
	}
	tokenSealed, _ := backend.Get(context.Background(), "ann", "r")
	if _, err := old.Open(tokenSealed, []byte("ann\x00r")); !errors.Is(err, usertokens.ErrUnreadable) {
		t.Errorf("a token's sealing opened with Open: %v", err)
	}
	if _, err := old.Seal(make([]byte, usertokens.MaxSealBytes+1), nil); err == nil {
		t.Error("Seal took more than MaxSealBytes")
	}
}
