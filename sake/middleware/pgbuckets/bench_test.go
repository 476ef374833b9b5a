package pgbuckets_test

import (
	"context"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/internal/pgtest"
	"github.com/sakemcp/sake-go/sake/middleware"
	"github.com/sakemcp/sake-go/sake/middleware/pgbuckets"
)

var benchCall = []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"echo","arguments":{"text":"hello"}}}`)

// BenchmarkSharedLimit is a tools/call through a limit kept in PostgreSQL,
// leasing 100 tokens at a time (one statement per 100 calls).
func BenchmarkSharedLimit(b *testing.B) {
	_, _, pool := pgtest.Schema(b)
	store, err := pgbuckets.New(context.Background(), pool, pgbuckets.LeaseTokens(100), pgbuckets.LeaseTTL(time.Hour))
	if err != nil {
		b.Fatal(err)
	}
	rl, err := middleware.NewRateLimiter([]middleware.Limit{{Rate: 100_000_000}}, middleware.Store(store))
	if err != nil {
		b.Fatal(err)
	}
	s := sake.MustNew(tools{}, sake.Use(rl.Middleware()), sake.Logger(quiet))
	in := &sake.Inbound{Identity: &sake.Identity{Subject: "alice"}}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if r := s.Handle(ctx, benchCall, in); r.ErrorCode != 0 {
			b.Fatal(string(r.Body))
		}
	}
}
