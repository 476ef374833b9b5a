package pgsignins_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake/gateway"
	"github.com/sakemcp/sake-go/sake/gateway/pgsignins"
	"github.com/sakemcp/sake-go/sake/internal/pgtest"
)

func open(state, user, entry string, ttl time.Duration) gateway.OpenSignIn {
	return gateway.OpenSignIn{State: state, User: user, Entry: entry, Sealed: []byte("sealed " + state), Expires: time.Now().Add(ttl)}
}

// TestStore: a user's open sign-in at an entry is reused; the bounds per
// user and over all hold (across two Stores on one database, as two
// replicas); a state is taken once, of two takers at once by one alone;
// an expired one is refused; how one ended is learned once.
func TestStore(t *testing.T) {
	t.Parallel()
	_, _, pool := pgtest.Schema(t)
	a, err := pgsignins.New(t.Context(), pool, pgsignins.MaxOpen(3), pgsignins.MaxPerUser(2))
	if err != nil {
		t.Fatal(err)
	}
	b, err := pgsignins.New(t.Context(), pool, pgsignins.MaxOpen(3), pgsignins.MaxPerUser(2))
	if err != nil {
		t.Fatal(err)
	}
	signInStoreContract(t, a, b)
	if _, err := a.Add(t.Context(), gateway.OpenSignIn{State: "big", User: "eve", Entry: "x", Sealed: make([]byte, pgsignins.MaxSealedBytes+1), Expires: time.Now().Add(time.Hour)}); !errors.Is(err, pgsignins.ErrTooLarge) {
		t.Fatalf("a sealed sign-in too large: %v", err)
	}
	var rows int
	if err := pool.QueryRow(t.Context(), `SELECT count(*) FROM sake_pending_sign_ins WHERE user_id = $1`, []byte("eve")).Scan(&rows); err != nil || rows != 0 {
		t.Fatal(fmt.Sprint(rows, err))
	}
}

// TestMemoryStore: gateway.MemorySignIns keeps the same promises, in one
// process.
func TestMemoryStore(t *testing.T) {
	t.Parallel()
	m := gateway.MemorySignIns(3, 2)
	signInStoreContract(t, m, m)
}

// signInStoreContract checks the promises of gateway.SignInStore on a
// and b, two views of one store bound to 3 open sign-ins, 2 of one user.
func signInStoreContract(t *testing.T, a, b gateway.SignInStore) {
	t.Helper()
	ctx := t.Context()
	if kept, err := a.Add(ctx, open("s1", "ann", "x", time.Hour)); err != nil || kept.State != "s1" || string(kept.Sealed) != "sealed s1" {
		t.Fatalf("Add = %+v, %v", kept, err)
	}
	if kept, err := b.Add(ctx, open("s2", "ann", "x", time.Hour)); err != nil || kept.State != "s1" {
		t.Fatalf("a second sign-in of ann at x = %+v, %v, want s1 again", kept, err)
	}
	if _, err := b.Add(ctx, open("s3", "ann", "y", time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Add(ctx, open("s4", "ann", "z", time.Hour)); !errors.Is(err, gateway.ErrTooManySignIns) {
		t.Fatalf("ann's third: %v, want ErrTooManySignIns", err)
	}
	if _, err := a.Add(ctx, open("s5", "bob", "x", time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Add(ctx, open("s6", "cy", "x", time.Hour)); !errors.Is(err, gateway.ErrTooManySignIns) {
		t.Fatalf("past MaxOpen: %v, want ErrTooManySignIns", err)
	}
	if o, err := b.Open(ctx, "ann", "y"); err != nil || o == nil || o.State != "s3" {
		t.Fatalf("Open = %+v, %v", o, err)
	}

	// Two replicas take s1 at once: one gets it.
	var wg sync.WaitGroup
	got := make([]*gateway.OpenSignIn, 2)
	for i, s := range []gateway.SignInStore{a, b} {
		wg.Go(func() {
			o, err := s.Take(ctx, "s1")
			if err != nil {
				t.Error(err)
			}
			got[i] = o
		})
	}
	wg.Wait()
	if (got[0] == nil) == (got[1] == nil) {
		t.Fatalf("two takers of one state got %+v and %+v, want one of them", got[0], got[1])
	}
	taken := got[0]
	if taken == nil {
		taken = got[1]
	}
	if taken.User != "ann" || taken.Entry != "x" || string(taken.Sealed) != "sealed s1" {
		t.Fatalf("taken = %+v", taken)
	}
	if o, _ := a.Take(ctx, "s1"); o != nil {
		t.Fatal("s1 taken twice")
	}
	if ended, _, _ := b.Outcome(ctx, "s1"); ended {
		t.Fatal("an outcome before Finish")
	}
	if err := a.Finish(ctx, *taken, "refused"); err != nil {
		t.Fatal(err)
	}
	if o, _ := b.Take(ctx, "s1"); o != nil {
		t.Fatal("an ended sign-in was taken")
	}
	if ended, failure, err := b.Outcome(ctx, "s1"); err != nil || !ended || failure != "refused" {
		t.Fatalf("Outcome = %v, %q, %v", ended, failure, err)
	}
	if ended, _, _ := a.Outcome(ctx, "s1"); ended {
		t.Fatal("an outcome learned twice")
	}

	// Forget closes ann's open sign-in at y.
	if err := a.Forget(ctx, "ann", "y"); err != nil {
		t.Fatal(err)
	}
	if o, _ := b.Take(ctx, "s3"); o != nil {
		t.Fatal("a forgotten sign-in was taken")
	}

	// An expired one is refused, and deleted.
	if _, err := a.Add(ctx, open("old", "dee", "x", time.Nanosecond)); err != nil {
		t.Fatal(err)
	}
	if o, err := b.Take(ctx, "old"); err != nil || o != nil {
		t.Fatalf("an expired sign-in: %+v, %v", o, err)
	}
	if o, _ := a.Open(ctx, "dee", "x"); o != nil {
		t.Fatal("an expired sign-in is open")
	}
}
