package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// pgStats counts the statements the replicas run on their database during
// a measured window, with pg_stat_statements (the cluster must preload
// it: bench/replicas.sh starts one that does). Statements about
// pg_stat_statements itself (these counts) are left out.
type pgStats struct {
	url  string
	note string // why nothing is counted, or ""
}

// newPGStats returns the counter for the database at url ("" counts
// nothing).
func newPGStats(url string) *pgStats {
	s := &pgStats{url: url}
	if url == "" {
		s.note = "no database"
		return s
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		s.note = err.Error()
		return s
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `CREATE EXTENSION IF NOT EXISTS pg_stat_statements`); err != nil {
		s.note = "pg_stat_statements unavailable: " + err.Error()
		return s
	}
	if _, err := s.count(ctx); err != nil {
		s.note = "pg_stat_statements unavailable (is it in shared_preload_libraries?): " + err.Error()
	}
	return s
}

// applies reports whether c's server runs on the database.
func (s *pgStats) applies(c config) bool {
	return s.note == "" && strings.HasPrefix(c.srv.name, "sake-") && c.srv.name != "sake-proxy"
}

// count returns how many statements the database has run.
func (s *pgStats) count(ctx context.Context) (int64, error) {
	conn, err := pgx.Connect(ctx, s.url)
	if err != nil {
		return 0, err
	}
	defer conn.Close(ctx)
	var n int64
	err = conn.QueryRow(ctx, `SELECT coalesce(sum(calls), 0)::bigint FROM pg_stat_statements
		WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
		AND query NOT ILIKE '%pg_stat_statements%'`).Scan(&n)
	return n, err
}

// around runs measure, counting the statements it causes into r.
func (s *pgStats) around(c config, r *runResult, measure func()) {
	if !s.applies(c) {
		measure()
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	before, err := s.count(ctx)
	cancel()
	measure()
	ctx, cancel = context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	after, err2 := s.count(ctx)
	if err == nil && err2 == nil {
		r.statements = after - before
		r.counted = true
	}
}

// requests is how many requests r's verified operations made: one per
// tools/call, plus, for tasks, the polls and the legacy tasks/result.
func (r runResult) requests() int64 {
	n := r.ok
	if r.cfg.path.tasks {
		n += r.polls
		if !r.cfg.path.modern {
			n += r.ok
		}
	}
	return n
}

// printStatements prints the statements per operation and per request of
// the configurations on the database (medians over the repetitions).
func printStatements(s *pgStats, cfgs []config, results map[string][]runResult) {
	if s.note != "" {
		fmt.Printf("\nstatements per request: not counted (%s)\n", s.note)
		return
	}
	fmt.Println("\n## Database statements (pg_stat_statements, during the measured windows; medians)")
	fmt.Println()
	fmt.Println("| config | statements per operation | statements per request | tasks/get per task |")
	fmt.Println("|---|---|---|---|")
	for _, c := range cfgs {
		if !s.applies(c) {
			continue
		}
		var perOp, perReq, polls []float64
		for _, r := range results[c.String()] {
			if r.counted && r.ok > 0 {
				perOp = append(perOp, float64(r.statements)/float64(r.ok))
				perReq = append(perReq, float64(r.statements)/float64(r.requests()))
				polls = append(polls, float64(r.polls)/float64(r.ok))
			}
		}
		if len(perOp) == 0 {
			continue
		}
		pollCol := "–"
		if c.path.tasks {
			pollCol = fmt.Sprintf("%.2f", medianFloat(polls))
		}
		fmt.Printf("| %s | %.3f | %.3f | %s |\n", c, medianFloat(perOp), medianFloat(perReq), pollCol)
	}
}

func medianFloat(v []float64) float64 {
	v = slices.Clone(v)
	slices.Sort(v)
	return v[len(v)/2]
}

// envPGStats is the database the replicas run on, whose statements are
// counted.
func envPGStats() string { return os.Getenv("SAKE_POSTGRES_URL") }
