package pgstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sakemcp/sake-go/sake/auth/server"
)

// channel is the LISTEN/NOTIFY channel of revoked access tokens. A
// payload is "d" and hash:expiry pairs (expiry in Unix seconds) of
// tokens to deny, or "s" and a token a Sync waits for.
const channel = "sake_oauth_revoked"

// Defaults of the revocation feed.
const (
	// DefaultMaxDenied bounds the revoked, unexpired access tokens a
	// store keeps in memory. Beyond it the store asks the database about
	// each token until the list fits again.
	DefaultMaxDenied = 100_000
)

const (
	// deniedGrace is how long past its expiry a revoked access token
	// stays denied: longer than a verifier's leeway for exp
	// (auth.DefaultClockSkew).
	deniedGrace = time.Minute
	// maxPayload bounds one NOTIFY payload (PostgreSQL allows 8000
	// bytes).
	maxPayload = 7900
	// defaultTidy is how often the listener forgets expired entries (and,
	// after an overflow, tries to load the list again).
	defaultTidy = time.Minute
	// Backoff bounds between attempts to listen again.
	minBackoff = 100 * time.Millisecond
	maxBackoff = 5 * time.Second
)

// errFeedDown is what AccessRevoked answers while the feed is not
// listening: the verifier answers 503 and the client tries again.
var errFeedDown = errors.New("pgstore: the revocation feed lost its PostgreSQL connection and is listening again; " +
	"tokens are refused until it has re-read the revoked ones")

var _ server.RevocationList = (*Store)(nil)

// feed is the in-memory list of revoked access tokens, kept up to date
// by the listener.
type feed struct {
	live    atomic.Bool  // listening, with the list loaded
	ndenied atomic.Int64 // len(denied), or -1 when overflowing

	mu     sync.Mutex
	denied map[string]time.Time // hash -> expiry
	syncs  map[string]chan struct{}
}

// AccessRevoked implements server.RevocationList from memory: while the
// feed listens and nothing is revoked, two atomic loads. While the
// listening connection is lost it fails closed (an error: the verifier
// answers 503) until the list was read again; when the list outgrew
// MaxDenied it asks the database.
func (s *Store) AccessRevoked(ctx context.Context, hash string) (bool, error) {
	f := &s.feed
	if !f.live.Load() {
		return false, errFeedDown
	}
	switch n := f.ndenied.Load(); {
	case n == 0:
		return false, nil
	case n < 0:
		var revoked bool
		err := s.pool.QueryRow(ctx, `SELECT revoked FROM sake_oauth_credentials WHERE hash = $1 AND kind = 'access'`,
			hash).Scan(&revoked)
		if errors.Is(err, pgx.ErrNoRows) {
			return true, nil // not an access token this store issued
		}
		return revoked, wrap(err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	_, denied := f.denied[hash]
	return denied, nil
}

// SyncRevocations returns once this store has applied every revocation
// committed before the call, by any replica, or when ctx ends. It sends
// a marker through the feed and waits for it: notifications arrive in
// commit order.
func (s *Store) SyncRevocations(ctx context.Context) error {
	var b [12]byte
	_, _ = rand.Read(b[:])
	token := hex.EncodeToString(b[:])
	done := make(chan struct{})
	f := &s.feed
	f.mu.Lock()
	f.syncs[token] = done
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		delete(f.syncs, token)
		f.mu.Unlock()
	}()
	if _, err := s.pool.Exec(ctx, `SELECT pg_notify($1, $2)`, channel, "s "+token); err != nil {
		return wrap(err)
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// listen keeps the feed going until ctx ends. ready gets the outcome of
// the first attempt.
func (s *Store) listen(ctx context.Context, ready chan<- error) {
	backoff := minBackoff
	first := true
	for {
		err := s.listenOnce(ctx, func() {
			backoff = minBackoff
			if first {
				first = false
				ready <- nil
			}
		})
		s.setLive(false)
		if ctx.Err() != nil {
			return
		}
		if first {
			ready <- err
			return
		}
		s.log.Warn("pgstore: the revocation feed lost PostgreSQL; refusing tokens until it listens again and re-reads the revoked ones",
			"error", err, "retry_in", backoff)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, maxBackoff)
	}
}

// listenOnce holds one LISTEN: it listens, then reads the list (nothing
// revoked in between is missed), then applies notifications until the
// connection fails or ctx ends.
func (s *Store) listenOnce(ctx context.Context, live func()) error {
	conn, err := pgx.ConnectConfig(ctx, s.listenConfig)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background()) //nolint:errcheck // a listening connection is dropped, never reused
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{channel}.Sanitize()); err != nil {
		return err
	}
	if err := s.load(ctx, conn); err != nil {
		return err
	}
	s.setLive(true)
	live()
	for {
		wctx, cancel := context.WithTimeout(ctx, s.tidyEvery)
		n, err := conn.WaitForNotification(wctx)
		cancel()
		switch {
		case err == nil:
			if hook := s.beforeApply.Load(); hook != nil {
				(*hook)(n.Payload)
			}
			s.apply(n.Payload)
		case ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded):
			if err := s.tidy(ctx, conn); err != nil {
				return err
			}
		default:
			return err
		}
	}
}

