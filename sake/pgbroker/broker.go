package pgbroker

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sakemcp/sake-go/sake/backend"
	"github.com/sakemcp/sake-go/sake/internal/pglisten"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// channel is the LISTEN/NOTIFY channel of broadcasts when the pool's
// configuration names no search_path.
const channel = "sake_broadcasts"

// channelOf is the channel of the broadcasts of servers whose tables live
// where the pool's search_path points: NOTIFY channels belong to the
// whole database, so servers in two schemas of one database would hear
// each other's list changes and resource updates on a shared one.
func channelOf(pool *pgxpool.Pool) string {
	return pglisten.Channel(pool.Config().ConnConfig, channel)
}

// MaxURI is the longest resource URI, in bytes, whose updates travel
// between replicas: a NOTIFY payload holds under 8000 bytes. Longer URIs
// are announced to this replica's clients only, and logged. The URI
// travels in JSON, with <, > and & as they are; a URI of control
// characters, quotes or backslashes, which JSON escapes, must also fit
// maxPayload once encoded.
const MaxURI = 7000

// maxPayload is the largest NOTIFY payload PostgreSQL takes (it must be
// shorter than 8000 bytes).
const maxPayload = 7999

// Broker is a backend.Broker on PostgreSQL LISTEN/NOTIFY. Build it with New.
type Broker struct {
	pool    *pgxpool.Pool
	channel string
	replica string
	logger  *slog.Logger
}

var _ backend.Broker = (*Broker)(nil)

// message is a broadcast on the wire.
type message struct {
	Origin string        `json:"o"`
	List   protocol.List `json:"l,omitempty"`
	URI    string        `json:"u,omitempty"`
}

// New returns a Broker on pool. replica names this process among the
// replicas (any string unique to it, such as pgstore.NewReplicaID()); its
// own broadcasts are not delivered back to it. logger hears about lost
// connections; nil discards.
//
// Brokers hear each other when their pools name the same search_path in
// their configuration (a search_path set on the role or the database
// instead counts as none): servers in other schemas of the same database
// are not told of this one's broadcasts.
func New(pool *pgxpool.Pool, replica string, logger *slog.Logger) *Broker {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Broker{pool: pool, channel: channelOf(pool), replica: replica, logger: logger}
}

// Publish implements backend.Broker.
func (b *Broker) Publish(ctx context.Context, bc backend.Broadcast) error {
	if len(bc.URI) > MaxURI {
		return fmt.Errorf("pgbroker: a resource URI of %d bytes is longer than the %d that travel between replicas", len(bc.URI), MaxURI)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // <, > and & would take six bytes each
	if err := enc.Encode(message{Origin: b.replica, List: bc.List, URI: bc.URI}); err != nil {
		return err
	}
	payload := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if len(payload) > maxPayload {
		return fmt.Errorf("pgbroker: a resource URI of %d bytes takes %d once encoded, more than the %d a NOTIFY holds: it reaches this replica's clients only; use shorter URIs without control characters, quotes or backslashes",
			len(bc.URI), len(payload), maxPayload)
	}
	if _, err := b.pool.Exec(ctx, `SELECT pg_notify($1, $2)`, b.channel, string(payload)); err != nil {
		return fmt.Errorf("pgbroker: publishing a broadcast: %w", err)
	}
	return nil
}

// Listen implements backend.Broker on a LISTEN connection shared with the
// process's other listeners on the same database, user and search_path
// (sake/tasks/pgstore, the session store of sake/pgreplica). After a lost
// connection it listens again with a bounded backoff and, since list
// changes may have been missed meanwhile, delivers a list change of every
// list (clients list again; missed resource updates cannot be recovered,
// and the log says so).
func (b *Broker) Listen(fn func(backend.Broadcast)) (stop func()) {
	return pglisten.Start(pglisten.Config{
		Conn:    b.pool.Config().ConnConfig,
		Channel: b.channel,
		Logger:  b.logger,
		OnListen: func(_ context.Context, gap bool) {
			if !gap {
				return
			}
			b.logger.Warn("pgbroker: broadcasts may have been missed while reconnecting; announcing every list as changed (missed resource updates are lost)")
			for _, l := range []protocol.List{protocol.ListTools, protocol.ListResources, protocol.ListPrompts} {
				fn(backend.Broadcast{List: l})
			}
		},
		Notify: func(payload string) {
			var m message
			if err := json.Unmarshal([]byte(payload), &m); err != nil {
				b.logger.Warn("pgbroker: ignoring a malformed broadcast", "error", err)
				return
			}
			if m.Origin == b.replica || (m.List == "" && m.URI == "") {
				return
			}
			fn(backend.Broadcast{List: m.List, URI: m.URI})
		},
	})
}
