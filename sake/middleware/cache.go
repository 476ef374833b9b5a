package middleware

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sakemcp/sake-go/sake"
)

// The defaults of a Cache.
const (
	// DefaultCacheMaxBytes is how many bytes of results a Cache holds.
	DefaultCacheMaxBytes = 32 << 20
	// DefaultCacheMaxEntries is how many results a Cache holds.
	DefaultCacheMaxEntries = 10000
	// DefaultCacheTTL is how long a result is kept when neither a
	// CacheRule nor the component says.
	DefaultCacheTTL = time.Minute
	// MaxCachedArgumentBytes is the size of the arguments beyond which a
	// call is not cached: its key would cost more than it saves.
	MaxCachedArgumentBytes = 16 << 10
)

// Cache describes a server-side cache of results: of tools/call for tools
// marked ReadOnly (sake.ToolDef.ReadOnly) and of resources/read. A result
// is kept under the tool's name or the URI, the arguments in canonical
// form (object keys sorted, so their order does not matter) and, when it
// is private, who asked (Key). Errors and isError results are never kept,
// nor the interim answers of a call that asks the client something or
// becomes a task, nor the results of a tool whose transform computes a
// hidden argument from the request (sake.ArgTransform.ValueFunc): what it
// ran with is not in the key.
//
// Whether a result is private follows the component: a resource has the
// server's cacheScope (sake.CacheHints; "public" unless the server says
// "private"), a tool's result is private, and a CacheRule may say
// otherwise. A private result is served only to the subject it was made
// for; a public one to anyone the component's requirement admits (the
// requirement is checked on every hit, before the cache answers).
//
// Kept results are dropped when their TTL passes, when the resource is
// updated (Server.ResourceUpdated, Context.ResourceUpdated) and when the
// list of their kind changes (tools or resources list_changed), whether
// the change is raised on this server or, through the server's broker
// (sake.Broker), on another replica. Between replicas a result may
// thus be served for as long as the broker takes to carry the change.
//
// A read-only tool that asks its caller something (Context.Elicit,
// Sample, ListRoots) has its final result kept like any other, so the
// same caller is not asked again while it is; give such a tool a rule
// with a negative TTL if it must ask every time. One Middleware may serve
// several servers: it keeps their results apart.
type Cache struct {
	// MaxBytes bounds the size of the kept results, counted as their
	// text, encoded binary data and keys (default
	// DefaultCacheMaxBytes, 32 MiB). The least recently used results
	// give way to new ones.
	MaxBytes int
	// MaxEntries bounds how many results are kept (default
	// DefaultCacheMaxEntries, 10000).
	MaxEntries int
	// TTL is how long a result is kept when no CacheRule and no hint of
	// the component (the read ttlMs of sake.CacheHints, when positive)
	// says (default DefaultCacheTTL, one minute).
	TTL time.Duration
	// Rules set the TTL and scope of some tools and resources.
	Rules []CacheRule
	// Key decides whose private results are whose (default SubjectOf).
	Key KeyFunc
	// Clock is the source of time for TTLs (default time.Now).
	Clock func() time.Time
}

// CacheRule sets how the results of some tools and resources are kept.
type CacheRule struct {
	// Tools and URIs name the components the rule is for: tool names,
	// and resource URIs exactly as read.
	Tools []string
	URIs  []string
	// TTL, when positive, is how long their results are kept; when
	// negative, they are not kept at all.
	TTL time.Duration
	// Scope is "public" (one result for every caller), "private" (one
	// per subject) or "" (follow the component).
	Scope string
}

// The scopes a CacheRule may give.
const (
	ScopePublic  = "public"
	ScopePrivate = "private"
)

