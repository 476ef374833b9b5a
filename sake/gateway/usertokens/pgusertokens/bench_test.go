package pgusertokens_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/sakemcp/sake-go/sake/internal/pgtest"
)

// BenchmarkGet is the read of one token, as a vault's Load makes it.
func BenchmarkGet(b *testing.B) {
	_, _, pool := pgtest.Schema(b)
	ctx := context.Background()
	s := newStore(b, pool)
	sealed := make([]byte, 600) // about a sealed token with a JWT
	if err := s.Put(ctx, "ann", crm, sealed); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if got, err := s.Get(ctx, "ann", crm); err != nil || len(got) != len(sealed) {
			b.Fatal(got, err)
		}
	}
}

// BenchmarkPut is the save of one token, as at a sign-in or a refresh,
// of a user at the bound of their tokens.
func BenchmarkPut(b *testing.B) {
	_, _, pool := pgtest.Schema(b)
	ctx := context.Background()
	s := newStore(b, pool)
	sealed := make([]byte, 600)
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		i++
		if err := s.Put(ctx, "ann", fmt.Sprintf("https://%d.example/mcp", i%100), sealed); err != nil {
			b.Fatal(err)
		}
	}
}
