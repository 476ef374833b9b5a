package pgstore

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake/auth/server"
	"github.com/sakemcp/sake-go/sake/internal/pgtest"
)

// A credential stored into a family while the family is being revoked
// (a refresh racing a replay) ends up revoked, and denied: the store
// waits for the revocation instead of storing it alive beside it.
func TestPutDuringRevocation(t *testing.T) {
	_, _, pool := pgtest.Schema(t)
	s := testStore(t, pool)
	ctx := context.Background()
	family := "racing-" + t.Name()
	putAccess(t, s, "at", family)
	stored := make(chan error, 1)
	s.beforeRevokeCommit = func() {
		go func() {
			stored <- s.PutCredential(ctx, &server.Credential{Hash: "late", Kind: server.KindAccess, Family: family,
				Expires: time.Now().Add(15 * time.Minute)})
		}()
		// Return once the store waits for this transaction, or has
		// finished without waiting.
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		deadline := time.After(10 * time.Second)
		for {
			select {
			case err := <-stored:
				stored <- err
				return
			case <-deadline:
				t.Error("the concurrent store neither finished nor waited")
				return
			case <-tick.C:
			}
			var waiting int
			if err := pool.QueryRow(ctx, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
				AND ((classid::bigint << 32) | objid::bigint) = hashtextextended($1, 0)`, family).Scan(&waiting); err != nil {
				t.Error(err)
				return
			}
			if waiting > 0 {
				return
			}
		}
	}
	if err := s.RevokeFamily(ctx, family); err != nil {
		t.Fatal(err)
	}
	s.beforeRevokeCommit = nil
	if err := <-stored; err != nil {
		t.Fatal(err)
	}
	if c, err := s.Credential(ctx, "late"); err != nil || !c.Revoked {
		t.Fatalf("stored during the revocation: %+v, %v; want revoked", c, err)
	}
	syncFeed(t, s)
	wantRevoked(t, s, "late", true)
}

// The replica that revokes refuses the family's access tokens as soon as
// RevokeFamily returns, not once its own notice has come back through
// the feed: a client told its token was revoked is refused by the replica
// that told it.
func TestRevokingReplicaRefusesAtOnce(t *testing.T) {
	_, _, pool := pgtest.Schema(t)
	s := testStore(t, pool)
	family := "at-once-" + t.Name()
	putAccess(t, s, "at-once", family)
	syncFeed(t, s)
	hold := make(chan struct{})
	held := func(payload string) {
		if strings.HasPrefix(payload, "d ") {
			<-hold
		}
	}
	s.beforeApply.Store(&held)
	defer close(hold)
	if err := s.RevokeFamily(context.Background(), family); err != nil {
		t.Fatal(err)
	}
	wantRevoked(t, s, "at-once", true)
}
