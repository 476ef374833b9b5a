package middleware

import (
	"net/netip"

	"github.com/sakemcp/sake-go/sake"
)

// SubjectKind says what a Subject's ID is.
type SubjectKind uint8

// The kinds of subject.
const (
	// SubjectAnonymous is a caller with neither an identity nor a remote
	// address (stdio, the in-memory test client without an identity):
	// all such callers are one subject.
	SubjectAnonymous SubjectKind = iota
	// SubjectUser is a person: the ID is the token's subject (sub).
	SubjectUser
	// SubjectClient is a machine client acting for itself (a token
	// without a subject): the ID is its OAuth client id.
	SubjectClient
	// SubjectAddress is an anonymous caller over HTTP: the ID is its IP
	// address, and for IPv6 its /64 network, so that one host cannot
	// draw on many buckets by changing the low bits of its address.
	SubjectAddress
	// SubjectEveryone is every caller at once: one bucket for the whole
	// server (see Everyone).
	SubjectEveryone
	// SubjectCustom is a key a KeyFunc of the application made.
	SubjectCustom
)

// Subject is who a bucket or a concurrency slot counts for. It is
// comparable, so it can key a map.
type Subject struct {
	Kind SubjectKind
	ID   string
}

// String renders the subject as "sub:alice", "client:ci-bot",
// "addr:203.0.113.7", "anonymous", "everyone" or "custom:…".
func (s Subject) String() string {
	switch s.Kind {
	case SubjectUser, SubjectClient, SubjectAddress, SubjectCustom:
		return s.prefix() + s.ID
	case SubjectEveryone:
		return "everyone"
	}
	return "anonymous"
}

// prefix is what String puts before the ID, or all String says for the
// kinds without one.
func (s Subject) prefix() string {
	switch s.Kind {
	case SubjectUser:
		return "sub:"
	case SubjectClient:
		return "client:"
	case SubjectAddress:
		return "addr:"
	case SubjectCustom:
		return "custom:"
	case SubjectEveryone:
		return "everyone"
	}
	return "anonymous"
}

// KeyFunc decides whose bucket a request draws on.
type KeyFunc func(req *sake.Request) Subject

// SubjectOf is the default KeyFunc: the person (Identity.Subject), else
// the machine client (Identity.ClientID), else the remote address of an
// anonymous caller over HTTP, else SubjectAnonymous. Behind a reverse
// proxy the remote address is the proxy's unless the HTTP stack restores
// the client's (for example with a trusted X-Forwarded-For middleware
// before the MCP handler).
func SubjectOf(req *sake.Request) Subject {
	if id := req.Identity; id != nil {
		if id.Subject != "" {
			return Subject{Kind: SubjectUser, ID: id.Subject}
		}
		if id.ClientID != "" {
			return Subject{Kind: SubjectClient, ID: id.ClientID}
		}
	}
	if a := req.RemoteAddr(); a != "" {
		return Subject{Kind: SubjectAddress, ID: addressKey(a)}
	}
	return Subject{Kind: SubjectAnonymous}
}

// ByClient keys by the OAuth client (Identity.ClientID) whoever it acts
// for, falling back to SubjectOf for callers without one: a limit per
// application rather than per person.
func ByClient(req *sake.Request) Subject {
	if id := req.Identity; id != nil && id.ClientID != "" {
		return Subject{Kind: SubjectClient, ID: id.ClientID}
	}
	return SubjectOf(req)
}

// Everyone keys every request to one subject: a limit for the whole
// server, whoever calls.
func Everyone(*sake.Request) Subject { return Subject{Kind: SubjectEveryone} }

// addressKey is an IPv4 address as it is, an IPv6 address as its /64.
func addressKey(a string) string {
	ip, err := netip.ParseAddr(a)
	if err != nil || !ip.Is6() || ip.Is4In6() {
		return a
	}
	p, err := ip.Prefix(64)
	if err != nil {
		return a
	}
	return p.String()
}
