package sake

import (
	"fmt"
	"time"
)

// Limits holds every bound of a server that its callers can grow: the
// sessions they open, the requests they run at once, the resources they
// subscribe to, the pages they list, the questions a tool asks them and
// the skills the server serves. Give it with WithLimits.
//
// A zero field keeps its default, so Limits{MaxInFlight: 32} changes one
// bound. A negative field removes the cap where its documentation says so;
// elsewhere New fails with a *ConstructionError naming the field.
type Limits struct {
	// MaxSessions caps the legacy sessions of the server (default 10000);
	// negative removes the cap. At the cap, initialize evicts its owner's
	// least recently used idle session; when the owner has none idle,
	// that of the owner holding the most sessions, if it holds more than
	// one beyond the newcomer; otherwise it is refused with
	// CodeServerBusy and TooManySessionsMessage (HTTP 503, Reply.Cause
	// ErrTooManySessions).
	MaxSessions int

	// MaxSessionsPerOwner caps the legacy sessions of one owner (default
	// 100); negative removes the cap. Anonymous callers count per remote
	// address (Inbound.RemoteAddr; an IPv6 address by its /64); without
	// one (stdio, in memory) they have no per-owner cap. At the cap,
	// initialize closes the owner's least recently used idle session, or
	// is refused with CodeServerBusy when none is idle.
	MaxSessionsPerOwner int

	// MaxInFlight caps the requests running at once in one legacy session
	// or on one connection (default 256); negative removes the cap. A
	// request beyond it is refused with CodeServerBusy.
	MaxInFlight int

	// MaxSubscriptions caps the resources one legacy session subscribes
	// to at once (default 256); negative removes the cap. A
	// resources/subscribe beyond it is refused with -32602 until the
	// session unsubscribes from one; subscribing again to a URI it holds
	// is not. It caps the URIs one subscriptions/listen names too.
	MaxSubscriptions int

	// MaxSubscriptionURIBytes caps the length of a URI a legacy session
	// subscribes to (default 2048 bytes); negative removes the cap. A
	// longer one is refused with -32602.
	MaxSubscriptionURIBytes int

	// PageSize is how many items one page of tools/list, prompts/list,
	// resources/list, resources/templates/list and tasks/list holds at
	// most (default 1000, so most servers answer a list in one round
	// trip); negative lifts the count limit. Whatever the count, a page
	// ends before the item that would take its JSON past 4 MiB (every
	// page holds at least one item), and the rest follows its cursor.
	PageSize int

	// AskTimeout is how long a legacy request waits for the client to
	// answer a question it sent (elicitation, sampling, roots); default
	// 10 minutes. At the deadline the question fails. It cannot be
	// removed: a negative value fails New.
	AskTimeout time.Duration

	// RequestStateTTL is how long a modern client has to answer a tool's
	// questions: the lifetime of the signed requestState (default 10
	// minutes). An expired state is refused with -32602. It cannot be
	// removed: a negative value fails New.
	RequestStateTTL time.Duration

	// MaxSingleUseStates caps how many redeemed single-use requestStates
	// (ToolDef.SingleUseState) the server remembers until they expire
	// (default 100000, about 100 bytes each); a retry that would need one
	// more is refused with CodeServerBusy. It cannot be removed: a
	// negative value fails New.
	MaxSingleUseStates int

	// MaxSkillFiles caps the files of one skill served with Skills,
	// SKILL.md included (default 512). A skill beyond it fails New, named.
	// It cannot be removed: a negative value fails New.
	MaxSkillFiles int

	// MaxSkillBytes caps the bytes of one skill's files together (default
	// 16 MiB). A skill beyond it fails New, named. It cannot be removed:
	// a negative value fails New.
	MaxSkillBytes int

	// MaxSkillFrontmatterBytes caps the size of a SKILL.md's frontmatter
	// (default 64 KiB), both as written and as the JSON its skills/list
	// entry carries (aliases expand it); negative removes the cap. A
	// skill beyond it fails New, named: keep long text in the body of
	// SKILL.md, which clients read with resources/read.
	MaxSkillFrontmatterBytes int
}

// The defaults of Limits.
const (
	defaultMaxSessions              = 10000
	defaultMaxSessionsPerOwner      = 100
	defaultMaxInFlight              = 256
	defaultMaxSubscriptions         = 256
	defaultMaxSubscriptionURIBytes  = 2048
	defaultPageSize                 = 1000
	defaultAskTimeout               = 10 * time.Minute
	defaultRequestStateTTL          = 10 * time.Minute
	defaultMaxSingleUseStates       = 100_000
	defaultMaxSkillFiles            = 512
	defaultMaxSkillBytes            = 16 << 20
	defaultMaxSkillFrontmatterBytes = 64 << 10
)

// WithLimits sets the server's bounds. A zero field keeps the default (or
// what an earlier WithLimits set): given twice, the later call's non-zero
// fields override the earlier one's, and its zero fields leave them be.
func WithLimits(l Limits) Option {
	return func(o *options) {
		c := &o.limits
		override(&c.MaxSessions, l.MaxSessions)
		override(&c.MaxSessionsPerOwner, l.MaxSessionsPerOwner)
		override(&c.MaxInFlight, l.MaxInFlight)
		override(&c.MaxSubscriptions, l.MaxSubscriptions)
		override(&c.MaxSubscriptionURIBytes, l.MaxSubscriptionURIBytes)
		override(&c.PageSize, l.PageSize)
		override(&c.AskTimeout, l.AskTimeout)
		override(&c.RequestStateTTL, l.RequestStateTTL)
		override(&c.MaxSingleUseStates, l.MaxSingleUseStates)
		override(&c.MaxSkillFiles, l.MaxSkillFiles)
		override(&c.MaxSkillBytes, l.MaxSkillBytes)
		override(&c.MaxSkillFrontmatterBytes, l.MaxSkillFrontmatterBytes)
	}
}

// override sets *dst to v unless v is zero.
func override[T int | time.Duration](dst *T, v T) {
	if v != 0 {
		*dst = v
	}
}

// check reports the fields that are negative where the bound cannot be
// removed.
func (l *Limits) check() error {
	var problems []string
	fixed := func(name string, negative bool, v any) {
		if negative {
			problems = append(problems, fmt.Sprintf("Limits.%s is %v: this bound cannot be removed; give a positive value, or 0 for the default", name, v))
		}
	}
	fixed("AskTimeout", l.AskTimeout < 0, l.AskTimeout)
	fixed("RequestStateTTL", l.RequestStateTTL < 0, l.RequestStateTTL)
	fixed("MaxSingleUseStates", l.MaxSingleUseStates < 0, l.MaxSingleUseStates)
	fixed("MaxSkillFiles", l.MaxSkillFiles < 0, l.MaxSkillFiles)
	fixed("MaxSkillBytes", l.MaxSkillBytes < 0, l.MaxSkillBytes)
	if problems != nil {
		return &ConstructionError{Type: "the limits", Problems: problems}
	}
	return nil
}

// capOf is the cap a field n of Limits sets with default def: def for 0,
// 0 (no cap) for a negative n, n otherwise.
func capOf(n, def int) int {
	switch {
	case n < 0:
		return 0
	case n > 0:
		return n
	}
	return def
}

// orDefault is d, or def when d is 0.
func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// pageSize is the most items a list page holds; 0 for no count limit.
func (s *Server) pageSize() int { return capOf(s.opts.limits.PageSize, defaultPageSize) }
