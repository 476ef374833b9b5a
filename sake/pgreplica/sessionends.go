package pgreplica

import (
	"context"
	"encoding/json"
	"sync"
	"time"
)

// DefaultEndWait is how long the end of a session (a DELETE, an idle
// expiry) waits, when EndWait is not given, for the other replicas to
// confirm they have dropped it.
const DefaultEndWait = 5 * time.Second

// relayEnded is the kind of the notice by which a replica confirms it has
// dropped a session another ended: To names the replica that ended it,
// Echo the number of its notice.
const relayEnded = "ended"

// maxAcksQueued bounds the confirmations waiting to be sent; past it one
// is dropped, and the replica that ended the session waits its EndWait.
const maxAcksQueued = 1024

// membersSQL lists the other replicas whose LISTEN connection lives, and
// forgets those whose connection is gone. A replica registers (register)
// before it trusts its memory of sessions, so a replica missing here
// answers every message from the table.
const membersSQL = `WITH gone AS (
		DELETE FROM sake_session_listeners l WHERE NOT EXISTS (
			SELECT 1 FROM pg_stat_activity a WHERE a.pid = l.pid AND a.backend_start IS NOT DISTINCT FROM l.backend_start))
	SELECT replica FROM sake_session_listeners l WHERE replica <> $1 AND EXISTS (
		SELECT 1 FROM pg_stat_activity a WHERE a.pid = l.pid AND a.backend_start IS NOT DISTINCT FROM l.backend_start)`

// endAck is a confirmation to send: session ended by replica to, in its
// notice number echo.
type endAck struct {
	to   string
	echo uint64
}

// endWaits are the ends of sessions this replica made that wait for the
// other replicas' confirmations, by the number of their notice.
type endWaits struct {
	mu      sync.Mutex
	waiting map[uint64]*endWait
}

// endWait gathers the replicas that confirmed one end.
type endWait struct {
	heard   map[string]bool
	changed chan struct{} // closed and replaced at each confirmation
}

// expect starts gathering the confirmations of notice n.
func (e *endWaits) expect(n uint64) *endWait {
	w := &endWait{heard: make(map[string]bool), changed: make(chan struct{})}
	e.mu.Lock()
	if e.waiting == nil {
		e.waiting = make(map[uint64]*endWait)
	}
	e.waiting[n] = w
	e.mu.Unlock()
	return w
}

// forget stops gathering for notice n.
func (e *endWaits) forget(n uint64) {
	e.mu.Lock()
	delete(e.waiting, n)
	e.mu.Unlock()
}

// heard records that replica confirmed notice n.
func (e *endWaits) heard(n uint64, replica string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	w := e.waiting[n]
	if w == nil {
		return
	}
	w.heard[replica] = true
	close(w.changed)
	w.changed = make(chan struct{})
}

// await waits until every replica of members has confirmed w, or ctx
// ends; it reports the replicas that did not confirm.
func (e *endWaits) await(ctx context.Context, w *endWait, members []string) (missing []string) {
	for {
		e.mu.Lock()
		missing = missing[:0]
		for _, m := range members {
			if !w.heard[m] {
				missing = append(missing, m)
			}
		}
		changed := w.changed
		e.mu.Unlock()
		if len(missing) == 0 {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return missing
		}
	}
}

// register records this replica's listening backend (pid), so that the
// ends of sessions made elsewhere wait for this replica's confirmation.
func (st *sessionStore) register(ctx context.Context, pid uint32) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	_, err := st.pool.Exec(ctx, `INSERT INTO sake_session_listeners (replica, pid, backend_start)
			SELECT $1, $2, (SELECT backend_start FROM pg_stat_activity WHERE pid = $2)
		ON CONFLICT (replica) DO UPDATE SET pid = EXCLUDED.pid, backend_start = EXCLUDED.backend_start`,
		st.replica, int32(pid))
	return err
}

// unregister forgets this replica's listening backend, as it stops.
func (st *sessionStore) unregister() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, _ = st.pool.Exec(ctx, `DELETE FROM sake_session_listeners WHERE replica = $1`, st.replica)
}

// awaitEnd waits until every other replica listening now has confirmed
// that it dropped the session ended by notice echo (w gathers the
// confirmations), at most st.endWait: a replica whose connection died
// is not listed, and one that does not answer in time is logged.
func (st *sessionStore) awaitEnd(ctx context.Context, id string, echo uint64, w *endWait) {
	defer st.ends.forget(echo)
	ctx, cancel := context.WithTimeout(ctx, st.endWait)
	defer cancel()
	rows, err := st.pool.Query(ctx, membersSQL, st.replica)
	var members []string
	if err == nil {
		for rows.Next() {
			var m string
			if err = rows.Scan(&m); err != nil {
				break
			}
			members = append(members, m)
		}
		rows.Close()
		if err == nil {
			err = rows.Err()
		}
	}
	if err != nil {
		st.logger.Warn("pgreplica: the end of a session could not wait for the other replicas: they drop it as its notice reaches them",
			"session", id, "error", err)
		return
	}
	if hook := st.awaitHook; hook != nil {
		hook(id)
	}
	if missing := st.ends.await(ctx, w, members); len(missing) > 0 {
		st.logger.Warn("pgreplica: replicas did not confirm the end of a session in time; answering anyway",
			"session", id, "replicas", missing, "waited", st.endWait)
	}
}

// ack queues the confirmation that this replica dropped a session another
// ended.
func (st *sessionStore) ack(to string, echo uint64) {
	if echo == 0 {
		return
	}
	select {
	case st.acks <- endAck{to: to, echo: echo}:
	default:
		st.logger.Warn("pgreplica: too many confirmations of ended sessions queued; one is dropped (its replica waits for it)",
			"queued", maxAcksQueued)
	}
}

// sendAcks sends the queued confirmations, those queued together in one
// statement, until ctx ends.
func (st *sessionStore) sendAcks(ctx context.Context) {
	for {
		var first endAck
		select {
		case <-ctx.Done():
			return
		case first = <-st.acks:
		}
		payloads := []string{st.ackPayload(first)}
	more:
		for len(payloads) < 100 {
			select {
			case a := <-st.acks:
				payloads = append(payloads, st.ackPayload(a))
			default:
				break more
			}
		}
		if _, err := st.pool.Exec(ctx, `SELECT pg_notify($1, p) FROM unnest($2::text[]) p`, st.channel, payloads); err != nil && ctx.Err() == nil {
			st.logger.Warn("pgreplica: confirming the end of sessions", "sessions", len(payloads), "error", err)
		}
	}
}

// ackPayload is the notice confirming a.
func (st *sessionStore) ackPayload(a endAck) string {
	b, _ := json.Marshal(relayWire{Origin: st.replica, Kind: relayEnded, To: a.to, Echo: a.echo})
	return string(b)
}
