package pgusertokens_test

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/gateway/usertokens"
	"github.com/sakemcp/sake-go/sake/gateway/usertokens/pgusertokens"
	"github.com/sakemcp/sake-go/sake/internal/pgtest"
)

func TestADatabaseGoneIsAnErrorNeverAnAbsentToken(t *testing.T) {
	dbURL, schema, _ := pgtest.Schema(t)
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	cut := pgtest.NewCutter(t, u.Host)
	u.Host = cut.Addr()
	pool := pgtest.Pool(t, u.String(), schema)
	ctx := context.Background()
	store := newStore(t, pool)
	vault, _ := usertokens.New(store, newKey(t))
	if err := vault.For("ann").Save(ctx, crm, token("ann")); err != nil {
		t.Fatal(err)
	}

	cut.Cut()
	if got, err := store.Get(ctx, "ann", crm); err == nil || got != nil || !strings.Contains(err.Error(), "pgusertokens: reading") {
		t.Fatalf("Get with the database gone = %q, %v; want an error saying it was reading", got, err)
	}
	// The vault passes the error on: the user is not sent to sign in
	// again because the database is away.
	if got, err := vault.For("ann").Load(ctx, crm); err == nil || got != nil {
		t.Fatalf("the vault's Load with the database gone = %+v, %v", got, err)
	}
	for what, err := range map[string]error{
		"saving":   store.Put(ctx, "ann", ledger, []byte("x")),
		"deleting": store.Delete(ctx, "ann", crm),
		"tokens":   store.DeleteUser(ctx, "ann"),
	} {
		if err == nil || !strings.Contains(err.Error(), what) {
			t.Errorf("with the database gone: %v; want an error saying %q", err, what)
		}
	}

	// Back: the pool connects again and nothing was lost or half-done.
	cut.Restore()
	var back *client.Token
	for range 10 { // each dead connection of the pool fails once
		if back, err = vault.For("ann").Load(ctx, crm); err == nil {
			break
		}
	}
	if err != nil || back == nil || back.AccessToken != "ann" {
		t.Fatalf("after the database is back: %+v, %v", back, err)
	}
	if b, err := store.Get(ctx, "ann", ledger); err != nil || b != nil {
		t.Fatalf("a Put that failed left %q, %v", b, err)
	}
}

func TestAnEndedContextEndsEveryCall(t *testing.T) {
	_, _, pool := pgtest.Schema(t)
	store := newStore(t, pool)
	if err := store.Put(context.Background(), "ann", crm, []byte("kept")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, getErr := store.Get(ctx, "ann", crm)
	_, sweepErr := store.Sweep(ctx, 1)
	for _, err := range []error{getErr, store.Put(ctx, "ann", ledger, []byte("x")), store.Delete(ctx, "ann", crm), store.DeleteUser(ctx, "ann"), sweepErr} {
		if !errors.Is(err, context.Canceled) {
			t.Errorf("with an ended context: %v; want context.Canceled", err)
		}
	}
	if got, err := store.Get(context.Background(), "ann", crm); err != nil || string(got) != "kept" {
		t.Fatalf("calls with an ended context changed the token: %q, %v", got, err)
	}
}

// A Put waiting its turn behind another save of the same user ends when
// its context does, and stores nothing.
func TestAPutWaitingForItsUserEndsWithItsContext(t *testing.T) {
	_, _, pool := pgtest.Schema(t)
	bg := context.Background()
	store := newStore(t, pool)
	// Another replica's save of ann, holding ann's turn.
	tx, err := pool.Begin(bg)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(bg)
	if _, err := tx.Exec(bg, `SELECT pg_advisory_xact_lock($1)`, pgusertokens.LockKey("ann")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(bg)
	done := make(chan error, 1)
	go func() { done <- store.Put(ctx, "ann", crm, []byte("late")) }()
	// Wait until the Put waits on ann's lock.
	key := uint64(pgusertokens.LockKey("ann"))
	for {
		var waiting int
		if err := pool.QueryRow(bg, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
			AND classid = $1::bigint::oid AND objid = $2::bigint::oid`, int64(key>>32), int64(key&0xffffffff)).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting == 1 {
			break
		}
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("the waiting Put, its context ended: %v", err)
	}
	if err := tx.Rollback(bg); err != nil {
		t.Fatal(err)
	}
	if got, err := store.Get(bg, "ann", crm); err != nil || got != nil {
		t.Fatalf("a Put whose context ended stored %q, %v", got, err)
	}
}
