// Package pglisten keeps PostgreSQL LISTENs going for Sake's replica
// packages, listening again after a lost connection. Every Start of a
// process that names the same connection identity (host, port, database,
// user, search_path) shares one listening connection: PostgreSQL wakes
// each listening backend of a database at every NOTIFY, so one connection
// per replica, rather than one per package, keeps that cost to one
// backend per replica.
package pglisten

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// Backoff bounds between attempts to listen again.
const (
	minBackoff = 100 * time.Millisecond
	maxBackoff = 5 * time.Second
)

// A connection that stops delivering without failing (a network path
// that drops packets, a stalled proxy) would otherwise be taken for a
// quiet one for as long as TCP takes to give up, minutes, while the
// members trust what they learnt from it. So after pingEvery without a
// notification the connection is asked a round trip, and one not
// answered within pingTimeout is lost (OnLost): a dead connection is
// noticed within pingEvery+pingTimeout.
const (
	pingEvery   = time.Second
	pingTimeout = 2 * time.Second
	// execTimeout bounds a LISTEN or UNLISTEN.
	execTimeout = 10 * time.Second
)

// Config says what to listen to and what to do.
type Config struct {
	// Conn is how to open the listening connection (a pool's
	// Config().ConnConfig). Starts whose Conn names the same host, port,
	// database, user and search_path share one connection.
	Conn *pgx.ConnConfig
	// Channel is the LISTEN channel.
	Channel string
	// Logger hears about lost connections.
	Logger *slog.Logger
	// OnListen, when set, runs each time the LISTEN is in place, before
	// notifications are read: gap says one was lost before (changes may
	// have been missed); Backend(ctx) is the listening backend's process
	// id. It runs on the goroutine that reads the shared
	// connection: while it runs, no subscriber hears anything.
	OnListen func(ctx context.Context, gap bool)
	// OnLost, when set, runs each time the LISTEN connection is lost (or
	// could not be opened), before listening again: whatever was learnt
	// from notifications may be outdated from now on.
	OnLost func()
	// Notify gets each notification's payload, one at a time, on the
	// goroutine that reads the shared connection: it must not wait for
	// another notification to arrive.
	Notify func(payload string)
}

// backendKey is the context key of the listening backend's process id.
type backendKey struct{}

// Backend returns the process id of the PostgreSQL backend that listens,
// from the context OnListen is given (0 from any other): while that
// backend lives (pg_stat_activity lists it), the subscriber hears every
// notice.
func Backend(ctx context.Context) uint32 {
	pid, _ := ctx.Value(backendKey{}).(uint32)
	return pid
}

// Channel is the channel named base of the servers whose tables live where
// conn's search_path points: NOTIFY channels belong to the whole database,
// so servers in two schemas of one database would hear each other on a
// shared one. Without a search_path in conn's configuration it is base.
func Channel(conn *pgx.ConnConfig, base string) string {
	path := conn.RuntimeParams["search_path"]
	if path == "" {
		return base
	}
	sum := sha256.Sum256([]byte(path))
	return base + "_" + hex.EncodeToString(sum[:8])
}

// identity is what makes two Starts share a connection.
func identity(c *pgx.ConnConfig) string {
	return c.Host + "\x00" + strconv.Itoa(int(c.Port)) + "\x00" + c.Database + "\x00" + c.User + "\x00" +
		c.RuntimeParams["search_path"]
}

// hubs are the shared connections of this process, by identity.
var hubs = struct {
	mu sync.Mutex
	m  map[string]*hub
}{m: make(map[string]*hub)}

// hub is one listening connection and its subscribers. Its goroutine
// (run) alone opens, reads and closes the connection and calls the
// subscribers' callbacks; Start and stop change the membership under mu
// and interrupt whatever the goroutine waits on (kick).
type hub struct {
	key  string
	conn *pgx.ConnConfig

	mu sync.Mutex
	// subs are the members, joining, listening or leaving.
	subs []*sub
	// kicked ends when the membership changed since the goroutine last
	// looked; kick ends it.
	kicked context.Context
	kick   context.CancelFunc

	// Owned by the goroutine: who hears each channel on the connection
	// in place, and which channels it LISTENs to.
	active   map[string][]*sub
	listened map[string]bool
}

