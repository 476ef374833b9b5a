package pgstore

import (
	"bytes"
	"maps"
	"sync"

	"github.com/sakemcp/sake-go/sake/backend"
)

// DefaultCacheBytes is how many bytes of tasks a listening Store keeps in
// memory when CacheBytes is not given.
const DefaultCacheBytes = 16 << 20

// entryOverhead is what an entry costs beyond its variable fields, roughly.
const entryOverhead = 256

// cache is what a Store knows of tasks without reading the table: the
// tasks it wrote and those whose changes the feed delivered, each at the
// version the table held. It is trusted only while the feed listens:
// losing the LISTEN connection empties it, and it fills again only once
// the LISTEN is back, since a change made meanwhile was announced to no
// one here.
type cache struct {
	limit int // bytes; < 0 keeps nothing

	mu        sync.Mutex
	listening bool
	// forgets counts the entries dropped (deleted, evicted, emptied): a
	// read of the table that began before one may have read a version a
	// dropped entry had superseded, and fills nothing.
	forgets uint64
	entries map[string]*entry
	bytes   int
}

// entry is one task as this replica knows it.
type entry struct {
	version int64
	task    *backend.Task // nil: the version is known, not its content
	gone    bool          // deleted
	size    int
}

func newCache(limit int) *cache {
	return &cache{limit: limit, entries: make(map[string]*entry)}
}

// lookup returns a copy of task id and its version when the cache knows
// its latest state; gone says it knows the task was deleted.
func (c *cache) lookup(id string) (t *backend.Task, version int64, gone, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entries[id]
	switch {
	case !c.listening || e == nil:
		return nil, 0, false, false
	case e.gone:
		return nil, 0, true, true
	case e.task == nil:
		return nil, 0, false, false
	}
	return cloneTask(e.task), e.version, false, true
}

// mark returns what a read of the table beginning now passes to fill.
func (c *cache) mark() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.forgets
}

// fill keeps t at version, as read from the table since mark: unless an
// entry was dropped meanwhile or a newer version is known.
func (c *cache) fill(t *backend.Task, version int64, mark uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.forgets == mark {
		c.setLocked(t.ID, t, version)
	}
}

// put keeps t at version, as this replica wrote it or the feed announced
// it, unless a newer version is known.
func (c *cache) put(t *backend.Task, version int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.setLocked(t.ID, t, version)
}

// stale records that task id is at version, content unknown: the next
// read goes to the table.
func (c *cache) stale(id string, version int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.setLocked(id, nil, version)
}

// setLocked keeps task id (t, or unknown content when t is nil) at
// version unless it is deleted or known at that version or a newer one.
func (c *cache) setLocked(id string, t *backend.Task, version int64) {
	if !c.listening || c.limit < 0 {
		return
	}
	old := c.entries[id]
	if old != nil && (old.gone || old.version > version || (old.version == version && (old.task != nil || t == nil))) {
		return
	}
	e := &entry{version: version, size: entryOverhead + len(id)}
	if t != nil {
		e.task = cloneTask(t)
		e.size += taskSize(t)
	}
	c.replaceLocked(id, old, e)
}

// gone records that task id was deleted.
func (c *cache) gone(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.listening || c.limit < 0 {
		return
	}
	c.replaceLocked(id, c.entries[id], &entry{gone: true, size: entryOverhead + len(id)})
}

// replaceLocked puts e in old's place, then evicts entries until the
// cache is within its limit.
func (c *cache) replaceLocked(id string, old, e *entry) {
	if old != nil {
		c.bytes -= old.size
	}
	c.entries[id] = e
	c.bytes += e.size
	if c.bytes <= c.limit {
		return
	}
	c.forgets++
	for k, v := range c.entries { // an arbitrary victim each time
		if c.bytes <= c.limit {
			break
		}
		delete(c.entries, k)
		c.bytes -= v.size
	}
}

// drop forgets task id: a write whose outcome is unknown.
func (c *cache) drop(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.entries[id]; e != nil {
		delete(c.entries, id)
		c.bytes -= e.size
		c.forgets++
	}
}

// reset empties the cache and says whether the feed listens now.
func (c *cache) reset(listening bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.entries)
	c.bytes = 0
	c.forgets++
	c.listening = listening
}

// len returns how many tasks the cache holds an entry for.
func (c *cache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// taskSize is the size of t's variable fields.
func taskSize(t *backend.Task) int {
	n := len(t.Owner) + len(t.Tool) + len(t.StatusMessage) + len(t.Result)
	for k, v := range t.InputRequests {
		n += len(k) + len(v)
	}
	if t.Error != nil {
		n += len(t.Error.Message) + 64
	}
	return n
}

// cloneTask returns a deep copy of t (an error's Data is shared: nothing
// here changes it).
func cloneTask(t *backend.Task) *backend.Task {
	c := *t
	if t.InputRequests != nil {
		c.InputRequests = maps.Clone(t.InputRequests)
		for k, v := range c.InputRequests {
			c.InputRequests[k] = bytes.Clone(v)
		}
	}
	if t.Result != nil {
		c.Result = bytes.Clone(t.Result)
	}
	if t.Error != nil {
		e := *t.Error
		c.Error = &e
	}
	return &c
}
