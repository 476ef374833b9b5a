package middleware

import (
	"strconv"
	"testing"
	"time"
)

// Keys whose hashes collide share a chain: each finds its own bucket,
// and dropping one, from the head, the middle or the end of the chain,
// leaves the others.
func TestBucketShardChainsCollidingKeys(t *testing.T) {
	for drop := range 3 {
		var sh bucketShard
		sh.m = map[uint64]*bucket{}
		sh.lru.next, sh.lru.prev = &sh.lru, &sh.lru
		keys := []BucketKey{
			{Limit: "a", Subject: Subject{Kind: SubjectUser, ID: "alice"}},
			{Limit: "a", Subject: Subject{Kind: SubjectClient, ID: "alice"}},
			{Limit: "b", Subject: Subject{Kind: SubjectUser, ID: "alice"}},
		}
		const h = 7
		for i, k := range keys {
			sh.insert(h, k, 10).full = int64(i + 1)
		}
		if sh.n != 3 || len(sh.m) != 1 {
			t.Fatalf("%d buckets in %d slots, want 3 in 1", sh.n, len(sh.m))
		}
		for i, k := range keys {
			if b := sh.find(h, k); b == nil || b.full != int64(i+1) {
				t.Fatalf("key %d: found %+v", i, b)
			}
		}
		if sh.find(h, BucketKey{Limit: "c"}) != nil || sh.find(h+1, keys[0]) != nil {
			t.Fatal("found a bucket for a key never inserted")
		}
		b := sh.find(h, keys[drop])
		sh.unlink(b)
		sh.unchain(b)
		for i, k := range keys {
			if got := sh.find(h, k); (got == nil) != (i == drop) {
				t.Fatalf("dropped key %d: key %d found %v", drop, i, got != nil)
			}
		}
	}
}

// At its bound a shard drops the least recently used bucket, even one
// in a chain, and holds no more buckets than the bound.
func TestBucketShardEvictsFromChains(t *testing.T) {
	var sh bucketShard
	sh.m = map[uint64]*bucket{}
	sh.lru.next, sh.lru.prev = &sh.lru, &sh.lru
	a := BucketKey{Limit: "a"}
	b := BucketKey{Limit: "b"}
	c := BucketKey{Limit: "c"}
	sh.insert(1, a, 2)
	sh.insert(1, b, 2)
	sh.touch(sh.find(1, a)) // b is now the least recently used
	sh.insert(2, c, 2)
	if sh.n != 2 || sh.find(1, b) != nil || sh.find(1, a) == nil || sh.find(2, c) == nil {
		t.Fatalf("n=%d a=%v b=%v c=%v", sh.n, sh.find(1, a) != nil, sh.find(1, b) != nil, sh.find(2, c) != nil)
	}
}

// A MemoryBuckets at its bound of keys holds no more, and a dropped
// caller starts again with a full bucket.
func TestMemoryBucketsBoundHolds(t *testing.T) {
	s := NewMemoryBuckets(shardCount) // one bucket a shard
	r := Rate{Interval: time.Hour, Burst: 1}
	now := time.Now()
	for i := range 10 * shardCount {
		k := BucketKey{Limit: "l", Subject: Subject{Kind: SubjectUser, ID: string(rune('a'+i%26)) + string(rune('a'+i/26))}}
		if wait, _ := s.Take(t.Context(), k, r, now); wait != 0 {
			t.Fatalf("key %d: a new caller waits %v", i, wait)
		}
	}
	if n := s.Len(); n > shardCount {
		t.Fatalf("%d buckets, bound %d", n, shardCount)
	}
}

// The clock of a limiter on the default store moves with time.Now and,
// carrying a monotonic reading, subtracts as time.Now's readings do.
func TestMonotonicClockFollowsNow(t *testing.T) {
	now := monotonicClock()
	before := time.Now()
	got := now()
	after := time.Now()
	if got.Before(before) || got.After(after) {
		t.Fatalf("clock %v outside [%v, %v]", got, before, after)
	}
	if d := got.Sub(before); d < 0 || d > after.Sub(before) {
		t.Fatalf("a monotonic difference of %v", d)
	}
	if got.Round(0) == got {
		t.Fatal("no monotonic reading")
	}
}

// The bound holds at every size, below the number of shards and between
// multiples of it, and the newest caller keeps its bucket.
func TestMemoryBucketsBoundAtEverySize(t *testing.T) {
	t.Parallel()
	r := Rate{Interval: time.Hour, Burst: 1}
	now := time.Now()
	for _, maxKeys := range []int{1, 2, 5, shardCount - 1, shardCount + 1, 3*shardCount + 7, 1000} {
		s := NewMemoryBuckets(maxKeys)
		var last BucketKey
		for i := range 10*maxKeys + 4*shardCount {
			last = BucketKey{Limit: "l", Subject: Subject{Kind: SubjectUser, ID: strconv.Itoa(i)}}
			if wait, _ := s.Take(t.Context(), last, r, now); wait != 0 {
				t.Fatalf("maxKeys %d, key %d: a new caller waits %v", maxKeys, i, wait)
			}
		}
		if n := s.Len(); n > maxKeys {
			t.Errorf("maxKeys %d: %d buckets", maxKeys, n)
		}
		if wait, _ := s.Take(t.Context(), last, r, now); wait == 0 {
			t.Errorf("maxKeys %d: the newest caller lost its bucket", maxKeys)
		}
	}
}
