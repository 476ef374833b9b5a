package pgsignins_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake/gateway/pgsignins"
	"github.com/sakemcp/sake-go/sake/internal/pgtest"
)

// BenchmarkSignInCycle is what one sign-in costs the database: Add (one
// transaction), Take, Finish (one transaction) and Outcome.
func BenchmarkSignInCycle(b *testing.B) {
	_, _, pool := pgtest.Schema(b)
	s, err := pgsignins.New(b.Context(), pool)
	if err != nil {
		b.Fatal(err)
	}
	ctx := b.Context()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		state := "state-" + strconv.Itoa(i)
		if _, err := s.Add(ctx, open(state, "ann", "x", time.Hour)); err != nil {
			b.Fatal(err)
		}
		taken, err := s.Take(ctx, state)
		if err != nil || taken == nil {
			b.Fatal(taken, err)
		}
		if err := s.Finish(ctx, *taken, ""); err != nil {
			b.Fatal(err)
		}
		if ended, _, err := s.Outcome(ctx, state); err != nil || !ended {
			b.Fatal(ended, err)
		}
	}
}
