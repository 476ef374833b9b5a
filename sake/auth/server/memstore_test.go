package server_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake/auth/server"
	"github.com/sakemcp/sake-go/sake/auth/server/storetest"
)

func TestMemoryStoreContract(t *testing.T) {
	storetest.Run(t, func(*testing.T) server.Store { return server.NewMemoryStore() })
}

func TestMemoryStoreBounds(t *testing.T) {
	ctx := context.Background()
	s := server.NewMemoryStore(server.MemoryLimits(2, 1, 1))
	exp := time.Now().Add(time.Hour)
	for i, h := range []string{"a", "b", "c"} {
		err := s.PutCredential(ctx, &server.Credential{Hash: h, Kind: server.KindCode, Expires: exp})
		if want := i < 2; (err == nil) != want {
			t.Fatalf("credential %d: err %v", i, err)
		}
		if i == 2 && !errors.Is(err, server.ErrStoreFull) {
			t.Fatalf("third credential: %v, want ErrStoreFull", err)
		}
	}
	if err := s.PutClient(ctx, &server.Client{ID: "1"}); err != nil {
		t.Fatal(err)
	}
	if err := s.PutClient(ctx, &server.Client{ID: "2"}); !errors.Is(err, server.ErrStoreFull) {
		t.Fatalf("second client: %v", err)
	}
	if err := s.PutConsent(ctx, "a", "b", nil); err != nil {
		t.Fatal(err)
	}
	if err := s.PutConsent(ctx, "a", "c", nil); !errors.Is(err, server.ErrStoreFull) {
		t.Fatalf("second consent: %v", err)
	}
}

func TestMemoryStoreShared(t *testing.T) {
	m := server.NewMemoryStore()
	storetest.Shared(t, m, m)
}

// An access token whose authorization was revoked is refused by the
// server's verifier at once, at the MCP endpoint.
func TestMemoryStoreRevocation(t *testing.T) {
	m := server.NewMemoryStore()
	storetest.Revocation(t, m, m, nil)
}

// A revoked access token is denied until it would have expired anyway,
// then forgotten with the expired credentials.
func TestMemoryStoreDeniedUntilExpiry(t *testing.T) {
	ctx := context.Background()
	now := time.Now()
	clock := func() time.Time { return now }
	s := server.NewMemoryStore(server.MemoryLimits(2, 0, 0), server.MemoryClock(clock))
	exp := now.Add(15 * time.Minute)
	for _, c := range []*server.Credential{
		{Hash: "at", Kind: server.KindAccess, Family: "f", Expires: exp},
		{Hash: "rt", Kind: server.KindRefresh, Family: "f", Expires: exp},
	} {
		if err := s.PutCredential(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	if denied, err := s.AccessRevoked(ctx, "at"); err != nil || denied {
		t.Fatalf("before revocation: %v %v", denied, err)
	}
	if err := s.RevokeFamily(ctx, "f"); err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"at"} {
		if denied, err := s.AccessRevoked(ctx, h); err != nil || !denied {
			t.Fatalf("%s after revocation: %v %v", h, denied, err)
		}
	}
	if denied, _ := s.AccessRevoked(ctx, "other"); denied {
		t.Fatal("an access token of no revoked family is denied")
	}
	// Long after expiry, a store that is full sweeps: the entry goes.
	now = exp.Add(time.Hour)
	if err := s.PutCredential(ctx, &server.Credential{Hash: "new", Kind: server.KindCode, Expires: now.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	if denied, _ := s.AccessRevoked(ctx, "at"); denied {
		t.Fatal("a denied entry outlived its token")
	}
}

// plainStore hides a store's RevocationList.
type plainStore struct{ server.Store }

// A store that is no RevocationList costs a read per verified token, and
// revoked tokens are refused all the same.
func TestRevocationWithoutRevocationList(t *testing.T) {
	m := plainStore{server.NewMemoryStore()}
	if _, ok := server.Store(m).(server.RevocationList); ok {
		t.Fatal("the wrapper still is a RevocationList")
	}
	storetest.Revocation(t, m, m, nil)
}
