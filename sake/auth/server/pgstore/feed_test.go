package pgstore

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sakemcp/sake-go/sake/auth/server"
	"github.com/sakemcp/sake-go/sake/internal/pgtest"
)

func testStore(t *testing.T, pool *pgxpool.Pool, opts ...Option) *Store {
	t.Helper()
	opts = append([]Option{Logger(slog.New(slog.DiscardHandler))}, opts...)
	s, err := New(context.Background(), pool, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func putAccess(t *testing.T, s *Store, hash, family string) {
	t.Helper()
	err := s.PutCredential(context.Background(), &server.Credential{Hash: hash, Kind: server.KindAccess, Family: family,
		Expires: time.Now().Add(15 * time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
}

func syncFeed(t *testing.T, s *Store) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.SyncRevocations(ctx); err != nil {
		t.Fatalf("waiting for the feed: %v", err)
	}
}

func wantRevoked(t *testing.T, s *Store, hash string, want bool) {
	t.Helper()
	got, err := s.AccessRevoked(context.Background(), hash)
	if err != nil || got != want {
		t.Fatalf("AccessRevoked(%s) = %v, %v; want %v", hash, got, err, want)
	}
}

// The feed answers from memory: with the pool gone, revoked tokens of
// another replica are still denied and the others accepted. A token
// stored into a family already revoked is announced too.
func TestFeedAnswersFromMemory(t *testing.T) {
	url, schema, pool := pgtest.Schema(t)
	a := testStore(t, pool)
	bpool := pgtest.Pool(t, url, schema)
	b := testStore(t, bpool)
	putAccess(t, a, "at1", "f")
	putAccess(t, a, "at2", "g")
	if err := a.RevokeFamily(context.Background(), "f"); err != nil {
		t.Fatal(err)
	}
	putAccess(t, a, "late", "f")
	syncFeed(t, b)
	bpool.Close()
	wantRevoked(t, b, "at1", true)
	wantRevoked(t, b, "late", true)
	wantRevoked(t, b, "at2", false)
}

// A store started after revocations reads them; one whose list outgrew
// MaxDenied asks the database and still answers right.
func TestFeedLoadAndOverflow(t *testing.T) {
	url, schema, pool := pgtest.Schema(t)
	a := testStore(t, pool)
	for _, h := range []string{"x1", "x2", "x3"} {
		putAccess(t, a, h, "f")
	}
	putAccess(t, a, "y", "g")
	if err := a.RevokeFamily(context.Background(), "f"); err != nil {
		t.Fatal(err)
	}
	late := testStore(t, pgtest.Pool(t, url, schema))
	for _, h := range []string{"x1", "x2", "x3"} {
		wantRevoked(t, late, h, true)
	}
	wantRevoked(t, late, "y", false)

	small := testStore(t, pgtest.Pool(t, url, schema), MaxDenied(2))
	if small.feed.ndenied.Load() >= 0 {
		t.Fatal("three denied tokens fit a list of two")
	}
	for _, h := range []string{"x1", "x2", "x3"} {
		wantRevoked(t, small, h, true)
	}
	wantRevoked(t, small, "y", false)
	wantRevoked(t, small, "never-issued", true)
}

// While the listening connection is lost, the store fails closed; once
// listening again it has re-read what was revoked meanwhile.
func TestFeedLostConnection(t *testing.T) {
	url, schema, pool := pgtest.Schema(t)
	a := testStore(t, pool)
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	app := "sake-test-feed-" + schema
	cfg.ConnConfig.RuntimeParams["search_path"] = schema
	cfg.ConnConfig.RuntimeParams["application_name"] = app
	bpool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(bpool.Close)
	states := make(chan bool, 4)
	release := make(chan struct{})
	b := testStore(t, bpool, onLive(func(live bool) {
		states <- live
		if !live {
			<-release // stay down until the test has revoked
		}
	}))
	unblock := sync.OnceFunc(func() { close(release) })
	t.Cleanup(unblock) // before Close, should the test stop early
	if live := <-states; !live {
		t.Fatal("the feed did not start listening")
	}
	putAccess(t, a, "at", "f")
	wantRevoked(t, b, "at", false)
	if _, err := pool.Exec(context.Background(),
		`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`, app); err != nil {
		t.Fatal(err)
	}
	if live := <-states; live {
		t.Fatal("the feed did not notice the lost connection")
	}
	if _, err := b.AccessRevoked(context.Background(), "at"); err == nil {
		t.Fatal("a store that cannot hear revocations answered")
	}
	if err := a.RevokeFamily(context.Background(), "f"); err != nil { // its notification is missed
		t.Fatal(err)
	}
	unblock()
	if live := <-states; !live {
		t.Fatal("the feed did not listen again")
	}
	wantRevoked(t, b, "at", true)
}

// The listener forgets entries once their tokens expired, and a list
// that overflowed is loaded again once it fits.
func TestFeedTidy(t *testing.T) {
	url, schema, pool := pgtest.Schema(t)
	a := testStore(t, pool)
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	tidy := make(chan struct{}, 1)
	b := testStore(t, pgtest.Pool(t, url, schema), MaxDenied(2), Clock(clock), tidied(10*time.Millisecond, func() {
		select {
		case tidy <- struct{}{}:
		default:
		}
	}))
	for _, h := range []string{"x1", "x2", "x3"} {
		putAccess(t, a, h, "f")
	}
	if err := a.RevokeFamily(context.Background(), "f"); err != nil {
		t.Fatal(err)
	}
	syncFeed(t, b)
	if b.feed.ndenied.Load() >= 0 {
		t.Fatal("three denied tokens fit a list of two")
	}
	wantRevoked(t, b, "x1", true)
	// The three expire (past the grace), one more is revoked: it fits.
	if err := a.PutCredential(context.Background(), &server.Credential{Hash: "y", Kind: server.KindAccess, Family: "g",
		Expires: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if err := a.RevokeFamily(context.Background(), "g"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	now = now.Add(20 * time.Minute)
	mu.Unlock()
	select { // a tidy that began before the clock moved
	case <-tidy:
	default:
	}
	<-tidy
	<-tidy // a whole tidy after the clock moved
	if n := b.feed.ndenied.Load(); n < 0 {
		t.Fatal("the list did not leave its overflow")
	}
	wantRevoked(t, b, "y", true)
	wantRevoked(t, b, "x1", false)
}
