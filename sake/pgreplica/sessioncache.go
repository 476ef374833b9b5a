package pgreplica

import (
	"sync"

	"github.com/sakemcp/sake-go/sake/backend"
)

// DefaultSessionCache is how many legacy session records a replica keeps
// in memory when SessionCache is not given.
const DefaultSessionCache = 10000

// sessionCache holds the session records this replica read or was told of
// by the feed, trusted only while the feed listens: losing the LISTEN
// connection empties it, since changes announced meanwhile are lost.
type sessionCache struct {
	limit int // records; < 0 keeps none

	mu        sync.Mutex
	listening bool
	// forgets counts the records dropped or replaced by the feed: a read
	// of the table that began before one fills nothing, as it may have
	// read what the feed has superseded since.
	forgets uint64
	records map[string]*cachedSession
	touched map[string]struct{} // used since the last flush
}

// cachedSession is a record kept in memory, with the replica holding the
// session's stream ("" for none).
type cachedSession struct {
	rec    backend.SessionRecord
	holder string
}

func newSessionCache(limit int) *sessionCache {
	return &sessionCache{limit: limit, records: make(map[string]*cachedSession),
		touched: make(map[string]struct{})}
}

// touch returns a copy of session id's record and marks it used, or nil
// when it is not known here.
func (c *sessionCache) touch(id string) *backend.SessionRecord {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.records[id]
	if e == nil || !c.listening {
		return nil
	}
	c.touched[id] = struct{}{}
	cp := e.rec
	return &cp
}

// noStream reports whether this replica knows that no replica holds
// session id's stream.
func (c *sessionCache) noStream(id string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.records[id]
	return e != nil && c.listening && e.holder == ""
}

// holder records who holds session id's stream, as the feed announced it,
// if the record is kept here.
func (c *sessionCache) holder(id, holder string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.forgets++
	if e := c.records[id]; e != nil {
		e.holder = holder
	}
}

// mark returns what a read of the table beginning now passes to fill.
func (c *sessionCache) mark() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.forgets
}

// fill keeps rec and its stream's holder, read from the table since mark,
// unless the feed changed anything meanwhile or already gave a record.
func (c *sessionCache) fill(rec *backend.SessionRecord, holder string, mark uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.forgets == mark && c.records[rec.ID] == nil {
		c.keepLocked(rec, holder)
	}
}

// put keeps rec and its stream's holder as the feed announced them.
func (c *sessionCache) put(rec *backend.SessionRecord, holder string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.forgets++
	c.keepLocked(rec, holder)
}

func (c *sessionCache) keepLocked(rec *backend.SessionRecord, holder string) {
	if !c.listening || c.limit < 0 {
		return
	}
	if _, ok := c.records[rec.ID]; !ok && len(c.records) >= c.limit {
		for id := range c.records { // an arbitrary one makes room (its last use is still written)
			delete(c.records, id)
			break
		}
		c.forgets++
	}
	c.records[rec.ID] = &cachedSession{rec: *rec, holder: holder}
}

// drop forgets session id's record.
func (c *sessionCache) drop(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.records, id)
	c.forgets++
}

// takeTouched returns the sessions used since the last call, and forgets
// them.
func (c *sessionCache) takeTouched() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.touched) == 0 {
		return nil
	}
	ids := make([]string, 0, len(c.touched))
	for id := range c.touched {
		ids = append(ids, id)
	}
	clear(c.touched)
	return ids
}

// reset empties the cache (the last uses still to write stay) and says
// whether the feed listens now.
func (c *sessionCache) reset(listening bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.records)
	c.forgets++
	c.listening = listening
}

// len returns how many records the cache holds.
func (c *sessionCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.records)
}
