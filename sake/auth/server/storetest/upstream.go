package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake/auth/server"
)

// upstreamTokens checks server.UpstreamTokenStore: replacing, expiry,
// the per-subject bound, the latest of a subject, and revocation with
// the family.
func upstreamTokens(t *testing.T, s server.Store) {
	us, ok := s.(server.UpstreamTokenStore)
	if !ok {
		t.Skip("the store does not keep upstream tokens (server.UpstreamTokenStore)")
	}
	ctx := context.Background()
	t0 := time.Now().Truncate(time.Millisecond)
	future := t0.Add(time.Hour)
	put := func(key, subject string, at time.Time, perSubject int) {
		t.Helper()
		err := us.PutUpstreamToken(ctx, &server.UpstreamToken{Key: key, Subject: subject, Sealed: []byte("sealed " + key),
			Updated: at, Expires: future}, perSubject)
		if err != nil {
			t.Fatal(err)
		}
	}
	held := func(key string) bool {
		t.Helper()
		_, err := us.UpstreamToken(ctx, key)
		if err != nil && !errors.Is(err, server.ErrNotFound) {
			t.Fatal(err)
		}
		return err == nil
	}
	if _, err := us.UpstreamToken(ctx, "nothing"); !errors.Is(err, server.ErrNotFound) {
		t.Fatalf("unknown key: %v, want ErrNotFound", err)
	}
	if _, err := us.LatestUpstreamToken(ctx, "nobody"); !errors.Is(err, server.ErrNotFound) {
		t.Fatalf("unknown subject: %v, want ErrNotFound", err)
	}
	put("f1", "alice", t0, 3)
	put("f1", "alice", t0.Add(time.Second), 3) // replaced, not a second one
	got, err := us.UpstreamToken(ctx, "f1")
	if err != nil || string(got.Sealed) != "sealed f1" || got.Subject != "alice" || !got.Updated.Equal(t0.Add(time.Second)) {
		t.Fatalf("UpstreamToken = %+v, %v", got, err)
	}
	for i := 2; i <= 4; i++ {
		put(fmt.Sprintf("f%d", i), "alice", t0.Add(time.Duration(i)*time.Second), 3)
	}
	put("b1", "bob", t0, 3)
	if held("f1") || !held("f2") || !held("f3") || !held("f4") || !held("b1") {
		t.Fatal("beyond 3 per subject the least recently updated of that subject must go, and only it")
	}
	latest, err := us.LatestUpstreamToken(ctx, "alice")
	if err != nil || latest.Key != "f4" {
		t.Fatalf("LatestUpstreamToken = %+v, %v; want f4", latest, err)
	}
	if err := s.RevokeFamily(ctx, "f4"); err != nil {
		t.Fatal(err)
	}
	if held("f4") {
		t.Fatal("revoking the family kept its upstream token")
	}
	put("f4", "alice", t0.Add(time.Minute), 3)
	if held("f4") {
		t.Fatal("an upstream token stored under a revoked family was kept")
	}
	if err := us.DeleteUpstreamToken(ctx, "f3"); err != nil || held("f3") {
		t.Fatalf("DeleteUpstreamToken: %v, still held: %v", err, held("f3"))
	}
	if err := us.PutUpstreamToken(ctx, &server.UpstreamToken{Key: "old", Subject: "carol", Sealed: []byte("x"),
		Updated: t0.Add(-2 * time.Hour), Expires: t0.Add(-time.Hour)}, 3); err != nil {
		t.Fatal(err)
	}
	if held("old") {
		t.Fatal("an expired upstream token was returned")
	}
	if _, err := us.LatestUpstreamToken(ctx, "carol"); !errors.Is(err, server.ErrNotFound) {
		t.Fatalf("latest of a subject whose only token expired: %v, want ErrNotFound", err)
	}
}
