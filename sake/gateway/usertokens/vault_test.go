package usertokens_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/gateway/usertokens"
	"github.com/sakemcp/sake-go/sake/gateway/usertokens/backendtest"
)

func key(t *testing.T) []byte {
	t.Helper()
	k := make([]byte, usertokens.KeySize)
	if _, err := rand.Read(k); err != nil {
		t.Fatal(err)
	}
	return k
}

// spy is a backend that shows what reaches it.
type spy struct {
	usertokens.Backend
	puts [][]byte
}

func (s *spy) Put(ctx context.Context, user, resource string, sealed []byte) error {
	s.puts = append(s.puts, append([]byte(nil), sealed...))
	return s.Backend.Put(ctx, user, resource, sealed)
}

func token(access string) *client.Token {
	return &client.Token{AccessToken: access, TokenType: "Bearer", RefreshToken: "refresh-" + access,
		Expiry: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC), Scopes: []string{"read"},
		Issuer: "https://as.example", Resource: "https://a.example/mcp", ClientID: "gw"}
}

const res = "https://a.example/mcp"

func TestVaultSealsWhatItStores(t *testing.T) {
	ctx := context.Background()
	s := &spy{Backend: usertokens.Memory(0, 0)}
	v, err := usertokens.New(s, key(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := v.For("ann").Save(ctx, res, token("ann-secret-access")); err != nil {
		t.Fatal(err)
	}
	if len(s.puts) != 1 {
		t.Fatalf("%d puts, want 1", len(s.puts))
	}
	for _, secret := range []string{"ann-secret-access", "refresh-ann", "as.example"} {
		if bytes.Contains(s.puts[0], []byte(secret)) {
			t.Fatalf("the backend got %q in clear", secret)
		}
	}
	got, err := v.For("ann").Load(ctx, res)
	if err != nil || got == nil {
		t.Fatalf("Load = %v, %v", got, err)
	}
	if fmt.Sprint(*got) != fmt.Sprint(*token("ann-secret-access")) {
		t.Fatalf("Load = %+v, want %+v", *got, *token("ann-secret-access"))
	}
}

func TestOneUsersTokenIsNeverAnothers(t *testing.T) {
	ctx := context.Background()
	mem := usertokens.Memory(0, 0)
	v, _ := usertokens.New(mem, key(t))
	if err := v.For("ann").Save(ctx, res, token("ann")); err != nil {
		t.Fatal(err)
	}
	if got, err := v.For("bob").Load(ctx, res); err != nil || got != nil {
		t.Fatalf("bob loads %v, %v; want nothing", got, err)
	}
	// A row copied at rest to another user, or another resource, does
	// not open: it is as if absent.
	sealed, _ := mem.Get(ctx, "ann", res)
	_ = mem.Put(ctx, "bob", res, sealed)
	_ = mem.Put(ctx, "ann", "https://b.example/mcp", sealed)
	if got, err := v.For("bob").Load(ctx, res); err != nil || got != nil {
		t.Fatalf("bob loads ann's copied row: %v, %v", got, err)
	}
	if got, err := v.For("ann").Load(ctx, "https://b.example/mcp"); err != nil || got != nil {
		t.Fatalf("ann's row moved to another resource opens: %v, %v", got, err)
	}
	// Tampered ciphertext does not open either.
	bad := append([]byte(nil), sealed...)
	bad[len(bad)-1] ^= 1
	_ = mem.Put(ctx, "ann", res, bad)
	if got, err := v.For("ann").Load(ctx, res); err != nil || got != nil {
		t.Fatalf("a tampered row opens: %v, %v", got, err)
	}
	// Nor does a row sealed with another key.
	other, _ := usertokens.New(mem, key(t))
	_ = other.For("ann").Save(ctx, res, token("other"))
	if got, err := v.For("ann").Load(ctx, res); err != nil || got != nil {
		t.Fatalf("a row of another key opens: %v, %v", got, err)
	}
}

func TestKeysRotate(t *testing.T) {
	ctx := context.Background()
	s := &spy{Backend: usertokens.Memory(0, 0)}
	oldKey, newKey := key(t), key(t)
	old, _ := usertokens.New(s, oldKey)
	if err := old.For("ann").Save(ctx, res, token("ann")); err != nil {
		t.Fatal(err)
	}
	rotated, err := usertokens.New(s, newKey, oldKey)
	if err != nil {
		t.Fatal(err)
	}
	got, err := rotated.For("ann").Load(ctx, res)
	if err != nil || got == nil || got.AccessToken != "ann" {
		t.Fatalf("after rotation Load = %v, %v", got, err)
	}
	// It was sealed again with the new key: the new key alone opens it.
	only, _ := usertokens.New(s, newKey)
	if got, _ := only.For("ann").Load(ctx, res); got == nil {
		t.Fatal("the token was not sealed again with the new key")
	}
}

func TestSignOutForgetsEveryTokenOfOneUser(t *testing.T) {
	ctx := context.Background()
	v, _ := usertokens.New(usertokens.Memory(0, 0), key(t))
	_ = v.For("ann").Save(ctx, res, token("ann"))
	_ = v.For("ann").Save(ctx, "https://b.example/mcp", token("ann-b"))
	_ = v.For("bob").Save(ctx, res, token("bob"))
	if err := v.SignOut(ctx, "ann"); err != nil {
		t.Fatal(err)
	}
	for _, r := range []string{res, "https://b.example/mcp"} {
		if got, _ := v.For("ann").Load(ctx, r); got != nil {
			t.Fatalf("ann still holds a token at %s", r)
		}
	}
	if got, _ := v.For("bob").Load(ctx, res); got == nil || got.AccessToken != "bob" {
		t.Fatal("signing ann out lost bob's token")
	}
}

func TestVaultRefusals(t *testing.T) {
	ctx := context.Background()
	if _, err := usertokens.New(usertokens.Memory(0, 0)); err == nil {
		t.Fatal("New without a key worked")
	}
	if _, err := usertokens.New(usertokens.Memory(0, 0), make([]byte, 16)); err == nil || !strings.Contains(err.Error(), "openssl rand") {
		t.Fatalf("a 16-byte key: %v", err)
	}
	if _, err := usertokens.New(nil, key(t)); err == nil {
		t.Fatal("New without a backend worked")
	}
	v, _ := usertokens.New(usertokens.Memory(0, 0), key(t))
	if err := v.For("").Save(ctx, res, token("x")); err == nil {
		t.Fatal("an anonymous caller saved a token")
	}
	if _, err := v.For("").Load(ctx, res); err == nil {
		t.Fatal("an anonymous caller loaded a token")
	}
	if err := v.SignOut(ctx, ""); err == nil {
		t.Fatal("SignOut of nobody worked")
	}
	big := token(strings.Repeat("x", usertokens.MaxTokenBytes))
	if err := v.For("ann").Save(ctx, res, big); !errors.Is(err, usertokens.ErrTokenTooLarge) {
		t.Fatalf("a token past MaxTokenBytes: %v", err)
	}
	if got, _ := v.For("ann").Load(ctx, res); got != nil {
		t.Fatal("a refused token was kept")
	}
}

func TestKeyFromEnv(t *testing.T) {
	k1, k2 := key(t), key(t)
	t.Setenv("VAULT_KEY", base64.StdEncoding.EncodeToString(k1)+", "+base64.RawURLEncoding.EncodeToString(k2))
	keys, err := usertokens.KeyFromEnv("VAULT_KEY")
	if err != nil || len(keys) != 2 || !bytes.Equal(keys[0], k1) || !bytes.Equal(keys[1], k2) {
		t.Fatalf("KeyFromEnv = %d keys, %v", len(keys), err)
	}
	for _, bad := range []string{"", "not base64!", base64.StdEncoding.EncodeToString(make([]byte, 16))} {
		t.Setenv("VAULT_KEY", bad)
		if _, err := usertokens.KeyFromEnv("VAULT_KEY"); err == nil || !strings.Contains(err.Error(), "openssl rand -base64 32") {
			t.Fatalf("KeyFromEnv(%q) = %v; want an error saying how to make a key", bad, err)
		}
	}
}

func TestParseKeys(t *testing.T) {
	k1 := key(t)
	keys, err := usertokens.ParseKeys(" " + base64.StdEncoding.EncodeToString(k1) + "\n")
	if err != nil || len(keys) != 1 || !bytes.Equal(keys[0], k1) {
		t.Fatalf("ParseKeys = %d keys, %v", len(keys), err)
	}
	many := strings.Repeat(base64.StdEncoding.EncodeToString(k1)+",", usertokens.MaxKeys) + base64.StdEncoding.EncodeToString(k1)
	if _, err := usertokens.ParseKeys(many); err == nil || !strings.Contains(err.Error(), "drop the oldest") {
		t.Fatalf("ParseKeys of %d keys = %v", usertokens.MaxKeys+1, err)
	}
	if _, err := usertokens.ParseKeys(""); err == nil || !strings.Contains(err.Error(), "openssl rand -base64 32") {
		t.Fatalf("ParseKeys of nothing = %v", err)
	}
}

func TestMemoryBackend(t *testing.T) {
	backendtest.Run(t, func(*testing.T) usertokens.Backend { return usertokens.Memory(0, 0) })
}

func TestMemoryForgetsTheLeastRecentlyUsed(t *testing.T) {
	ctx := context.Background()
	m := usertokens.Memory(2, 2)
	put := func(user, r string) { _ = m.Put(ctx, user, r, []byte(user+r)) }
	has := func(user, r string) bool { b, _ := m.Get(ctx, user, r); return b != nil }
	put("ann", "a")
	put("bob", "a")
	has("ann", "a") // ann is now more recent than bob
	put("cid", "a")
	if !has("ann", "a") || has("bob", "a") || !has("cid", "a") {
		t.Fatal("past maxUsers, the least recently used user was not the one forgotten")
	}
	put("ann", "b")
	put("ann", "c")
	if has("ann", "a") || !has("ann", "b") || !has("ann", "c") {
		t.Fatal("past maxPerUser, the least recently saved token was not the one forgotten")
	}
}