// Middleware returns the cache as middleware. Put it after the rate
// limiter, so that a result served from the cache still counts against
// the caller's limits, and before ToolLimits, so that it holds no slot.
// It fails when a rule has an unknown scope or a component is in two
// rules.
func (c Cache) Middleware() (sake.Middleware, error) {
	rc := &resultCache{maxBytes: c.MaxBytes, maxEntries: c.MaxEntries, ttl: c.TTL, key: c.Key, now: c.Clock,
		rules: map[string]*CacheRule{}, entries: map[string]*cacheEntry{}, byURI: map[string]map[*cacheEntry]struct{}{}}
	if rc.maxBytes <= 0 {
		rc.maxBytes = DefaultCacheMaxBytes
	}
	if rc.maxEntries <= 0 {
		rc.maxEntries = DefaultCacheMaxEntries
	}
	if rc.ttl <= 0 {
		rc.ttl = DefaultCacheTTL
	}
	if rc.key == nil {
		rc.key = SubjectOf
	}
	if rc.now == nil {
		rc.now = time.Now
	}
	for i := range c.Rules {
		r := &c.Rules[i]
		if r.Scope != "" && r.Scope != ScopePublic && r.Scope != ScopePrivate {
			return nil, fmt.Errorf("middleware: cache rule scope %q: use %q, %q or \"\"", r.Scope, ScopePublic, ScopePrivate)
		}
		for _, k := range ruleKeys(r) {
			if rc.rules[k] != nil {
				return nil, fmt.Errorf("middleware: %s is in two cache rules; name each component once", k[1:])
			}
			rc.rules[k] = r
		}
	}
	return rc.middleware, nil
}

// ruleKeys are the keys of a rule's components in resultCache.rules:
// "t" before a tool name, "r" before a URI.
func ruleKeys(r *CacheRule) []string {
	var keys []string
	for _, t := range r.Tools {
		keys = append(keys, "t"+t)
	}
	for _, u := range r.URIs {
		keys = append(keys, "r"+u)
	}
	return keys
}

type resultCache struct {
	maxBytes, maxEntries int
	ttl                  time.Duration
	key                  KeyFunc
	now                  func() time.Time
	rules                map[string]*CacheRule

	// gen counts invalidations: a result computed while one happened is
	// not kept, since it may predate the change.
	gen atomic.Uint64

	watchedMu sync.Mutex
	last      atomic.Pointer[watchedServer] // the server watched last, checked without the lock
	watched   map[*sake.Server]uint32       // the servers watched, by number

	mu      sync.Mutex
	entries map[string]*cacheEntry
	byURI   map[string]map[*cacheEntry]struct{}
	lru     cacheList
	bytes   int
}

func (rc *resultCache) middleware(next sake.Handler) sake.Handler {
	return func(ctx context.Context, req *sake.Request) (any, error) {
		if req.Method != "tools/call" && req.Method != "resources/read" {
			return next(ctx, req)
		}
		srv := req.Server()
		if srv == nil {
			return next(ctx, req)
		}
		hint, ok := srv.CacheHint(req)
		if !ok {
			return next(ctx, req)
		}
		var buf [256]byte
		// A middleware given to several servers keeps each one's results
		// apart: the key starts with the server's number.
		n := rc.watch(srv)
		key, ttl, ok := rc.keyOf(append(buf[:0], byte(n), byte(n>>8), byte(n>>16), byte(n>>24)), req, hint)
		if !ok {
			return next(ctx, req)
		}
		if res, ok := rc.get(key); ok {
			return res, nil
		}
		gen := rc.gen.Load()
		res, err := next(ctx, req)
		if err == nil {
			if size, ok := cachedSize(res); ok {
				rc.put(string(key), req, res, size, ttl, gen)
			}
		}
		return res, err
	}
}

