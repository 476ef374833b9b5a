package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sakemcp/sake-go/sake/gateway"
)

// TestGatewayPostgresSharesTheSignIns: with -postgres (and -public-url),
// sake gateway keeps the sign-ins in progress in the replicas' database,
// beside the users' tokens, so that a callback may land on any replica.
func TestGatewayPostgresSharesTheSignIns(t *testing.T) {
	pgURL := os.Getenv("SAKE_POSTGRES_URL")
	if pgURL == "" {
		t.Skip("SAKE_POSTGRES_URL is unset: run `eval \"$(scripts/postgres.sh start)\"` for a throwaway PostgreSQL cluster")
	}
	schema := fmt.Sprintf("signins_%d", time.Now().UnixNano())
	admin, err := pgxpool.New(context.Background(), pgURL)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(context.Background(), "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = admin.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
		admin.Close()
	})
	u, err := url.Parse(pgURL)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	pool, err := pgxpool.New(context.Background(), u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	e := &env{getenv: func(k string) string {
		if k == gateway.TokenKeyEnv {
			return "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY="
		}
		return ""
	}}
	cfg, err := gateway.ParseConfig([]byte(`{"mcpServers": {}}`))
	if err != nil {
		t.Fatal(err)
	}
	opts, err := gatewayUserTokens(context.Background(), e, cfg, gatewayFlags{publicURL: "https://mcp.example.com"}, pool, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if len(opts) != 3 {
		t.Fatalf("%d options, want the sign-ins' store, the vault and the public URL", len(opts))
	}
	var table *string
	if err := pool.QueryRow(t.Context(), `SELECT to_regclass('sake_pending_sign_ins')::text`).Scan(&table); err != nil || table == nil {
		t.Fatalf("the table of the sign-ins in progress: %v, %v", table, err)
	}
}
