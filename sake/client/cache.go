package client

import (
	"bytes"
	"container/list"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sakemcp/sake-go/sake/internal/jsonscan"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// The defaults of a Cache's bounds.
const (
	// DefaultCacheEntries bounds the results one Cache holds.
	DefaultCacheEntries = 1024
	// DefaultCacheBytes bounds the bytes of the results one Cache holds
	// (16 MiB); one result larger than a quarter of the bound is not kept.
	DefaultCacheBytes = 16 << 20
	// DefaultCacheMaxTTL bounds how long a result is kept, whatever ttlMs
	// the server allows.
	DefaultCacheMaxTTL = time.Hour
)

// Cache keeps the results of tools/list, prompts/list, resources/list,
// resources/templates/list (each page on its own) and resources/read, as
// long as the server's ttlMs allows, so that a client asking again within
// it (an agent at every turn, a gateway for every caller) sends no
// request. A result the server marks cacheScope "private" is kept for the
// credential the client used (the Authorization and other headers of an
// HTTP transport, the identity of an in-memory one) and served to that
// credential only: when the *http.Client adds headers itself (an oauth2
// Transport, a cookie jar), the headers its last request actually went
// out with (http.Response.Request); a "public" result is served to
// every client of the same server. A list's entries are dropped when the server announces
// that the list changed (notifications/tools/list_changed and its
// siblings; resources/list_changed drops resource reads too), a
// resource's when it announces notifications/resources/updated for it or
// for a resource within it. Results without ttlMs (those of the handshake
// era) are kept only when CacheUnhinted says for how long.
//
// A Cache is safe for concurrent use and may be shared by clients
// (WithCache): entries are keyed by the server (an HTTP endpoint's URL, an
// in-memory server; a stdio server is its process, never shared), the
// protocol revision, the method and its params. It is bounded in entries
// and bytes (DefaultCacheEntries, DefaultCacheBytes), dropping the least
// recently used entries first.
type Cache struct {
	maxEntries int
	maxBytes   int64
	maxTTL     time.Duration
	unhinted   time.Duration
	now        func() time.Time

	mu      sync.Mutex
	entries map[string]*cacheEntry
	lru     list.List // of *cacheEntry, most recently used first
	bytes   int64
	epoch   uint64 // counts the invalidations: a result fetched across one is not kept
}

// cacheEntry is one kept result.
type cacheEntry struct {
	key     string
	server  string
	method  string
	uri     string // resources/read
	raw     []byte
	expires time.Time
	size    int64
	elem    *list.Element
}

// CacheOption configures a Cache.
type CacheOption func(*Cache)

// CacheMaxEntries bounds the results the cache holds (default
// DefaultCacheEntries).
func CacheMaxEntries(n int) CacheOption {
	return func(c *Cache) {
		if n > 0 {
			c.maxEntries = n
		}
	}
}

// CacheMaxBytes bounds the bytes of the results the cache holds (default
// DefaultCacheBytes); a result larger than a quarter of n is not kept.
func CacheMaxBytes(n int64) CacheOption {
	return func(c *Cache) {
		if n > 0 {
			c.maxBytes = n
		}
	}
}

// CacheMaxTTL bounds how long a result is kept, whatever the server's
// ttlMs (default DefaultCacheMaxTTL).
func CacheMaxTTL(d time.Duration) CacheOption {
	return func(c *Cache) {
		if d > 0 {
			c.maxTTL = d
		}
	}
}

// CacheUnhinted keeps the results that carry no ttlMs (those of a
// handshake-era server, which sends no cache hints) for d, as private
// entries, until the server announces a change. The default, 0, keeps
// none of them: only the server knows how long its lists hold.
func CacheUnhinted(d time.Duration) CacheOption {
	return func(c *Cache) {
		if d > 0 {
			c.unhinted = d
		}
	}
}

// CacheClock sets the clock entries expire by (default time.Now): for
// tests.
func CacheClock(now func() time.Time) CacheOption {
	return func(c *Cache) {
		if now != nil {
			c.now = now
		}
	}
}

// NewCache returns an empty cache for WithCache.
func NewCache(opts ...CacheOption) *Cache {
	c := &Cache{maxEntries: DefaultCacheEntries, maxBytes: DefaultCacheBytes, maxTTL: DefaultCacheMaxTTL,
		now: time.Now, entries: map[string]*cacheEntry{}}
	for _, opt := range opts {
		opt(c)
	}
	return c
}

// WithCache makes the client keep list and resources/read results in
// cache as the server's cache hints allow (see Cache). Several clients may
// share one cache. RefreshCache makes the calls of a context skip it.
func WithCache(cache *Cache) Option { return func(o *options) { o.cache = cache } }

type refreshKey struct{}

// RefreshCache returns a context whose calls do not use the results the
// client's cache holds: they ask the server, and keep its answer.
func RefreshCache(ctx context.Context) context.Context {
	return context.WithValue(ctx, refreshKey{}, true)
}

// Len returns the number of results the cache holds, expired ones
// included until they are next looked up or pushed out.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// Bytes returns the bytes the cache's results take, as the bound counts
// them.
func (c *Cache) Bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes
}

