package pgusertokens_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sakemcp/sake-go/sake/gateway/usertokens"
	"github.com/sakemcp/sake-go/sake/gateway/usertokens/backendtest"
	"github.com/sakemcp/sake-go/sake/gateway/usertokens/pgusertokens"
	"github.com/sakemcp/sake-go/sake/internal/pgtest"
)

func newStore(t testing.TB, pool *pgxpool.Pool, opts ...pgusertokens.Option) *pgusertokens.Store {
	t.Helper()
	s, err := pgusertokens.New(context.Background(), pool, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// rows counts the rows of user in the table.
func rows(t *testing.T, pool *pgxpool.Pool, user string) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM sake_user_tokens WHERE user_id = $1`, []byte(user)).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestBackend(t *testing.T) {
	backendtest.Run(t, func(t *testing.T) usertokens.Backend {
		_, _, pool := pgtest.Schema(t)
		return newStore(t, pool)
	})
}

func TestTwoReplicasSeeEachOthersTokens(t *testing.T) {
	url, schema, pool := pgtest.Schema(t)
	ctx := context.Background()
	one := newStore(t, pool)
	two := newStore(t, pgtest.Pool(t, url, schema))
	if err := one.Put(ctx, "ann", "https://a.example/mcp", []byte("from one")); err != nil {
		t.Fatal(err)
	}
	if got, err := two.Get(ctx, "ann", "https://a.example/mcp"); err != nil || string(got) != "from one" {
		t.Fatalf("replica two reads %q, %v", got, err)
	}
	if err := two.Put(ctx, "ann", "https://a.example/mcp", []byte("from two")); err != nil {
		t.Fatal(err)
	}
	if got, err := one.Get(ctx, "ann", "https://a.example/mcp"); err != nil || string(got) != "from two" {
		t.Fatalf("replica one reads %q after two replaced it, %v", got, err)
	}
	if err := one.DeleteUser(ctx, "ann"); err != nil {
		t.Fatal(err)
	}
	if got, err := two.Get(ctx, "ann", "https://a.example/mcp"); err != nil || got != nil {
		t.Fatalf("replica two reads %q, %v after one deleted the user", got, err)
	}
}

func TestTheLeastRecentlySavedTokenOfAUserGoes(t *testing.T) {
	_, _, pool := pgtest.Schema(t)
	ctx := context.Background()
	s := newStore(t, pool, pgusertokens.MaxPerUser(3))
	put := func(user, resource string) {
		t.Helper()
		if err := s.Put(ctx, user, resource, []byte(user+resource)); err != nil {
			t.Fatal(err)
		}
	}
	has := func(user, resource string) bool {
		t.Helper()
		b, err := s.Get(ctx, user, resource)
		if err != nil {
			t.Fatal(err)
		}
		return b != nil
	}
	put("ann", "a")
	put("ann", "b")
	put("ann", "c")
	put("bob", "a")
	put("ann", "a") // saved again: now b is the least recent
	put("ann", "d")
	if !has("ann", "a") || has("ann", "b") || !has("ann", "c") || !has("ann", "d") {
		t.Fatal("past MaxPerUser, the least recently saved token was not the one deleted")
	}
	if !has("bob", "a") || rows(t, pool, "ann") != 3 {
		t.Fatal("the bound of one user touched another's tokens, or was not kept")
	}
}

func TestPerUserBoundHoldsUnderConcurrentSaves(t *testing.T) {
	url, schema, pool := pgtest.Schema(t)
	ctx := context.Background()
	const limit = 3
	// Two replicas, each with its pool, saving for one user at once.
	stores := []*pgusertokens.Store{
		newStore(t, pool, pgusertokens.MaxPerUser(limit)),
		newStore(t, pgtest.Pool(t, url, schema), pgusertokens.MaxPerUser(limit)),
	}
	for round := range 5 {
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				r := fmt.Sprintf("https://%d-%d.example/mcp", round, i)
				if err := stores[i%2].Put(ctx, "ann", r, []byte(r)); err != nil {
					t.Error(err)
				}
			}()
		}
		close(start)
		wg.Wait()
		if n := rows(t, pool, "ann"); n != limit {
			t.Fatalf("round %d: ann holds %d tokens after 16 concurrent saves, want MaxPerUser = %d", round, n, limit)
		}
	}
}

func TestPutRefusesPastItsBounds(t *testing.T) {
	_, _, pool := pgtest.Schema(t)
	ctx := context.Background()
	s := newStore(t, pool, pgusertokens.MaxSealedBytes(100))
	if err := s.Put(ctx, "ann", "r", []byte("kept")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, user, resource string
		sealed               []byte
		says                 string
	}{
		{"sealed", "ann", "r", make([]byte, 101), "MaxSealedBytes"},
		{"user", strings.Repeat("u", pgusertokens.MaxUserBytes+1), "r", []byte("x"), "MaxUserBytes"},
		{"resource", "ann", strings.Repeat("r", pgusertokens.MaxResourceBytes+1), []byte("x"), "MaxResourceBytes"},
	} {
		err := s.Put(ctx, c.user, c.resource, c.sealed)
		if !errors.Is(err, pgusertokens.ErrTooLarge) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s past its bound: %v; want ErrTooLarge naming %s", c.name, err, c.says)
		}
	}
	if got, err := s.Get(ctx, "ann", "r"); err != nil || string(got) != "kept" {
		t.Fatalf("a refused Put changed the stored token: %q, %v", got, err)
	}
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM sake_user_tokens`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("%d rows (%v) after refused Puts, want 1", n, err)
	}
	// At the bounds exactly, it is kept.
	if err := s.Put(ctx, strings.Repeat("u", pgusertokens.MaxUserBytes), strings.Repeat("r", pgusertokens.MaxResourceBytes), make([]byte, 100)); err != nil {
		t.Fatalf("a token at the bounds: %v", err)
	}
	if _, err := pgusertokens.New(ctx, nil); err == nil {
		t.Fatal("New without a pool worked")
	}
}

