package pgreplica

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sakemcp/sake-go/sake/backend"
	"github.com/sakemcp/sake-go/sake/internal/pglisten"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// relayChannel is the LISTEN/NOTIFY channel of session relays.
const relayChannel = "sake_sessions"

// maxInlineRelay is the largest relay sent in the NOTIFY payload itself
// (PostgreSQL takes under 8000 bytes); larger ones go through the table
// sake_session_relays, whose rows are deleted after ten minutes.
const maxInlineRelay = 7000

// touchEvery is how stale a session's last use may be in the database;
// idle expiry is minutes long.
const touchEvery = 5 * time.Second

// sessionMigrations are the tables of shared legacy sessions.
var sessionMigrations = []string{
	`CREATE TABLE sake_sessions (
		id            text PRIMARY KEY,
		owner         text NOT NULL,
		quota_key     text NOT NULL,
		version       text NOT NULL,
		capabilities  bytea NOT NULL,
		client_info   bytea NOT NULL,
		offers        text[] NOT NULL,
		initialized   boolean NOT NULL,
		log_level     integer NOT NULL,
		subscriptions text[] NOT NULL,
		last_used     timestamptz NOT NULL DEFAULT now()
	);
	CREATE INDEX sake_sessions_by_use ON sake_sessions (last_used);
	CREATE TABLE sake_session_relays (
		seq     bigserial PRIMARY KEY,
		body    bytea NOT NULL,
		sent_at timestamptz NOT NULL DEFAULT now()
	);`,
	// stream_holder is the replica holding the session's own stream, ''
	// for none: messages for it are relayed only while one does.
	`ALTER TABLE sake_sessions ADD COLUMN stream_holder text NOT NULL DEFAULT ''`,
	// sake_session_ends remembers the sessions deleted lately, so that a
	// change saved by a request that read the session before its DELETE
	// committed does not create it again.
	`CREATE TABLE sake_session_ends (
		id       text PRIMARY KEY,
		ended_at timestamptz NOT NULL DEFAULT now()
	);
	CREATE INDEX sake_session_ends_by_time ON sake_session_ends (ended_at);`,
	// sake_session_listeners names each replica's listening backend: the
	// end of a session waits until every replica whose backend lives has
	// confirmed it dropped the session.
	pglisten.MembersTable(listenersTable),
}

// endsKept is how long a deleted session's id is remembered: longer than
// any request that read the session before its end takes to save a change.
const endsKept = "1 hour"

// sessionStore is a backend.SessionStore on PostgreSQL. While it listens
// (ListenRelays) it keeps the records it has read or been told of in
// memory (sessionCache): a message of a known session reads nothing, and
// its last use is written with the others' every touchEvery. Every write
// of a record announces itself in the statement that makes it, so the
// other replicas drop or replace their copy as it commits.
type sessionStore struct {
	pool    *pgxpool.Pool
	replica string
	channel string
	logger  *slog.Logger
	cache   *sessionCache
	echoes  pglisten.Echoes
	// ends waits for the others' confirmations of an end.
	taken *pglisten.Confirmations
	// heardHook, when set (by tests), is called after each relay from
	// another replica has been acted on.
	heardHook func(session, kind string)
	// sentHook, when set (by tests), is called with each relay this
	// replica sends.
	sentHook func(session, kind string)
}

var _ backend.SessionStore = (*sessionStore)(nil)

func newSessionStore(pool *pgxpool.Pool, replica string, logger *slog.Logger, cacheSize int, confirmWait time.Duration) *sessionStore {
	st := &sessionStore{pool: pool, replica: replica, logger: logger,
		channel: pglisten.Channel(pool.Config().ConnConfig, relayChannel), cache: newSessionCache(cacheSize)}
	st.taken = newConfirmations(st, confirmWait)
	return st
}

// relayStream is the kind of the notice that a replica started or stopped
// holding a session's stream; it concerns the stores alone.
const relayStream = "stream"