// Clear drops every result.
func (c *Cache) Clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.entries)
	c.lru.Init()
	c.bytes = 0
	c.epoch++
}

// cacheable are the methods whose results a Cache keeps.
var cacheable = map[string]bool{
	"tools/list": true, "prompts/list": true, "resources/list": true, "resources/templates/list": true,
	"resources/read": true,
}

// cacheLook is what a call learned from the cache before it was sent.
type cacheLook struct {
	hit      []byte // the kept result, when there was one
	keep     bool   // the result may be kept
	server   string
	base     string // the key of a public entry
	identity string
	epoch    uint64
	method   string
}

// cacheLookup returns the kept result of the call, if any, and what
// storing its result needs.
func (c *Client) cacheLookup(ctx context.Context, method string, p []byte) cacheLook {
	cache := c.o.cache
	if cache == nil || !cacheable[method] || versionOf(ctx) != "" {
		return cacheLook{}
	}
	owner := cacheOwnerOf(c.t)
	if owner == nil {
		return cacheLook{}
	}
	identity, ok := owner.cacheIdentity(ctx)
	if !ok {
		return cacheLook{}
	}
	look := cacheLook{keep: true, server: owner.cacheServer(), identity: identity, method: method}
	look.base = c.cacheKey(ctx, look.server, method, p)
	if ctx.Value(refreshKey{}) != nil {
		look.epoch = cache.currentEpoch()
		return look
	}
	look.hit, look.epoch = cache.get(look.base, look.base+"\x00"+identity)
	return look
}

// cacheKey is the key of a public entry: the server, the revision, the
// method, its params and, for a forwarded call, the capabilities its
// caller declared.
func (c *Client) cacheKey(ctx context.Context, server, method string, p []byte) string {
	var b strings.Builder
	b.WriteString(server)
	b.WriteByte(0)
	b.WriteString(c.Info().ProtocolVersion)
	b.WriteByte(0)
	b.WriteString(method)
	b.WriteByte(0)
	b.Write(p)
	if env := forwardOf(ctx); env != nil {
		caps, _ := json.Marshal(env.Capabilities)
		b.WriteByte(0)
		b.Write(caps)
	}
	return b.String()
}

// cacheStore keeps raw, the result of the call looked up, as its cache
// hints allow.
func (c *Client) cacheStore(ctx context.Context, look cacheLook, raw []byte) {
	if !look.keep {
		return
	}
	cache := c.o.cache
	ttl, scope, hinted := cacheHints(raw)
	if !hinted {
		ttl, scope = cache.unhinted, "private"
	}
	ttl = min(ttl, cache.maxTTL)
	if ttl <= 0 {
		return
	}
	key := look.base
	if scope != "public" {
		// A private result (or one whose scope is not understood) belongs
		// to the credential that fetched it: kept only if the credential
		// did not change during the call.
		owner := cacheOwnerOf(c.t)
		if id, ok := owner.cacheIdentity(ctx); !ok || id != look.identity {
			return
		}
		key = look.base + "\x00" + look.identity
	}
	e := &cacheEntry{key: key, server: look.server, method: look.method, raw: bytes.Clone(raw)}
	if look.method == "resources/read" {
		e.uri = readURI(look.base)
	}
	cache.put(e, ttl, look.epoch)
}

