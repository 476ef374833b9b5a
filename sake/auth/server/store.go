package server

import (
	"context"
	"errors"
	"time"
)

// ErrNotFound is what a Store answers for a client, credential or consent
// it does not hold (or no longer holds, once expired).
var ErrNotFound = errors.New("authserver: not found")

// ErrStoreFull is what a Store answers when a bound on what it keeps is
// reached; the endpoint answers 503 with temporarily_unavailable.
var ErrStoreFull = errors.New("authserver: store is full")

// ErrTooManyRegistrations is what RegisterClient answers when the
// registering address holds RegistrationLimits.PerAddress registrations
// never authorized; the endpoint answers 429 with
// temporarily_unavailable.
var ErrTooManyRegistrations = errors.New("authserver: too many unused registrations from this address")

// RegistrationLimits bound dynamic client registration (see
// Config.MaxDynamicClients, Config.MaxRegistrationsPerAddress and
// Config.UnusedClientTTL).
type RegistrationLimits struct {
	// Total bounds the dynamically registered clients held. At it, a
	// registration evicts the oldest client never authorized; only when
	// every one was authorized is it refused (ErrStoreFull).
	Total int
	// PerAddress bounds the clients never authorized that one address
	// (Client.RegisteredFrom) holds; beyond, ErrTooManyRegistrations.
	PerAddress int
	// UnusedTTL is how long a client never authorized is kept.
	UnusedTTL time.Duration
}

// Kind says what a stored Credential is.
type Kind string

// The kinds of Credential.
const (
	// KindRequest is a pending authorization request (from the
	// authorization endpoint or a pushed authorization request) waiting
	// for sign-in and consent.
	KindRequest Kind = "request"
	// KindCode is an authorization code.
	KindCode Kind = "code"
	// KindRefresh is a refresh token.
	KindRefresh Kind = "refresh"
	// KindAccess records an issued access token by its jti, so that
	// revocation and introspection know it.
	KindAccess Kind = "access"
	// KindDevice is a device code (RFC 8628).
	KindDevice Kind = "device"
	// KindUserCode is a device flow's user code, pointing at its device
	// code.
	KindUserCode Kind = "user_code"
)

// Credential is one stored handle: its SHA-256 (never the handle itself),
// what it grants, and its state. Every credential born of one
// authorization shares a Family; revoking the family revokes them all.
type Credential struct {
	// Hash is the base64url SHA-256 of the handle (code, token, jti...).
	Hash string
	// Kind says what the handle is.
	Kind Kind
	// Family groups the credentials of one authorization.
	Family string
	// Expires is when the credential stops being valid; the store may
	// forget it after that.
	Expires time.Time
	// Used is set once the credential was consumed (codes, refresh
	// tokens, device codes).
	Used bool
	// Revoked is set when its family was revoked.
	Revoked bool
	// Grant is what the credential stands for.
	Grant Grant
}

// Grant is an authorization: who (once known), which client, what for.
// Pending requests, codes, refresh tokens and device codes carry one.
type Grant struct {
	ClientID      string    `json:"client_id"`
	RedirectURI   string    `json:"redirect_uri,omitempty"`
	RedirectGiven bool      `json:"redirect_given,omitempty"`
	Scopes        []string  `json:"scopes,omitempty"`
	Resource      []string  `json:"resource,omitempty"`
	State         string    `json:"state,omitempty"`
	Nonce         string    `json:"nonce,omitempty"`
	CodeChallenge string    `json:"code_challenge,omitempty"`
	ACRValues     []string  `json:"acr_values,omitempty"`
	MaxAge        int64     `json:"max_age,omitempty"` // seconds; -1 when absent
	Prompt        []string  `json:"prompt,omitempty"`
	LoginTried    bool      `json:"login_tried,omitempty"`
	Created       time.Time `json:"created"`
	Subject       string    `json:"subject,omitempty"`
	ACR           string    `json:"acr,omitempty"`
	AMR           []string  `json:"amr,omitempty"`
	AuthTime      time.Time `json:"auth_time,omitempty"`
	JKT           string    `json:"jkt,omitempty"` // DPoP key thumbprint the tokens are bound to
	Approved      bool      `json:"approved,omitempty"`
	Denied        bool      `json:"denied,omitempty"`
	DeviceHash    string    `json:"device_hash,omitempty"` // a user code's device code
	LastPoll      time.Time `json:"last_poll,omitempty"`
	Interval      int64     `json:"interval,omitempty"`
}

// Store keeps what the authorization server must remember: clients,
// credentials (by hash) and consents. Implementations must be safe for
// concurrent use, and every method must be atomic: two concurrent
// Consume calls on one hash must not both see Used false. Nothing secret
// is given to a store in clear: handles arrive hashed, client secrets
// hashed (see HashSecret).
//
// NewMemoryStore is the default. Any other implementation (a database)
// should pass the contract in storetest.
type Store interface {
	// PutClient stores a client, replacing one with the same ID.
	PutClient(ctx context.Context, c *Client) error
	// Client returns the client with id, or ErrNotFound.
	Client(ctx context.Context, id string) (*Client, error)
	// CountClients returns how many dynamically registered clients there are.
	CountClients(ctx context.Context) (int, error)
	// RegisterClient stores a new dynamically registered client within
	// lim, atomically: it forgets the clients never authorized that were
	// registered more than lim.UnusedTTL before c.Created, answers
	// ErrTooManyRegistrations when c.RegisteredFrom holds lim.PerAddress
	// clients never authorized, and at lim.Total dynamic clients evicts
	// the oldest one never authorized, or answers ErrStoreFull when
	// every one was.
	RegisterClient(ctx context.Context, c *Client, lim RegistrationLimits) error
	// ClientAuthorized records that the dynamically registered client id
	// was authorized: it is no longer expired or evicted as unused. An
	// unknown id is not an error.
	ClientAuthorized(ctx context.Context, id string) error

	// PutCredential stores c, replacing one with the same hash. A
	// credential of a revoked family is stored revoked.
	PutCredential(ctx context.Context, c *Credential) error
	// Credential returns the credential with hash, or ErrNotFound
	// (also once it expired).
	Credential(ctx context.Context, hash string) (*Credential, error)
	// Consume marks the credential used and returns it as it was before:
	// a result with Used true means it had already been consumed. It
	// answers ErrNotFound for an unknown or expired hash.
	Consume(ctx context.Context, hash string) (*Credential, error)
	// Delete forgets a credential.
	Delete(ctx context.Context, hash string) error
	// RevokeFamily marks every credential of family revoked, now and
	// when stored later.
	RevokeFamily(ctx context.Context, family string) error

	// PutConsent records that subject let client have scopes (replacing
	// what was recorded).
	PutConsent(ctx context.Context, subject, clientID string, scopes []string) error
	// Consent returns the scopes subject let client have, or ErrNotFound.
	Consent(ctx context.Context, subject, clientID string) ([]string, error)
}

// RevocationList is implemented by a Store that can tell from memory
// whether an access token was revoked: the verifier of Server.Verifier
// asks it on every request. NewMemoryStore and pgstore implement it (the
// latter with a feed between replicas). A Store without it costs a
// Credential read per verified request.
type RevocationList interface {
	// AccessRevoked reports whether the access token whose jti hashes to
	// hash (a KindAccess Credential.Hash) belongs to a revoked family.
	// It must answer from memory when nothing was revoked. An error
	// means the store cannot tell now: the verifier answers 503 and the
	// request is refused.
	AccessRevoked(ctx context.Context, hash string) (bool, error)
}