// relayWire is a relay in a NOTIFY payload: inline, or the seq of its row.
// A record's change carries the record when it fits.
type relayWire struct {
	// Holder is the replica holding the session's stream ("" for none)
	// as the write that sends the notice left it: the statement puts it
	// first (withHolder), in notices of records and of streams.
	Holder  *string         `json:"h,omitempty"`
	Origin  string          `json:"o"`
	Session string          `json:"s,omitempty"`
	Kind    string          `json:"k,omitempty"`
	Message json.RawMessage `json:"m,omitempty"`
	Row     int64           `json:"r,omitempty"`
	Record  *wireRecord     `json:"rec,omitempty"`
	// Echo is what the writer waits for to come back (pglisten.Echoes).
	Echo uint64 `json:"n,omitempty"`
	// Fresh marks a session just created: no replica has a copy, so none
	// confirms it.
	Fresh bool `json:"f,omitempty"`
	// To is the replica a confirmation (relayEnded) is for, and Acked
	// the number of the notice it confirms.
	To    string `json:"t,omitempty"`
	Acked uint64 `json:"a,omitempty"`
}

// wireRecord is a session record in a notice (its id is the notice's).
type wireRecord struct {
	Owner         string                      `json:"o"`
	Key           string                      `json:"k"`
	Version       string                      `json:"v"`
	Capabilities  protocol.ClientCapabilities `json:"c"`
	ClientInfo    protocol.Implementation     `json:"i"`
	Offers        []string                    `json:"f,omitempty"`
	Initialized   bool                        `json:"n,omitempty"`
	LogLevel      int32                       `json:"l,omitempty"`
	Subscriptions []string                    `json:"s,omitempty"`
}

// changeNotice is the payload announcing rec's new state, with the record
// when it fits, without its opening brace (see withHolder).
func (st *sessionStore) changeNotice(rec *backend.SessionRecord, echo uint64, fresh bool) string {
	w := relayWire{Origin: st.replica, Session: rec.ID, Kind: backend.RelayChanged, Echo: echo, Fresh: fresh, Record: &wireRecord{
		Owner: rec.Owner, Key: rec.Key, Version: rec.Version, Capabilities: rec.Capabilities, ClientInfo: rec.ClientInfo,
		Offers: rec.Offers, Initialized: rec.Initialized, LogLevel: rec.LogLevel, Subscriptions: rec.Subscriptions}}
	b, err := json.Marshal(w)
	if err != nil || len(b) > maxInlineRelay {
		w.Record = nil
		b, _ = json.Marshal(w)
	}
	return string(b[1:])
}

// withHolder is the SQL of a notice payload whose tail (the JSON of a
// relayWire without its opening brace) is the parameter tail, with the
// column stream_holder of the row written put first.
func withHolder(tail string) string {
	return `'{"h":' || to_json(stream_holder)::text || ',' || ` + tail
}

// record is the session record a notice carries, or nil.
func (w *relayWire) record() *backend.SessionRecord {
	r := w.Record
	if r == nil {
		return nil
	}
	return &backend.SessionRecord{ID: w.Session, Owner: r.Owner, Key: r.Key, Version: r.Version,
		Capabilities: r.Capabilities, ClientInfo: r.ClientInfo, Offers: nonNil(r.Offers), Initialized: r.Initialized,
		LogLevel: r.LogLevel, Subscriptions: nonNil(r.Subscriptions), LastUsed: time.Now()}
}