// cacheHints reads a result's ttlMs and cacheScope; hinted is false when
// it has no ttlMs.
func cacheHints(raw []byte) (ttl time.Duration, scope string, hinted bool) {
	_ = jsonscan.Members(raw, func(key, v []byte) error {
		switch string(key) {
		case "ttlMs":
			if n, err := strconv.ParseInt(string(v), 10, 64); err == nil {
				hinted = true
				if n > 0 && n < int64(1<<62)/int64(time.Millisecond) {
					ttl = time.Duration(n) * time.Millisecond
				}
			}
		case "cacheScope":
			scope, _ = jsonscan.Unquote(v)
		}
		return nil
	})
	return ttl, scope, hinted
}

// readURI is the uri of a resources/read key's params.
func readURI(key string) string {
	parts := strings.SplitN(key, "\x00", 5)
	if len(parts) < 4 {
		return ""
	}
	var p struct {
		URI string `json:"uri"`
	}
	_ = json.Unmarshal([]byte(parts[3]), &p)
	return p.URI
}

// cacheNotified drops what a notification of the server says changed.
func (c *Client) cacheNotified(n protocol.Notification) {
	cache := c.o.cache
	if cache == nil || !strings.HasPrefix(n.Method, "notifications/") {
		return
	}
	var methods []string
	uri := ""
	switch n.Method {
	case "notifications/tools/list_changed":
		methods = []string{"tools/list"}
	case "notifications/prompts/list_changed":
		methods = []string{"prompts/list"}
	case "notifications/resources/list_changed":
		methods = []string{"resources/list", "resources/templates/list", "resources/read"}
	case "notifications/resources/updated":
		var p struct {
			URI string `json:"uri"`
		}
		_ = json.Unmarshal(n.Params, &p)
		uri = p.URI
	default:
		return
	}
	owner := cacheOwnerOf(c.t)
	if owner == nil {
		return
	}
	cache.drop(owner.cacheServer(), methods, uri)
}

func (c *Cache) currentEpoch() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.epoch
}

// get returns a copy of the live entry under the first of keys that has
// one, and the epoch.
func (c *Cache) get(keys ...string) ([]byte, uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	for _, k := range keys {
		e := c.entries[k]
		if e == nil {
			continue
		}
		if !now.Before(e.expires) {
			c.remove(e)
			continue
		}
		c.lru.MoveToFront(e.elem)
		return bytes.Clone(e.raw), c.epoch
	}
	return nil, c.epoch
}

// put keeps e for ttl, unless an invalidation happened since epoch or e
// is too large; it pushes out the least recently used entries beyond the
// bounds.
func (c *Cache) put(e *cacheEntry, ttl time.Duration, epoch uint64) {
	e.size = int64(len(e.raw)+len(e.key)+len(e.uri)) + 128
	if e.size > c.maxBytes/4 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.epoch != epoch {
		return // the server announced a change while the result was on its way
	}
	e.expires = c.now().Add(ttl)
	if old := c.entries[e.key]; old != nil {
		c.remove(old)
	}
	e.elem = c.lru.PushFront(e)
	c.entries[e.key] = e
	c.bytes += e.size
	for len(c.entries) > c.maxEntries || c.bytes > c.maxBytes {
		c.remove(c.lru.Back().Value.(*cacheEntry))
	}
}

func (c *Cache) remove(e *cacheEntry) {
	c.lru.Remove(e.elem)
	delete(c.entries, e.key)
	c.bytes -= e.size
}

// drop removes server's entries of methods and, when uri is set, its
// resources/read entries of uri, of a resource within it or of one that
// contains it.
func (c *Cache) drop(server string, methods []string, uri string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epoch++
	for _, e := range c.entries {
		if e.server != server {
			continue
		}
		hit := false
		for _, m := range methods {
			hit = hit || e.method == m
		}
		if uri != "" && e.method == "resources/read" && (strings.HasPrefix(e.uri, uri) || strings.HasPrefix(uri, e.uri)) {
			hit = true
		}
		if hit {
			c.remove(e)
		}
	}
}
