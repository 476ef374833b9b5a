package pglisten

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// DefaultConfirmWait bounds how long a write waits for the other members'
// confirmations when Confirmations.Wait is 0.
const DefaultConfirmWait = 5 * time.Second

// maxConfirmsQueued bounds the confirmations waiting to be sent; past it
// one is dropped, and the member that wrote waits its Wait.
const maxConfirmsQueued = 1024

// MembersTable is the SQL of the table in which Confirmations records the
// members listening (name it in the component's migrations).
func MembersTable(name string) string {
	return `CREATE TABLE ` + name + ` (
		member        text PRIMARY KEY,
		pid           integer NOT NULL,
		backend_start timestamptz
	)`
}

// Confirmations lets a write be answered only once every other member
// listening on the channel has taken its notice in, where Echoes only
// waits for the writer's own. Each member registers its listening
// backend (Register, from OnListen, before it trusts what it keeps in
// memory) in Table (MembersTable); a writer, once its change has
// committed, lists the members whose backend lives (pg_stat_activity)
// and waits (Await) until each has confirmed (Confirm, which the member
// calls once it has taken the notice in; the confirmation goes out as a
// notice Payload makes, and the writer's feed hands it to Heard). A
// member whose backend is gone is not waited for; one that does not
// confirm within Wait is logged and the write answered anyway.
type Confirmations struct {
	Pool    *pgxpool.Pool
	Table   string // the members table
	Member  string // this member
	Channel string
	Logger  *slog.Logger
	Wait    time.Duration // DefaultConfirmWait when 0
	// Payload is the notice by which this member confirms notice n of
	// member to.
	Payload func(to string, n uint64) string
	// AwaitHook, when set (by tests), is called when a write starts
	// waiting, with what it is about.
	AwaitHook func(about string)

	mu      sync.Mutex
	waiting map[uint64]*Pending
	queue   chan confirmation
	once    sync.Once
}

// confirmation is one to send: notice n of member to.
type confirmation struct {
	to string
	n  uint64
}

// Pending gathers the members that confirmed one notice.
type Pending struct {
	n       uint64
	heard   map[string]bool
	changed chan struct{} // closed and replaced at each confirmation
}

func (c *Confirmations) init() {
	c.once.Do(func() {
		c.queue = make(chan confirmation, maxConfirmsQueued)
		c.waiting = make(map[uint64]*Pending)
	})
}

// Expect starts gathering the confirmations of this member's notice n
// (from Echoes.Expect); it is nil for n 0 (nothing listens). Await or
// Forget it.
func (c *Confirmations) Expect(n uint64) *Pending {
	if n == 0 {
		return nil
	}
	c.init()
	p := &Pending{n: n, heard: make(map[string]bool), changed: make(chan struct{})}
	c.mu.Lock()
	c.waiting[n] = p
	c.mu.Unlock()
	return p
}

// Forget stops gathering for p (the write failed or changed nothing).
func (c *Confirmations) Forget(p *Pending) {
	if p == nil {
		return
	}
	c.mu.Lock()
	delete(c.waiting, p.n)
	c.mu.Unlock()
}

// ForgetNotice is Forget for the Pending of notice n, if any.
func (c *Confirmations) ForgetNotice(n uint64) {
	if n == 0 {
		return
	}
	c.init()
	c.mu.Lock()
	delete(c.waiting, n)
	c.mu.Unlock()
}

// Heard records that member from confirmed this member's notice n.
func (c *Confirmations) Heard(n uint64, from string) {
	c.init()
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.waiting[n]
	if p == nil {
		return
	}
	p.heard[from] = true
	close(p.changed)
	p.changed = make(chan struct{})
}

// Await waits until every other member listening now has confirmed p, at
// most Wait or until ctx ends; about names the change in the log.
func (c *Confirmations) Await(ctx context.Context, p *Pending, about string) {
	if p == nil {
		return
	}
	defer c.Forget(p)
	wait := c.Wait
	if wait <= 0 {
		wait = DefaultConfirmWait
	}
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	members, err := c.members(ctx)
	if err != nil {
		c.Logger.Warn("pglisten: a change could not wait for the other members to confirm it: they take it in as its notice reaches them",
			"change", about, "error", err)
		return
	}
	if hook := c.AwaitHook; hook != nil {
		hook(about)
	}
	var missing []string
	for {
		c.mu.Lock()
		missing = missing[:0]
		for _, m := range members {
			if !p.heard[m] {
				missing = append(missing, m)
			}
		}
		changed := p.changed
		c.mu.Unlock()
		if len(missing) == 0 {
			return
		}
		select {
		case <-changed:
		case <-ctx.Done():
			c.Logger.Warn("pglisten: members did not confirm a change in time; answering anyway",
				"change", about, "members", missing, "waited", wait)
			return
		}
	}
}

// members lists the other members whose listening backend lives, and
// forgets those whose backend is gone.
func (c *Confirmations) members(ctx context.Context) ([]string, error) {
	t := pgx.Identifier{c.Table}.Sanitize()
	live := `EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = l.pid AND a.backend_start IS NOT DISTINCT FROM l.backend_start)`
	rows, err := c.Pool.Query(ctx, `WITH gone AS (DELETE FROM `+t+` l WHERE NOT `+live+`)
		SELECT member FROM `+t+` l WHERE member <> $1 AND `+live, c.Member)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// Register records this member's listening backend, from the context
// OnListen is given (Backend), so that the others' writes wait for its
// confirmations from now on.
func (c *Confirmations) Register(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	_, err := c.Pool.Exec(ctx, `INSERT INTO `+pgx.Identifier{c.Table}.Sanitize()+` (member, pid, backend_start)
			SELECT $1, $2, (SELECT backend_start FROM pg_stat_activity WHERE pid = $2)
		ON CONFLICT (member) DO UPDATE SET pid = EXCLUDED.pid, backend_start = EXCLUDED.backend_start`,
		c.Member, int32(Backend(ctx)))
	return err
}

// Unregister forgets this member, as it stops listening.
func (c *Confirmations) Unregister() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, _ = c.Pool.Exec(ctx, `DELETE FROM `+pgx.Identifier{c.Table}.Sanitize()+` WHERE member = $1`, c.Member)
}

// Confirm queues the confirmation that this member took in notice n of
// member to (n 0 asks for none).
func (c *Confirmations) Confirm(to string, n uint64) {
	if n == 0 {
		return
	}
	c.init()
	select {
	case c.queue <- confirmation{to: to, n: n}:
	default:
		c.Logger.Warn("pglisten: too many confirmations queued; one is dropped (its writer waits for it)",
			"queued", maxConfirmsQueued)
	}
}

// Send sends the queued confirmations, those queued together in one
// statement, until ctx ends.
func (c *Confirmations) Send(ctx context.Context) {
	c.init()
	for {
		var first confirmation
		select {
		case <-ctx.Done():
			return
		case first = <-c.queue:
		}
		payloads := []string{c.Payload(first.to, first.n)}
	more:
		for len(payloads) < 100 {
			select {
			case next := <-c.queue:
				payloads = append(payloads, c.Payload(next.to, next.n))
			default:
				break more
			}
		}
		if _, err := c.Pool.Exec(ctx, `SELECT pg_notify($1, p) FROM unnest($2::text[]) p`, c.Channel, payloads); err != nil && ctx.Err() == nil {
			c.Logger.Warn("pglisten: sending confirmations", "confirmations", len(payloads), "error", err)
		}
	}
}
