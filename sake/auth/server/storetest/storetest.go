// Package storetest is the contract every server.Store must pass: run it
// from a store implementation's tests with a constructor of empty stores.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake/auth/server"
)

// Run checks the contract against stores made by newStore (each call a
// fresh, empty store).
func Run(t *testing.T, newStore func(t *testing.T) server.Store) {
	ctx := context.Background()
	future := time.Now().Add(time.Hour)

	t.Run("upstream tokens", func(t *testing.T) { upstreamTokens(t, newStore(t)) })

	t.Run("clients", func(t *testing.T) {
		s := newStore(t)
		if _, err := s.Client(ctx, "nobody"); !errors.Is(err, server.ErrNotFound) {
			t.Fatalf("unknown client: %v, want ErrNotFound", err)
		}
		c := &server.Client{ID: "c1", Name: "One", RedirectURIs: []string{"https://a.example/cb"}, Dynamic: true,
			GrantTypes: []string{"authorization_code"}, AuthMethod: server.AuthNone}
		if err := s.PutClient(ctx, c); err != nil {
			t.Fatal(err)
		}
		c.RedirectURIs[0] = "https://changed.example/" // the store must have copied
		got, err := s.Client(ctx, "c1")
		if err != nil || got.Name != "One" || got.RedirectURIs[0] != "https://a.example/cb" || !got.Dynamic {
			t.Fatalf("client = %+v, %v", got, err)
		}
		if n, err := s.CountClients(ctx); err != nil || n != 1 {
			t.Fatalf("CountClients = %d, %v; want 1", n, err)
		}
		if err := s.PutClient(ctx, &server.Client{ID: "c1", Name: "Renamed", Dynamic: true}); err != nil {
			t.Fatal(err)
		}
		if n, _ := s.CountClients(ctx); n != 1 {
			t.Fatalf("replacing a client changed the count to %d", n)
		}
	})

	t.Run("registrations", func(t *testing.T) {
		s := newStore(t)
		t0 := time.Now()
		lim := server.RegistrationLimits{Total: 3, PerAddress: 2, UnusedTTL: time.Hour}
		reg := func(id, from string, at time.Time) error {
			return s.RegisterClient(ctx, &server.Client{ID: id, Name: id, RegisteredFrom: from, Created: at}, lim)
		}
		held := func(id string) *server.Client {
			c, err := s.Client(ctx, id)
			if err != nil && !errors.Is(err, server.ErrNotFound) {
				t.Fatal(err)
			}
			return c
		}
		for i, r := range []struct {
			id, from string
			want     error
		}{{"a1", "A", nil}, {"a2", "A", nil}, {"a3", "A", server.ErrTooManyRegistrations}, {"b1", "B", nil}} {
			if err := reg(r.id, r.from, t0.Add(time.Duration(i)*time.Second)); !errors.Is(err, r.want) {
				t.Fatalf("register %s: %v, want %v", r.id, err, r.want)
			}
		}
		if held("a3") != nil {
			t.Fatal("a refused registration was stored")
		}
		if c := held("a1"); c == nil || !c.Dynamic || c.Authorized || c.RegisteredFrom != "A" {
			t.Fatalf("registered client = %+v", c)
		}
		if err := s.ClientAuthorized(ctx, "a1"); err != nil {
			t.Fatal(err)
		}
		if err := s.ClientAuthorized(ctx, "nobody"); err != nil {
			t.Fatalf("ClientAuthorized of an unknown id: %v", err)
		}
		// At the total bound the oldest client never authorized (a2, not
		// the older a1) makes room.
		if err := reg("a4", "A", t0.Add(5*time.Second)); err != nil {
			t.Fatalf("register at the total bound: %v", err)
		}
		if held("a2") != nil || held("a1") == nil || !held("a1").Authorized || held("b1") == nil || held("a4") == nil {
			t.Fatal("the eviction did not take the oldest unused client alone")
		}
		if n, _ := s.CountClients(ctx); n != 3 {
			t.Fatalf("CountClients = %d, want 3", n)
		}
		// Every client authorized: refused, nothing stored.
		for _, id := range []string{"b1", "a4"} {
			if err := s.ClientAuthorized(ctx, id); err != nil {
				t.Fatal(err)
			}
		}
		if err := reg("c1", "C", t0.Add(6*time.Second)); !errors.Is(err, server.ErrStoreFull) {
			t.Fatalf("register with every client authorized: %v, want ErrStoreFull", err)
		}
		if held("c1") != nil {
			t.Fatal("a refused registration was stored")
		}
		// Unused registrations expire; authorized ones stay.
		s = newStore(t)
		old := t0.Add(-2 * time.Hour)
		if err := reg("u1", "A", old); err != nil {
			t.Fatal(err)
		}
		if err := reg("u2", "A", old.Add(time.Second)); err != nil {
			t.Fatal(err)
		}
		if err := s.ClientAuthorized(ctx, "u2"); err != nil {
			t.Fatal(err)
		}
		if err := reg("n1", "B", t0); err != nil {
			t.Fatal(err)
		}
		if held("u1") != nil || held("u2") == nil {
			t.Fatal("expiry took the wrong clients")
		}
	})

	t.Run("credentials", func(t *testing.T) {
		s := newStore(t)
		c := &server.Credential{Hash: "h1", Kind: server.KindCode, Family: "f1", Expires: future,
			Grant: server.Grant{ClientID: "c", Scopes: []string{"a", "b"}, Subject: "alice"}}
		if err := s.PutCredential(ctx, c); err != nil {
			t.Fatal(err)
		}
		c.Grant.Scopes[0] = "mutated"
		got, err := s.Credential(ctx, "h1")
		if err != nil || got.Grant.Subject != "alice" || !slices.Equal(got.Grant.Scopes, []string{"a", "b"}) || got.Used {
			t.Fatalf("credential = %+v, %v", got, err)
		}
		if _, err := s.Credential(ctx, "h2"); !errors.Is(err, server.ErrNotFound) {
			t.Fatalf("unknown hash: %v", err)
		}
		before, err := s.Consume(ctx, "h1")
		if err != nil || before.Used {
			t.Fatalf("first Consume = %+v, %v; want unused", before, err)
		}
		again, err := s.Consume(ctx, "h1")
		if err != nil || !again.Used {
			t.Fatalf("second Consume = %+v, %v; want Used", again, err)
		}
		if _, err := s.Consume(ctx, "nope"); !errors.Is(err, server.ErrNotFound) {
			t.Fatalf("Consume unknown: %v", err)
		}
		if err := s.Delete(ctx, "h1"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Credential(ctx, "h1"); !errors.Is(err, server.ErrNotFound) {
			t.Fatalf("deleted: %v", err)
		}
	})

	t.Run("expired credentials are gone", func(t *testing.T) {
		s := newStore(t)
		if err := s.PutCredential(ctx, &server.Credential{Hash: "old", Kind: server.KindCode, Expires: time.Now().Add(-time.Second)}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Credential(ctx, "old"); !errors.Is(err, server.ErrNotFound) {
			t.Fatalf("Credential of expired: %v", err)
		}
		if _, err := s.Consume(ctx, "old"); !errors.Is(err, server.ErrNotFound) {
			t.Fatalf("Consume of expired: %v", err)
		}
	})

	t.Run("consume is atomic", func(t *testing.T) {
		s := newStore(t)
		if err := s.PutCredential(ctx, &server.Credential{Hash: "race", Kind: server.KindRefresh, Expires: future}); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		fresh := 0
		for range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c, err := s.Consume(ctx, "race")
				if err == nil && !c.Used {
					mu.Lock()
					fresh++
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if fresh != 1 {
			t.Fatalf("%d concurrent consumers saw an unused credential, want exactly 1", fresh)
		}
	})

	t.Run("family revocation", func(t *testing.T) {
		s := newStore(t)
		for i, k := range []server.Kind{server.KindCode, server.KindRefresh, server.KindAccess} {
			if err := s.PutCredential(ctx, &server.Credential{Hash: fmt.Sprint("m", i), Kind: k, Family: "fam", Expires: future}); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.PutCredential(ctx, &server.Credential{Hash: "other", Kind: server.KindRefresh, Family: "other", Expires: future}); err != nil {
			t.Fatal(err)
		}
		if err := s.RevokeFamily(ctx, "fam"); err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			c, err := s.Credential(ctx, fmt.Sprint("m", i))
			if err != nil || !c.Revoked {
				t.Fatalf("member %d after revocation: %+v, %v", i, c, err)
			}
		}
		if c, _ := s.Credential(ctx, "other"); c == nil || c.Revoked {
			t.Fatalf("another family was revoked: %+v", c)
		}
		// Stored later into a revoked family: revoked at once.
		if err := s.PutCredential(ctx, &server.Credential{Hash: "late", Kind: server.KindRefresh, Family: "fam", Expires: future}); err != nil {
			t.Fatal(err)
		}
		if c, err := s.Credential(ctx, "late"); err != nil || !c.Revoked {
			t.Fatalf("late member of a revoked family: %+v, %v", c, err)
		}
	})

	t.Run("consents", func(t *testing.T) {
		s := newStore(t)
		if _, err := s.Consent(ctx, "alice", "c"); !errors.Is(err, server.ErrNotFound) {
			t.Fatalf("no consent: %v", err)
		}
		if err := s.PutConsent(ctx, "alice", "c", []string{"x", "y"}); err != nil {
			t.Fatal(err)
		}
		if got, err := s.Consent(ctx, "alice", "c"); err != nil || !slices.Equal(got, []string{"x", "y"}) {
			t.Fatalf("consent = %v, %v", got, err)
		}
		if _, err := s.Consent(ctx, "bob", "c"); !errors.Is(err, server.ErrNotFound) {
			t.Fatalf("another subject's consent leaked: %v", err)
		}
		if _, err := s.Consent(ctx, "alice", "d"); !errors.Is(err, server.ErrNotFound) {
			t.Fatalf("another client's consent leaked: %v", err)
		}
	})
}

// Shared checks two stores on the same backing storage (two replicas):
// what one stores, the other sees; a credential is consumed once across
// both; a family revoked through one is revoked for the other.
func Shared(t *testing.T, a, b server.Store) {
	ctx := context.Background()
	future := time.Now().Add(time.Hour)
	if err := a.PutClient(ctx, &server.Client{ID: "shared", Name: "Shared", Dynamic: true}); err != nil {
		t.Fatal(err)
	}
	if c, err := b.Client(ctx, "shared"); err != nil || c.Name != "Shared" {
		t.Fatalf("client through the other store: %+v, %v", c, err)
	}
	if err := a.PutCredential(ctx, &server.Credential{Hash: "code", Kind: server.KindCode, Family: "f", Expires: future}); err != nil {
		t.Fatal(err)
	}
	if c, err := b.Consume(ctx, "code"); err != nil || c.Used {
		t.Fatalf("first consume through b: %+v, %v", c, err)
	}
	if c, err := a.Consume(ctx, "code"); err != nil || !c.Used {
		t.Fatalf("second consume through a: %+v, %v; want Used", c, err)
	}
	if err := b.RevokeFamily(ctx, "f"); err != nil {
		t.Fatal(err)
	}
	if c, err := a.Credential(ctx, "code"); err != nil || !c.Revoked {
		t.Fatalf("revocation through b not seen by a: %+v, %v", c, err)
	}
	if err := a.PutConsent(ctx, "alice", "shared", []string{"x"}); err != nil {
		t.Fatal(err)
	}
	if s, err := b.Consent(ctx, "alice", "shared"); err != nil || !slices.Equal(s, []string{"x"}) {
		t.Fatalf("consent through b: %v, %v", s, err)
	}
}
