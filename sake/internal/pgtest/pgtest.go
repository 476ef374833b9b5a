// Package pgtest gives tests a pool on a schema of their own in the
// PostgreSQL cluster that SAKE_POSTGRES_URL names, or skips them when it is
// unset.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
)

// EnvURL is the environment variable that points the tests at a cluster.
const EnvURL = "SAKE_POSTGRES_URL"

// URL returns the cluster's URL, or skips t naming the script that starts
// one.
func URL(t testing.TB) string {
	t.Helper()
	url := os.Getenv(EnvURL)
	if url == "" {
		t.Skip(EnvURL + " is unset: run `eval \"$(scripts/postgres.sh start)\"` for a throwaway PostgreSQL cluster")
	}
	return url
}

// Schema creates an empty schema for t, dropped when t ends, and returns
// the cluster URL, the schema's name, and a pool whose search_path is that
// schema.
func Schema(t testing.TB) (url, schema string, pool *pgxpool.Pool) {
	t.Helper()
	url = URL(t)
	var b [6]byte
	_, _ = rand.Read(b[:])
	schema = "t_" + hex.EncodeToString(b[:])
	ctx := context.Background()
	admin, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatalf("pgtest: connecting to %s: %v", EnvURL, err)
	}
	if _, err := admin.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		admin.Close()
		t.Fatalf("pgtest: creating schema: %v", err)
	}
	t.Cleanup(func() {
		_, _ = admin.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
		admin.Close()
	})
	return url, schema, Pool(t, url, schema)
}

// Pool opens a pool on url whose search_path is schema, closed when t
// ends.
func Pool(t testing.TB, url, schema string) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	cfg.ConnConfig.RuntimeParams["search_path"] = schema
	cfg.ConnConfig.RuntimeParams["application_name"] = AppName(schema)
	cfg.MaxConns = 8
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// AppName is the application_name of the connections Pool opens on
// schema, for tests that end them (pg_terminate_backend) to simulate a
// lost connection.
func AppName(schema string) string { return "sake-test-" + schema }