// sub is one Start.
type sub struct {
	c Config
	// ctx is passed to OnListen; it ends when the subscriber leaves.
	ctx    context.Context
	cancel context.CancelFunc
	// ready is closed once the first LISTEN is in place or the first
	// attempt failed; left once the subscriber is gone and none of its
	// callbacks runs any more.
	ready     chan struct{}
	readyOnce func()
	left      chan struct{}
	leaving   bool // under hub.mu

	// Owned by the goroutine.
	listening bool // OnListen ran on the connection in place
	gap       bool // a connection was lost (or not opened) since it last listened
}

// Start listens until stop is called; stop waits until none of c's
// callbacks runs any more. Start returns once the LISTEN is in place, or
// the first attempt failed (it then keeps trying). A Start that joins a
// connection already listening for others has its LISTEN added to it, and
// its OnListen runs with gap false: it missed nothing, having heard
// nothing before. A lost connection is reported to every subscriber
// (OnLost), and each hears OnListen with gap true once it is back; a
// subscriber that stops leaves the others listening.
func Start(c Config) (stop func()) {
	s := &sub{c: c, ready: make(chan struct{}), left: make(chan struct{})}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.readyOnce = sync.OnceFunc(func() { close(s.ready) })
	key := identity(c.Conn)

	hubs.mu.Lock()
	h := hubs.m[key]
	if h == nil {
		h = &hub{key: key, conn: c.Conn.Copy()}
		h.kicked, h.kick = context.WithCancel(context.Background())
		hubs.m[key] = h
		go h.run()
	}
	h.mu.Lock()
	h.subs = append(h.subs, s)
	h.kick()
	h.mu.Unlock()
	hubs.mu.Unlock()

	<-s.ready
	var once sync.Once
	return func() {
		once.Do(func() {
			s.cancel()
			h.mu.Lock()
			s.leaving = true
			h.kick()
			h.mu.Unlock()
			<-s.left
		})
	}
}

// run keeps the connection going while the hub has members, then retires
// the hub.
func (h *hub) run() {
	backoff := minBackoff
	for {
		if h.retire() {
			return
		}
		listened, err := h.session()
		if errors.Is(err, errEmpty) {
			continue
		}
		if listened {
			backoff = minBackoff
		}
		h.lost(err, backoff)
		h.pause(backoff)
		backoff = min(2*backoff, maxBackoff)
	}
}

// errEmpty ends a session whose last member left.
var errEmpty = errors.New("pglisten: no subscriber left")

// retire removes the hub once it has no member left, and reports whether
// it did: a later Start opens a new one.
func (h *hub) retire() bool {
	hubs.mu.Lock()
	defer hubs.mu.Unlock()
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.subs) > 0 {
		return false
	}
	if hubs.m[h.key] == h {
		delete(hubs.m, h.key)
	}
	return true
}

// session opens the connection, keeps the members' LISTENs on it and
// delivers notifications until it fails or no member is left (errEmpty).
// listened says some LISTEN was in place.
func (h *hub) session() (listened bool, err error) {
	h.active, h.listened = make(map[string][]*sub), make(map[string]bool)
	var conn *pgx.Conn
	defer func() {
		if conn != nil {
			conn.Close(context.Background()) //nolint:errcheck // a listening connection is dropped, never reused
		}
	}()
	for conn == nil {
		kicked := h.refresh()
		conn, err = pgx.ConnectConfig(kicked, h.conn)
		if err == nil {
			break
		}
		if kicked.Err() == nil {
			return false, err
		}
		// Interrupted by a change of members: act on it, then connect
		// again.
		if empty, _ := h.sync(nil); empty {
			return false, errEmpty
		}
	}
	for {
		empty, err := h.sync(conn)
		if err != nil {
			return listened, err
		}
		if empty {
			return listened, errEmpty
		}
		listened = listened || len(h.listened) > 0
		for {
			h.mu.Lock()
			kicked := h.kicked
			h.mu.Unlock()
			wait, cancel := context.WithTimeout(kicked, pingEvery)
			n, err := conn.WaitForNotification(wait)
			quiet := kicked.Err() == nil && errors.Is(wait.Err(), context.DeadlineExceeded)
			cancel()
			if n != nil {
				for _, s := range h.active[n.Channel] {
					s.c.Notify(n.Payload)
				}
			}
			if err == nil {
				continue
			}
			if quiet && !conn.IsClosed() {
				if err := ping(conn); err != nil {
					return listened, err
				}
				continue
			}
			if kicked.Err() == nil || conn.IsClosed() {
				return listened, err
			}
			break // the members changed: sync
		}
	}
}