// nonNil is s, or an empty slice for nil (as the table gives it).
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// SaveSession stores rec and announces it in the statement that writes
// it. A change of an existing session is an update, which a concurrent
// DELETE wins; only a session the table has never had is inserted, and
// one deleted lately (sake_session_ends) is not: a change that a request
// which read the session before its DELETE committed saves afterwards is
// dropped, rather than bringing the session back on every replica. This
// replica's copy is dropped: it takes the new record from its own notice
// or the table, in the order the changes committed. A change of an
// existing session returns once every other replica listening has
// confirmed it took the change in (at most ConfirmWait).
func (st *sessionStore) SaveSession(ctx context.Context, rec *backend.SessionRecord) error {
	caps, err := json.Marshal(rec.Capabilities)
	if err != nil {
		return err
	}
	info, err := json.Marshal(rec.ClientInfo)
	if err != nil {
		return err
	}
	offers, subs := rec.Offers, rec.Subscriptions
	if offers == nil {
		offers = []string{}
	}
	if subs == nil {
		subs = []string{}
	}
	st.cache.drop(rec.ID)
	echo, wait := st.echoes.Expect()
	confirmed := st.taken.Expect(echo)
	notice := st.changeNotice(rec, echo, false)
	tag, err := st.pool.Exec(ctx, `WITH saved AS (
			UPDATE sake_sessions SET initialized = $2, log_level = $3, subscriptions = $4, last_used = now()
			WHERE id = $1 RETURNING stream_holder)
		SELECT pg_notify($5, `+withHolder("$6")+`) FROM saved`,
		rec.ID, rec.Initialized, rec.LogLevel, subs, st.channel, notice)
	if err == nil && tag.RowsAffected() == 0 {
		// A new session, in a statement of its own: it sees a DELETE
		// that committed while the update waited for the row. No
		// replica has a copy to confirm.
		st.taken.Forget(confirmed)
		confirmed = nil
		notice = st.changeNotice(rec, echo, true)
		tag, err = st.pool.Exec(ctx, `WITH saved AS (
				INSERT INTO sake_sessions (id, owner, quota_key, version, capabilities,
					client_info, offers, initialized, log_level, subscriptions)
				SELECT $1::text, $2::text, $3::text, $4::text, $5::bytea, $6::bytea, $7::text[], $8::boolean, $9::integer, $10::text[]
				WHERE NOT EXISTS (SELECT 1 FROM sake_session_ends WHERE id = $1)
				ON CONFLICT (id) DO NOTHING
				RETURNING stream_holder)
			SELECT pg_notify($11, `+withHolder("$12")+`) FROM saved`,
			rec.ID, rec.Owner, rec.Key, rec.Version, caps, info, offers, rec.Initialized, rec.LogLevel, subs,
			st.channel, notice)
	}
	st.cache.drop(rec.ID) // a read racing the write may have filled it
	if err != nil {
		st.echoes.Forget(echo)
		st.taken.Forget(confirmed)
		return fmt.Errorf("pgreplica: storing session: %w", err)
	}
	if tag.RowsAffected() == 0 {
		st.echoes.Forget(echo) // deleted meanwhile: nothing to save
		st.taken.Forget(confirmed)
		return nil
	}
	wait(ctx)
	st.taken.Await(ctx, confirmed, "change of session "+rec.ID)
	return nil
}

const sessionColumns = `id, owner, quota_key, version, capabilities, client_info, offers,
	initialized, log_level, subscriptions, last_used, stream_holder`

// TouchSession answers from memory when this replica knows the session
// (its last use is then written by the next flush), else reads the record
// and, at most every touchEvery, writes its last use in the same
// statement.
func (st *sessionStore) TouchSession(ctx context.Context, id string) (*backend.SessionRecord, error) {
	if rec := st.cache.touch(id); rec != nil {
		return rec, nil
	}
	mark := st.cache.mark()
	rec, holder, err := scanSession(st.pool.QueryRow(ctx, `WITH touched AS (
			UPDATE sake_sessions SET last_used = now()
			WHERE id = $1 AND last_used < now() - make_interval(secs => $2))
		SELECT `+sessionColumns+` FROM sake_sessions WHERE id = $1`, id, touchEvery.Seconds()))
	if rec != nil {
		st.cache.fill(rec, holder, mark)
	}
	return rec, err
}

// LoadSession reads the record from the table: its callers want the last
// use every replica wrote (idle expiry) or the state after a change.
func (st *sessionStore) LoadSession(ctx context.Context, id string) (*backend.SessionRecord, error) {
	rec, _, err := scanSession(st.pool.QueryRow(ctx, `SELECT `+sessionColumns+` FROM sake_sessions WHERE id = $1`, id))
	return rec, err
}

// SessionStreamHeld implements backend.SessionStreamStore: it records that
// this replica holds session id's stream, or (!held) that it no longer
// does, leaving another's in place, and announces the holder in the same
// statement.
func (st *sessionStore) SessionStreamHeld(ctx context.Context, id string, held bool) error {
	echo, wait := st.echoes.Expect()
	b, _ := json.Marshal(relayWire{Origin: st.replica, Session: id, Kind: relayStream, Echo: echo})
	tag, err := st.pool.Exec(ctx, `WITH changed AS (
			UPDATE sake_sessions SET stream_holder = CASE WHEN $2 THEN $3
				WHEN stream_holder = $3 THEN '' ELSE stream_holder END
			WHERE id = $1 RETURNING stream_holder)
		SELECT pg_notify($4, `+withHolder("$5")+`) FROM changed`, id, held, st.replica, st.channel, string(b[1:]))
	if err != nil || tag.RowsAffected() == 0 {
		st.echoes.Forget(echo)
		if err != nil {
			st.cache.drop(id)
			return fmt.Errorf("pgreplica: recording a session's stream: %w", err)
		}
		return nil
	}
	wait(ctx)
	return nil
}

