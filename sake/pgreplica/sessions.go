package pgreplica

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/internal/pglisten"
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
}

// sessionStore is a sake.SessionStore on PostgreSQL.
type sessionStore struct {
	pool    *pgxpool.Pool
	replica string
	logger  *slog.Logger
}

var _ sake.SessionStore = (*sessionStore)(nil)

// relayWire is a relay in a NOTIFY payload: inline, or the seq of its row.
type relayWire struct {
	Origin  string          `json:"o"`
	Session string          `json:"s,omitempty"`
	Kind    string          `json:"k,omitempty"`
	Message json.RawMessage `json:"m,omitempty"`
	Row     int64           `json:"r,omitempty"`
}

func (st *sessionStore) SaveSession(ctx context.Context, rec *sake.SessionRecord) error {
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
	_, err = st.pool.Exec(ctx, `INSERT INTO sake_sessions (id, owner, quota_key, version, capabilities,
			client_info, offers, initialized, log_level, subscriptions)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
		ON CONFLICT (id) DO UPDATE SET initialized = excluded.initialized,
			log_level = excluded.log_level, subscriptions = excluded.subscriptions, last_used = now()`,
		rec.ID, rec.Owner, rec.Key, rec.Version, caps, info, offers, rec.Initialized, rec.LogLevel, subs)
	if err != nil {
		return fmt.Errorf("pgreplica: storing session: %w", err)
	}
	return nil
}

const sessionColumns = `id, owner, quota_key, version, capabilities, client_info, offers,
	initialized, log_level, subscriptions, last_used`

func (st *sessionStore) TouchSession(ctx context.Context, id string) (*sake.SessionRecord, error) {
	// last_used is written at most every touchEvery per session: the
	// common message reads its record and writes nothing.
	return scanSession(st.pool.QueryRow(ctx, `WITH touched AS (
			UPDATE sake_sessions SET last_used = now()
			WHERE id = $1 AND last_used < now() - make_interval(secs => $2))
		SELECT `+sessionColumns+` FROM sake_sessions WHERE id = $1`, id, touchEvery.Seconds()))
}

func (st *sessionStore) LoadSession(ctx context.Context, id string) (*sake.SessionRecord, error) {
	return scanSession(st.pool.QueryRow(ctx, `SELECT `+sessionColumns+` FROM sake_sessions WHERE id = $1`, id))
}

func (st *sessionStore) DeleteSession(ctx context.Context, id string) error {
	if _, err := st.pool.Exec(ctx, `DELETE FROM sake_sessions WHERE id = $1`, id); err != nil {
		return fmt.Errorf("pgreplica: deleting session: %w", err)
	}
	return nil
}

func scanSession(row pgx.Row) (*sake.SessionRecord, error) {
	var rec sake.SessionRecord
	var caps, info []byte
	err := row.Scan(&rec.ID, &rec.Owner, &rec.Key, &rec.Version, &caps, &info, &rec.Offers,
		&rec.Initialized, &rec.LogLevel, &rec.Subscriptions, &rec.LastUsed)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("pgreplica: reading session: %w", err)
	}
	if err := json.Unmarshal(caps, &rec.Capabilities); err != nil {
		return nil, fmt.Errorf("pgreplica: decoding session capabilities: %w", err)
	}
	if err := json.Unmarshal(info, &rec.ClientInfo); err != nil {
		return nil, fmt.Errorf("pgreplica: decoding session client info: %w", err)
	}
	return &rec, nil
}

func (st *sessionStore) Relay(ctx context.Context, r sake.SessionRelay) error {
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
	if _, err := st.pool.Exec(ctx, `SELECT pg_notify($1, $2)`, relayChannel, string(payload)); err != nil {
		return fmt.Errorf("pgreplica: relaying: %w", err)
	}
	return nil
}

func (st *sessionStore) ListenRelays(fn func(sake.SessionRelay)) (stop func()) {
	return pglisten.Start(pglisten.Config{
		Conn:    st.pool.Config().ConnConfig,
		Channel: relayChannel,
		Logger:  st.logger,
		OnListen: func(_ context.Context, gap bool) {
			if gap {
				st.logger.Warn("pgreplica: session relays may have been lost while reconnecting: messages for streams held here and answers awaited here may be missing")
			}
		},
		Notify: func(payload string) {
			var w relayWire
			if err := json.Unmarshal([]byte(payload), &w); err != nil || w.Origin == st.replica {
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
			fn(sake.SessionRelay{Session: w.Session, Kind: w.Kind, Message: w.Message})
		},
	})
}