// load replaces the list with the revoked access tokens in the database.
func (s *Store) load(ctx context.Context, conn *pgx.Conn) error {
	rows, err := conn.Query(ctx, `SELECT hash, expires_at FROM sake_oauth_credentials
		WHERE kind = 'access' AND revoked AND expires_at > $1 LIMIT $2`, s.now().Add(-deniedGrace), s.maxDenied+1)
	if err != nil {
		return err
	}
	denied := map[string]time.Time{}
	var hash string
	var exp time.Time
	_, err = pgx.ForEachRow(rows, []any{&hash, &exp}, func() error {
		denied[hash] = exp
		return nil
	})
	if err != nil {
		return err
	}
	f := &s.feed
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(denied) > s.maxDenied {
		f.denied = map[string]time.Time{}
		f.ndenied.Store(-1)
		s.log.Warn("pgstore: more revoked access tokens than MaxDenied; asking the database about each token until they expire",
			"max_denied", s.maxDenied)
		return nil
	}
	f.denied = denied
	f.ndenied.Store(int64(len(denied)))
	return nil
}

// tidy forgets expired entries and, after an overflow, loads the list
// again.
func (s *Store) tidy(ctx context.Context, conn *pgx.Conn) error {
	f := &s.feed
	f.mu.Lock()
	overflow := f.ndenied.Load() < 0
	if !overflow {
		f.sweep(s.now())
	}
	f.mu.Unlock()
	if overflow {
		if err := s.load(ctx, conn); err != nil {
			return err
		}
	}
	if s.onTidy != nil {
		s.onTidy()
	}
	return nil
}

// sweep forgets the entries that expired more than deniedGrace ago. f.mu
// is held.
func (f *feed) sweep(now time.Time) {
	for h, exp := range f.denied {
		if now.After(exp.Add(deniedGrace)) {
			delete(f.denied, h)
		}
	}
	f.ndenied.Store(int64(len(f.denied)))
}

// apply applies one notification.
func (s *Store) apply(payload string) {
	kind, rest, _ := strings.Cut(payload, " ")
	f := &s.feed
	f.mu.Lock()
	defer f.mu.Unlock()
	switch kind {
	case "s":
		if done, ok := f.syncs[rest]; ok {
			close(done)
			delete(f.syncs, rest)
		}
	case "d":
		if f.ndenied.Load() < 0 {
			return // overflowing: the database answers
		}
		for _, pair := range strings.Fields(rest) {
			hash, unix, ok := strings.Cut(pair, ":")
			sec, err := strconv.ParseInt(unix, 10, 64)
			if !ok || err != nil || hash == "" {
				continue
			}
			if _, known := f.denied[hash]; !known && len(f.denied) >= s.maxDenied {
				f.sweep(s.now())
				if len(f.denied) >= s.maxDenied {
					f.denied = map[string]time.Time{}
					f.ndenied.Store(-1)
					s.log.Warn("pgstore: more revoked access tokens than MaxDenied; asking the database about each token until they expire",
						"max_denied", s.maxDenied)
					return
				}
			}
			f.denied[hash] = time.Unix(sec, 0)
		}
		f.ndenied.Store(int64(len(f.denied)))
	}
}

// setLive records whether the feed listens, for AccessRevoked and the
// tests.
func (s *Store) setLive(live bool) {
	if s.feed.live.Swap(live) != live && s.onLive != nil {
		s.onLive(live)
	}
}

// denialPayloads renders the NOTIFY payloads that deny the access tokens
// of hashes (with their expiries), each under maxPayload bytes.
func denialPayloads(hashes []string, expires []time.Time) []string {
	var out []string
	var b strings.Builder
	for i, h := range hashes {
		pair := h + ":" + strconv.FormatInt(expires[i].Unix()+1, 10)
		if b.Len() > 0 && b.Len()+1+len(pair) > maxPayload {
			out = append(out, b.String())
			b.Reset()
		}
		if b.Len() == 0 {
			b.WriteString("d")
		}
		b.WriteString(" ")
		b.WriteString(pair)
	}
	if b.Len() > 0 {
		out = append(out, b.String())
	}
	return out
}

// onLive has f hear each change of whether the feed listens, in the
// listening goroutine (which waits for f). For tests.
func onLive(f func(live bool)) Option {
	return func(s *Store) { s.onLive = f }
}

// tidied has the listener tidy every d and call f after. For tests.
func tidied(d time.Duration, f func()) Option {
	return func(s *Store) { s.tidyEvery, s.onTidy = d, f }
}