// DeleteSession deletes the record and announces it, in one statement
// that also remembers the end (see SaveSession) and forgets the ends older
// than endsKept. It returns once every other replica listening has
// confirmed it dropped its copy (at most confirmWait), so that no replica
// serves the session after its end is answered.
func (st *sessionStore) DeleteSession(ctx context.Context, id string) error {
	st.cache.drop(id)
	echo, wait := st.echoes.Expect()
	confirmed := st.taken.Expect(echo)
	payload, _ := json.Marshal(relayWire{Origin: st.replica, Session: id, Kind: backend.RelayClosed, Echo: echo})
	tag, err := st.pool.Exec(ctx, `WITH gone AS (DELETE FROM sake_sessions WHERE id = $1 RETURNING id),
			ended AS (INSERT INTO sake_session_ends (id) SELECT id FROM gone ON CONFLICT (id) DO UPDATE SET ended_at = now()),
			forgotten AS (DELETE FROM sake_session_ends WHERE ended_at < now() - interval '`+endsKept+`')
		SELECT pg_notify($2, $3) FROM gone`, id, st.channel, string(payload))
	st.cache.drop(id)
	if err != nil || tag.RowsAffected() == 0 {
		st.echoes.Forget(echo)
		st.taken.Forget(confirmed)
		if err != nil {
			return fmt.Errorf("pgreplica: deleting session: %w", err)
		}
		return nil
	}
	wait(ctx)
	st.taken.Await(ctx, confirmed, "end of session "+id)
	return nil
}

// flushTouches writes the last use of the sessions answered from memory
// since the previous flush, in one statement.
func (st *sessionStore) flushTouches(ctx context.Context) {
	ids := st.cache.takeTouched()
	if len(ids) == 0 {
		return
	}
	if _, err := st.pool.Exec(ctx, `UPDATE sake_sessions SET last_used = now() WHERE id = ANY($1)`, ids); err != nil && ctx.Err() == nil {
		st.logger.Warn("pgreplica: recording the last use of sessions", "sessions", len(ids), "error", err)
	}
}

// flushEvery flushes the last uses every touchEvery until ctx ends, then
// once more.
func (st *sessionStore) flushEvery(ctx context.Context) {
	tick := time.NewTicker(touchEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			fctx, cancel := context.WithTimeout(context.Background(), time.Second)
			st.flushTouches(fctx)
			cancel()
			return
		case <-tick.C:
			st.flushTouches(ctx)
		}
	}
}

// scanSession reads a session record and the replica holding its stream.
func scanSession(row pgx.Row) (*backend.SessionRecord, string, error) {
	var rec backend.SessionRecord
	var caps, info []byte
	var holder string
	err := row.Scan(&rec.ID, &rec.Owner, &rec.Key, &rec.Version, &caps, &info, &rec.Offers,
		&rec.Initialized, &rec.LogLevel, &rec.Subscriptions, &rec.LastUsed, &holder)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("pgreplica: reading session: %w", err)
	}
	if err := json.Unmarshal(caps, &rec.Capabilities); err != nil {
		return nil, "", fmt.Errorf("pgreplica: decoding session capabilities: %w", err)
	}
	if err := json.Unmarshal(info, &rec.ClientInfo); err != nil {
		return nil, "", fmt.Errorf("pgreplica: decoding session client info: %w", err)
	}
	return &rec, holder, nil
}

