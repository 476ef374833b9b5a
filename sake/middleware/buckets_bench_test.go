package middleware_test

import (
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake/middleware"
)

// BenchmarkMemoryBucketsTake is one token taken from a bucket that has
// some: the store's share of a rate-limited call.
func BenchmarkMemoryBucketsTake(b *testing.B) {
	s := middleware.NewMemoryBuckets(0)
	k := middleware.BucketKey{Limit: "tools/call", Subject: middleware.Subject{Kind: middleware.SubjectUser, ID: "alice"}}
	r := middleware.Rate{Interval: time.Nanosecond, Burst: 1 << 30}
	now := time.Now()
	b.ReportAllocs()
	for b.Loop() {
		if wait, _ := s.Take(b.Context(), k, r, now); wait != 0 {
			b.Fatal(wait)
		}
	}
}