// ping makes sure conn still answers (see pingEvery). Notifications that
// arrive meanwhile are kept by conn for the next wait.
func ping(conn *pgx.Conn) error {
	ctx, cancel := context.WithTimeout(context.Background(), pingTimeout)
	defer cancel()
	if err := conn.Ping(ctx); err != nil {
		return fmt.Errorf("pglisten: the listening connection did not answer within %s: %w", pingTimeout, err)
	}
	return nil
}

// exec runs a LISTEN or UNLISTEN on conn, failing (the connection is then
// lost) when it is not answered within execTimeout: a dead connection
// must not hold the goroutine.
func exec(conn *pgx.Conn, sql string) error {
	ctx, cancel := context.WithTimeout(context.Background(), execTimeout)
	defer cancel()
	_, err := conn.Exec(ctx, sql)
	return err
}

// refresh returns a fresh kicked context, before the goroutine looks at
// the members, so that a change made while it looks ends it. Whoever calls
// it must look at every member afterwards (sync), or connect and then
// sync: a change made before it is not signalled again.
func (h *hub) refresh() context.Context {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.kicked.Err() != nil {
		h.kicked, h.kick = context.WithCancel(context.Background())
	}
	return h.kicked
}

// sync acts on the members that left and, with a connection, puts the
// LISTENs of those that joined in place and runs their OnListen. It
// reports whether no member is left.
func (h *hub) sync(conn *pgx.Conn) (empty bool, err error) {
	h.refresh()
	h.mu.Lock()
	var gone, joined []*sub
	kept := h.subs[:0]
	for _, s := range h.subs {
		switch {
		case s.leaving:
			gone = append(gone, s)
		default:
			kept = append(kept, s)
			if !s.listening {
				joined = append(joined, s)
			}
		}
	}
	clear(h.subs[len(kept):])
	h.subs = kept
	empty = len(kept) == 0
	h.mu.Unlock()

	for _, s := range gone {
		if s.listening {
			h.deactivate(s)
			ch := s.c.Channel
			if conn != nil && len(h.active[ch]) == 0 && h.listened[ch] && err == nil {
				delete(h.listened, ch)
				err = exec(conn, "UNLISTEN "+pgx.Identifier{ch}.Sanitize())
			}
		}
		s.readyOnce()
		close(s.left)
	}
	if err != nil || conn == nil || empty {
		return empty, err
	}
	for _, s := range joined {
		ch := s.c.Channel
		if !h.listened[ch] {
			if err := exec(conn, "LISTEN "+pgx.Identifier{ch}.Sanitize()); err != nil {
				return false, err
			}
			h.listened[ch] = true
		}
		if s.c.OnListen != nil {
			s.c.OnListen(context.WithValue(s.ctx, backendKey{}, conn.PgConn().PID()), s.gap)
		}
		s.gap = false
		s.listening = true
		h.active[ch] = append(h.active[ch], s)
		s.readyOnce()
	}
	return false, nil
}

// deactivate stops delivering s's channel to s.
func (h *hub) deactivate(s *sub) {
	ch := s.c.Channel
	list := h.active[ch]
	for i, o := range list {
		if o == s {
			list = append(list[:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(h.active, ch)
	} else {
		h.active[ch] = list
	}
	s.listening = false
}

// lost tells every member that the connection failed (or could not be
// opened): each hears OnLost and listens with a gap next time.
func (h *hub) lost(err error, backoff time.Duration) {
	h.mu.Lock()
	var members []*sub
	for _, s := range h.subs {
		if s.listening {
			h.deactivate(s)
		}
		if !s.leaving {
			members = append(members, s)
		}
	}
	h.mu.Unlock()
	for _, s := range members {
		s.gap = true
		if s.c.OnLost != nil {
			s.c.OnLost()
		}
		s.c.Logger.Warn("listening on PostgreSQL failed; listening again, then re-reading what may have been missed",
			"channel", s.c.Channel, "error", err, "retry_in", backoff)
		s.readyOnce()
	}
}

// pause waits d before the next attempt, acting meanwhile on members that
// leave; one that joins meanwhile is ready at once (the connection is
// down) and listens with a gap once it is back. It returns early when no
// member is left.
func (h *hub) pause(d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		// sync looks at every member after taking a fresh kicked
		// context, so no change is missed.
		if empty, _ := h.sync(nil); empty {
			return
		}
		h.mu.Lock()
		kicked := h.kicked
		for _, s := range h.subs {
			if !s.leaving {
				s.gap = true
				s.readyOnce()
			}
		}
		h.mu.Unlock()
		select {
		case <-t.C:
			return
		case <-kicked.Done():
		}
	}
}
