package auth

import (
	"sync"
	"time"
)

// ReplayCache remembers DPoP proof identifiers. Seen records jti until the
// given time and reports whether it was already recorded and not yet
// expired. VerifyDPoPProof passes the proof's jti qualified by its key
// thumbprint ("<jkt>:<jti>"), so clients cannot collide with each other. Implementations must be safe for concurrent use; a server running
// several instances shares one (for example in Redis) so that a proof cannot
// be replayed against a sibling.
type ReplayCache interface {
	Seen(jti string, until time.Time) bool
}

// DefaultReplayCacheSize bounds the in-memory replay cache.
const DefaultReplayCacheSize = 100_000

// NewReplayCache returns an in-memory ReplayCache holding at most
// DefaultReplayCacheSize live entries. Entries expire at their until time;
// when the cache is full the entry closest to expiry is dropped, which
// reopens only that proof's remaining window.
func NewReplayCache() ReplayCache { return newReplayCache(time.Now, DefaultReplayCacheSize) }

func newReplayCache(now func() time.Time, max int) *memoryReplay {
	return &memoryReplay{now: now, max: max, seen: make(map[string]time.Time)}
}

type replayEntry struct {
	key   string
	until time.Time
}

// memoryReplay is a map for lookups plus a FIFO of insertions for expiry.
// Entries enter in roughly increasing until order (proofs are fresh), so
// expiring from the front of the queue is close to exact; a stale queue
// entry whose key was re-recorded later is recognised by its until time.
type memoryReplay struct {
	mu    sync.Mutex
	now   func() time.Time
	max   int
	seen  map[string]time.Time
	queue []replayEntry
	head  int
}

// Seen implements ReplayCache.
func (c *memoryReplay) Seen(key string, until time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	c.expire(now)
	if u, ok := c.seen[key]; ok && now.Before(u) {
		return true
	}
	for len(c.seen) >= c.max && c.head < len(c.queue) {
		c.pop()
	}
	c.seen[key] = until
	c.queue = append(c.queue, replayEntry{key, until})
	return false
}

// expire drops the expired entries at the front of the queue.
func (c *memoryReplay) expire(now time.Time) {
	for c.head < len(c.queue) && !now.Before(c.queue[c.head].until) {
		c.pop()
	}
	// Reclaim the consumed prefix once it dominates the slice.
	if c.head > 1024 && c.head*2 > len(c.queue) {
		n := copy(c.queue, c.queue[c.head:])
		clear(c.queue[n:])
		c.queue = c.queue[:n]
		c.head = 0
	}
}

func (c *memoryReplay) pop() {
	e := c.queue[c.head]
	c.queue[c.head] = replayEntry{}
	c.head++
	if u, ok := c.seen[e.key]; ok && u.Equal(e.until) {
		delete(c.seen, e.key)
	}
}