// keyOf appends the key of the request's result to b, and says how long
// it is kept; false when it is not kept.
func (rc *resultCache) keyOf(b []byte, req *sake.Request, hint sake.CacheHint) ([]byte, time.Duration, bool) {
	p := req.Params
	var rule *CacheRule
	private := true
	if hint.Kind == "tool" {
		if len(p.Arguments) > MaxCachedArgumentBytes {
			return nil, 0, false
		}
		start := len(b)
		b = append(b, 't')
		b = append(b, p.Name...)
		rule = rc.rules[string(b[start:])]
		b = append(b, 0)
		var ok bool
		if b, ok = appendCanonicalArgs(b, p.Arguments); !ok {
			return nil, 0, false
		}
	} else {
		start := len(b)
		b = append(b, 'r')
		b = append(b, p.URI...)
		rule = rc.rules[string(b[start:])]
		private = hint.Scope != ScopePublic
	}
	ttl := rc.ttl
	if hint.TTL > 0 {
		ttl = hint.TTL
	}
	if rule != nil {
		switch {
		case rule.TTL < 0:
			return nil, 0, false
		case rule.TTL > 0:
			ttl = rule.TTL
		}
		if rule.Scope != "" {
			private = rule.Scope == ScopePrivate
		}
	}
	b = append(b, 0)
	if private {
		s := rc.key(req)
		b = append(b, byte('0'+s.Kind))
		b = append(b, s.ID...)
	}
	return b, ttl, true
}

// watchedServer is a server the cache watches, and its number.
type watchedServer struct {
	srv *sake.Server
	n   uint32
}

// watch makes sure the cache hears the broadcasts of srv (those raised on
// it and those its broker brings from the other replicas), and returns
// the server's number.
func (rc *resultCache) watch(srv *sake.Server) uint32 {
	if w := rc.last.Load(); w != nil && w.srv == srv {
		return w.n
	}
	rc.watchedMu.Lock()
	defer rc.watchedMu.Unlock()
	n, ok := rc.watched[srv]
	if !ok {
		if rc.watched == nil {
			rc.watched = map[*sake.Server]uint32{}
		}
		n = uint32(len(rc.watched))
		rc.watched[srv] = n
		srv.Watch(rc.invalidate)
	}
	rc.last.Store(&watchedServer{srv: srv, n: n})
	return n
}

// invalidate drops what a broadcast makes stale.
func (rc *resultCache) invalidate(b sake.Broadcast) {
	rc.gen.Add(1)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	switch {
	case b.URI != "":
		for e := range rc.byURI[b.URI] {
			rc.remove(e)
		}
	case b.List == sake.ListTools:
		rc.removeKind('t')
	case b.List == sake.ListResources:
		rc.removeKind('r')
	}
}

func (rc *resultCache) removeKind(kind byte) {
	for _, e := range rc.entries {
		if e.key[4] == kind { // after the server's number
			rc.remove(e)
		}
	}
}

// get returns the live result kept under key.
func (rc *resultCache) get(key []byte) (any, bool) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	e := rc.entries[string(key)]
	if e == nil {
		return nil, false
	}
	if !rc.now().Before(e.expires) {
		rc.remove(e)
		return nil, false
	}
	rc.lru.moveToFront(e)
	return e.result, true
}

// put keeps a result computed since generation gen, if nothing was
// invalidated meanwhile, evicting the least recently used to make room.
func (rc *resultCache) put(key string, req *sake.Request, res any, size int, ttl time.Duration, gen uint64) {
	size += len(key) + entryOverhead
	if size > rc.maxBytes {
		return
	}
	e := &cacheEntry{key: key, result: res, size: size, expires: rc.now().Add(ttl)}
	if req.Method == "resources/read" {
		e.uri = req.Params.URI
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.gen.Load() != gen {
		return
	}
	if old := rc.entries[key]; old != nil {
		rc.remove(old)
	}
	for rc.lru.back != nil && (rc.bytes+size > rc.maxBytes || len(rc.entries) >= rc.maxEntries) {
		rc.remove(rc.lru.back)
	}
	rc.entries[key] = e
	rc.bytes += size
	rc.lru.pushFront(e)
	if e.uri != "" {
		set := rc.byURI[e.uri]
		if set == nil {
			set = map[*cacheEntry]struct{}{}
			rc.byURI[e.uri] = set
		}
		set[e] = struct{}{}
	}
}

// remove drops an entry; rc.mu is held.
func (rc *resultCache) remove(e *cacheEntry) {
	delete(rc.entries, e.key)
	rc.bytes -= e.size
	rc.lru.remove(e)
	if e.uri != "" {
		if set := rc.byURI[e.uri]; set != nil {
			delete(set, e)
			if len(set) == 0 {
				delete(rc.byURI, e.uri)
			}
		}
	}
}
