package middleware

import (
	"context"
	"hash/maphash"
	"sync"
	"time"
)

// DefaultMaxKeys is how many buckets a MemoryBuckets keeps by default.
const DefaultMaxKeys = 100_000

// Rate is a token bucket's shape: one token every Interval, at most Burst
// tokens saved up.
type Rate struct {
	Interval time.Duration
	Burst    int
}

// BucketKey names one bucket: a limit and the subject it counts for.
type BucketKey struct {
	Limit   string
	Subject Subject
}

// BucketStore keeps the token buckets of a RateLimiter. The in-memory
// MemoryBuckets is the default; a store shared by replicas makes a limit
// hold per caller rather than per process.
type BucketStore interface {
	// Take takes one token from the bucket at now. It returns 0 when it
	// took one, or how long until a token will be there (and takes
	// none).
	Take(ctx context.Context, key BucketKey, r Rate, now time.Time) (wait time.Duration, err error)
	// Return puts back a token Take took, when another limit refused the
	// same request.
	Return(ctx context.Context, key BucketKey, r Rate, now time.Time) error
}

// MemoryBuckets is a BucketStore in the process's memory, bounded in
// keys. It is safe for concurrent use.
//
// Each bucket is one number, the time at which it will be full again (the
// generic cell rate algorithm): a bucket that is full costs nothing to
// forget. At the bound, the least recently used bucket is dropped, and its
// caller starts again with a full bucket.
type MemoryBuckets struct {
	seed maphash.Seed
	// used is how many shards hold buckets: fewer than shardCount when
	// the bound is smaller, so that every shard used holds one at least.
	used   uint64
	shards [shardCount]bucketShard
}

const shardCount = 32

// bucketShard holds the buckets of some keys. Its map is keyed by the
// key's hash, the one that chose the shard, so that a lookup hashes the
// key once; keys whose hashes collide share a chain.
type bucketShard struct {
	mu    sync.Mutex
	m     map[uint64]*bucket
	n     int // buckets, chained ones included
	limit int // the most buckets the shard holds
	epoch time.Time
	set   bool
	lru   bucket // sentinel: lru.next is the most recently used
}

type bucket struct {
	key        BucketKey
	hash       uint64
	full       int64 // when the bucket is full again, in ns since the shard's epoch
	prev, next *bucket
	chain      *bucket // the next bucket of the same hash
}

// NewMemoryBuckets returns an in-memory store of at most maxKeys buckets
// (DefaultMaxKeys when maxKeys <= 0).
func NewMemoryBuckets(maxKeys int) *MemoryBuckets {
	if maxKeys <= 0 {
		maxKeys = DefaultMaxKeys
	}
	used := min(maxKeys, shardCount)
	s := &MemoryBuckets{seed: maphash.MakeSeed(), used: uint64(used)}
	// The bound is shared out among the shards used, the remainder one
	// each to the first ones: their limits add up to maxKeys exactly.
	for i := range used {
		sh := &s.shards[i]
		sh.m = make(map[uint64]*bucket)
		sh.lru.next, sh.lru.prev = &sh.lru, &sh.lru
		sh.limit = maxKeys / used
		if i < maxKeys%used {
			sh.limit++
		}
	}
	return s
}

// Len returns how many buckets the store holds.
func (s *MemoryBuckets) Len() int {
	n := 0
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		n += sh.n
		sh.mu.Unlock()
	}
	return n
}

// hash is the key's hash, which picks its shard and finds it there.
func (s *MemoryBuckets) hash(k BucketKey) uint64 {
	h := maphash.String(s.seed, k.Subject.ID)
	return (h^uint64(k.Subject.Kind))*0x9e3779b97f4a7c15 + maphash.String(s.seed, k.Limit)
}

// Take implements BucketStore.
func (s *MemoryBuckets) Take(_ context.Context, key BucketKey, r Rate, now time.Time) (time.Duration, error) {
	h := s.hash(key)
	sh := &s.shards[h%s.used]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	t := sh.clock(now)
	b := sh.find(h, key)
	if b == nil {
		b = sh.insert(h, key, sh.limit)
		b.full = t
	} else {
		sh.touch(b)
	}
	full := max(b.full, t)
	// The bucket holds a token when it will be full again within
	// (Burst-1) intervals.
	if slack := int64(r.Burst-1) * int64(r.Interval); full-t > slack {
		return time.Duration(full - t - slack), nil
	}
	b.full = full + int64(r.Interval)
	return 0, nil
}

// Return implements BucketStore.
func (s *MemoryBuckets) Return(_ context.Context, key BucketKey, r Rate, now time.Time) error {
	h := s.hash(key)
	sh := &s.shards[h%s.used]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if b := sh.find(h, key); b != nil {
		b.full = max(b.full-int64(r.Interval), sh.clock(now))
	}
	return nil
}

// find is the bucket of key, whose hash is h, or nil.
func (sh *bucketShard) find(h uint64, key BucketKey) *bucket {
	for b := sh.m[h]; b != nil; b = b.chain {
		if b.key == key {
			return b
		}
	}
	return nil
}

// clock turns now into ns since the shard's first call, monotonic when
// now carries a monotonic reading.
func (sh *bucketShard) clock(now time.Time) int64 {
	if !sh.set {
		sh.epoch, sh.set = now, true
	}
	return int64(now.Sub(sh.epoch))
}

// insert adds a bucket for key, whose hash is h, dropping the least
// recently used one when the shard is at its bound.
func (sh *bucketShard) insert(h uint64, key BucketKey, limit int) *bucket {
	var b *bucket
	if sh.n >= limit {
		b = sh.lru.prev
		sh.unlink(b)
		sh.unchain(b)
		*b = bucket{}
	} else {
		b = &bucket{}
		sh.n++
	}
	b.key, b.hash = key, h
	b.chain = sh.m[h]
	sh.m[h] = b
	sh.pushFront(b)
	return b
}

// unchain takes b out of its hash's chain.
func (sh *bucketShard) unchain(b *bucket) {
	if head := sh.m[b.hash]; head == b {
		if b.chain == nil {
			delete(sh.m, b.hash)
		} else {
			sh.m[b.hash] = b.chain
		}
		return
	}
	for p := sh.m[b.hash]; p != nil; p = p.chain {
		if p.chain == b {
			p.chain = b.chain
			return
		}
	}
}

func (sh *bucketShard) touch(b *bucket) {
	if sh.lru.next != b {
		sh.unlink(b)
		sh.pushFront(b)
	}
}

func (sh *bucketShard) unlink(b *bucket) {
	b.prev.next, b.next.prev = b.next, b.prev
}

func (sh *bucketShard) pushFront(b *bucket) {
	b.prev, b.next = &sh.lru, sh.lru.next
	sh.lru.next.prev = b
	sh.lru.next = b
}
