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