// Relay sends r to the other replicas. A change of a record or its end
// was announced by the write itself (SaveSession, DeleteSession), so those
// relays send nothing more; nor does a message for the session's stream
// when this replica knows no replica holds it.
func (st *sessionStore) Relay(ctx context.Context, r backend.SessionRelay) error {
	if r.Kind == backend.RelayChanged || r.Kind == backend.RelayClosed {
		return nil
	}
	if r.Kind == backend.RelaySend && st.cache.noStream(r.Session) {
		return nil
	}
	if hook := st.sentHook; hook != nil {
		hook(r.Session, r.Kind)
	}
	payload, err := json.Marshal(relayWire{Origin: st.replica, Session: r.Session, Kind: r.Kind, Message: r.Message})
	if err != nil {
		return err
	}
	if len(payload) > maxInlineRelay {
		var seq int64
		if err := st.pool.QueryRow(ctx, `WITH gone AS (DELETE FROM sake_session_relays WHERE sent_at < now() - interval '10 minutes')
			INSERT INTO sake_session_relays (body) VALUES ($1) RETURNING seq`, payload).Scan(&seq); err != nil {
			return fmt.Errorf("pgreplica: storing a relay: %w", err)
		}
		payload = []byte(`{"o":` + strconv.Quote(st.replica) + `,"r":` + strconv.FormatInt(seq, 10) + `}`)
	}
	if _, err := st.pool.Exec(ctx, `SELECT pg_notify($1, $2)`, st.channel, string(payload)); err != nil {
		return fmt.Errorf("pgreplica: relaying: %w", err)
	}
	return nil
}

// ListenRelays listens to the other replicas; while it does, records are
// kept in memory and last uses flushed every touchEvery. A lost LISTEN
// connection empties that memory at once; it fills again only once the
// LISTEN is back.
func (st *sessionStore) ListenRelays(fn func(backend.SessionRelay)) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	flushed := make(chan struct{})
	go func() {
		defer close(flushed)
		st.flushEvery(ctx)
	}()
	acked := make(chan struct{})
	go func() {
		defer close(acked)
		st.taken.Send(ctx)
	}()
	stopListen := pglisten.Start(pglisten.Config{
		Conn:    st.pool.Config().ConnConfig,
		Channel: st.channel,
		Logger:  st.logger,
		OnListen: func(lctx context.Context, gap bool) {
			// Registered first: the ends of sessions made elsewhere wait
			// for this replica from then on, so it may trust its memory.
			// Unregistered, it reads every record from the table.
			err := st.taken.Register(lctx)
			if err != nil {
				st.logger.Warn("pgreplica: this replica could not register as listening: it reads every session record from the database until it listens again",
					"error", err)
			}
			st.cache.reset(err == nil)
			st.echoes.On()
			if gap {
				st.logger.Warn("pgreplica: session relays may have been lost while reconnecting: messages for streams held here and answers awaited here may be missing; session records are read again")
			}
		},
		OnLost: func() {
			st.cache.reset(false)
			st.echoes.Off()
		},
		Notify: func(payload string) {
			var w relayWire
			if err := json.Unmarshal([]byte(payload), &w); err != nil {
				return
			}
			switch w.Kind {
			case backend.RelayChanged:
				if rec := w.record(); rec != nil && w.Holder != nil {
					st.cache.put(rec, *w.Holder)
				} else {
					st.cache.drop(w.Session)
				}
			case backend.RelayClosed:
				st.cache.drop(w.Session)
			case relayEnded:
				if w.To == st.replica {
					st.taken.Heard(w.Acked, w.Origin)
				}
				return
			case relayStream:
				if w.Holder != nil {
					st.cache.holder(w.Session, *w.Holder)
				} else {
					st.cache.drop(w.Session)
				}
			}
			if w.Origin == st.replica {
				st.echoes.Heard(w.Echo)
				return
			}
			if w.Kind == relayStream {
				if hook := st.heardHook; hook != nil {
					hook(w.Session, w.Kind)
				}
				return
			}
			if w.Row != 0 {
				var body []byte
				if err := st.pool.QueryRow(context.Background(), `SELECT body FROM sake_session_relays WHERE seq = $1`,
					w.Row).Scan(&body); err != nil || json.Unmarshal(body, &w) != nil {
					st.logger.Warn("pgreplica: a large relay could not be read", "row", w.Row, "error", err)
					return
				}
			}
			fn(backend.SessionRelay{Session: w.Session, Kind: w.Kind, Message: w.Message})
			if w.Kind == backend.RelayClosed || (w.Kind == backend.RelayChanged && !w.Fresh) {
				st.taken.Confirm(w.Origin, w.Echo) // the copy here is gone or current
			}
			if hook := st.heardHook; hook != nil {
				hook(w.Session, w.Kind)
			}
		},
	})
	var once sync.Once
	return func() {
		once.Do(func() {
			stopListen()
			st.cache.reset(false)
			st.echoes.Off()
			cancel()
			<-flushed
			<-acked
			st.taken.Unregister()
		})
	}
}
