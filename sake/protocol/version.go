package protocol

// Protocol versions this package speaks.
const (
	// ModernVersion is the 2026-07-28 revision: stateless, every request
	// carries its version and client capabilities in params._meta.
	ModernVersion = "2026-07-28"

	// LegacyVersion is the newest revision of the handshake era
	// (2025-11-25): initialize, sessions and server-initiated requests.
	LegacyVersion = "2025-11-25"
)

// legacyVersions are the handshake-era revisions initialize can negotiate,
// newest first.
var legacyVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// supportedVersions lists every revision served, newest first, as
// server/discover and -32022 errors report it.
var supportedVersions = append([]string{ModernVersion}, legacyVersions...)

// SupportedVersions returns every protocol revision the server speaks,
// newest first.
func SupportedVersions() []string { return append([]string(nil), supportedVersions...) }

// IsLegacyVersion reports whether v is a revision of the handshake era that
// initialize can negotiate.
func IsLegacyVersion(v string) bool {
	for _, l := range legacyVersions {
		if l == v {
			return true
		}
	}
	return false
}

// IsModernVersion reports whether v is a revision of the stateless era.
func IsModernVersion(v string) bool { return v == ModernVersion }

// Era tells which generation of the protocol a message belongs to.
type Era uint8

const (
	// EraUnknown is the era of a message that could not be classified (for
	// example, one that is not valid JSON).
	EraUnknown Era = iota
	// EraModern is 2026-07-28 and later: stateless, per-request _meta.
	EraModern
	// EraLegacy is 2025-11-25 and earlier: initialize and sessions.
	EraLegacy
)

// String returns "modern", "legacy" or "unknown".
func (e Era) String() string {
	switch e {
	case EraModern:
		return "modern"
	case EraLegacy:
		return "legacy"
	}
	return "unknown"
}
