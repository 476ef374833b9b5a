package backend

import (
	"context"
	"encoding/json"
	"time"

	"github.com/sakemcp/sake-go/sake/protocol"
)

// SessionStore shares legacy sessions between the replicas of a server, so
// that any replica serves any message of a session created on another,
// behind a load balancer without sticky sessions. sake/pgreplica provides
// one on PostgreSQL; a server takes one with the sake.SessionStore option.
//
// The store keeps what initialize negotiated and what later messages
// change (the record); relays carry, between replicas, what only the
// replica holding a stream or a waiting request can act on. A server with a
// store reads the record on every message of a shared session it handles,
// so a log level or subscription set on one replica holds at once on the
// others.
type SessionStore interface {
	// SaveSession creates or replaces the record of rec.ID.
	SaveSession(ctx context.Context, rec *SessionRecord) error
	// TouchSession marks session id as used now and returns its record,
	// or nil (and no error) when there is none. An error says the store
	// could not tell: the message is refused with "retry later" (HTTP
	// 503), not as a session that is gone, so only a store that knows the
	// session does not exist may answer nil. An error with a method
	// RetryAfter() time.Duration says when to retry.
	TouchSession(ctx context.Context, id string) (*SessionRecord, error)
	// LoadSession returns the record of session id without touching it,
	// or nil (and no error) when there is none.
	LoadSession(ctx context.Context, id string) (*SessionRecord, error)
	// DeleteSession forgets session id; an unknown id is no error.
	DeleteSession(ctx context.Context, id string) error
	// Relay sends r to every other replica.
	Relay(ctx context.Context, r SessionRelay) error
	// ListenRelays calls fn with every relay another replica sends, one
	// at a time, until stop is called. It returns once it is listening.
	ListenRelays(fn func(SessionRelay)) (stop func())
}

// SessionStreamStore is a SessionStore that also records which replica
// holds a session's own stream (its GET), so that a message for a stream
// no replica holds is not relayed at all. A replica's server tells it each
// time it starts or stops holding one, in the background; until the
// change has reached the others, a message raised there follows the state
// they knew.
type SessionStreamStore interface {
	SessionStore
	// SessionStreamHeld records that this replica now holds (held) or no
	// longer holds session id's stream.
	SessionStreamHeld(ctx context.Context, id string, held bool) error
}

// SessionRecord is the shared state of a legacy session.
type SessionRecord struct {
	ID            string
	Version       string
	Owner         string
	Key           string // what it counts against for quotas
	Capabilities  protocol.ClientCapabilities
	ClientInfo    protocol.Implementation
	Offers        []string
	Initialized   bool
	LogLevel      int32 // severity, 0 for none
	Subscriptions []string
	LastUsed      time.Time
}

// What a SessionRelay asks of the replica that can act on it.
const (
	// RelaySend: deliver Message on the session's own stream, if this
	// replica holds it.
	RelaySend = "send"
	// RelayAnswer: Message is the client's answer to a request this
	// replica may be waiting for.
	RelayAnswer = "answer"
	// RelayCancel: Message is the id of a request to cancel, if it runs
	// here.
	RelayCancel = "cancel"
	// RelayChanged: the record changed (subscriptions, log level); a
	// replica holding the session's stream reloads it.
	RelayChanged = "changed"
	// RelayClosed: the session ended; every replica drops its copy.
	RelayClosed = "closed"
)

// SessionRelay is a message about a session from one replica to the
// others.
type SessionRelay struct {
	Session string
	Kind    string
	Message json.RawMessage
}