func TestSweepDeletesIdleTokens(t *testing.T) {
	_, _, pool := pgtest.Schema(t)
	ctx := context.Background()
	s := newStore(t, pool)
	for _, u := range []string{"ann", "bob"} {
		if err := s.Put(ctx, u, "r", []byte(u)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := pool.Exec(ctx, `UPDATE sake_user_tokens SET updated_at = now() - interval '100 days' WHERE user_id = 'ann'::bytea`); err != nil {
		t.Fatal(err)
	}
	if n, err := s.Sweep(ctx, 90*24*time.Hour); err != nil || n != 1 {
		t.Fatalf("Sweep = %d, %v; want 1", n, err)
	}
	if got, _ := s.Get(ctx, "ann", "r"); got != nil {
		t.Fatal("an idle token survived Sweep")
	}
	if got, _ := s.Get(ctx, "bob", "r"); string(got) != "bob" {
		t.Fatal("Sweep deleted a token in use")
	}
	if _, err := s.Sweep(ctx, 0); err == nil {
		t.Fatal("Sweep(0), which would delete every token, worked")
	}
	if got, _ := s.Get(ctx, "bob", "r"); string(got) != "bob" {
		t.Fatal("a refused Sweep deleted a token")
	}
}

func TestTwoReplicasCreateTheTableAtOnce(t *testing.T) {
	url, schema, _ := pgtest.Schema(t)
	ctx := context.Background()
	pools := []*pgxpool.Pool{pgtest.Pool(t, url, schema), pgtest.Pool(t, url, schema)}
	errs := make([]error, len(pools))
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i, p := range pools {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, errs[i] = pgusertokens.New(ctx, p)
		}()
	}
	close(start)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("two New at once: %v", err)
	}
	// A restart creates nothing and keeps the tokens.
	s := newStore(t, pools[0])
	if err := s.Put(ctx, "ann", "r", []byte("x")); err != nil {
		t.Fatal(err)
	}
	again := newStore(t, pools[1])
	if got, err := again.Get(ctx, "ann", "r"); err != nil || string(got) != "x" {
		t.Fatalf("after a restart: %q, %v", got, err)
	}
	var steps int
	if err := pools[0].QueryRow(ctx, `SELECT count(*) FROM sake_migrations WHERE component = 'user_tokens'`).Scan(&steps); err != nil || steps != 1 {
		t.Fatalf("%d migration steps recorded (%v), want 1", steps, err)
	}
}
