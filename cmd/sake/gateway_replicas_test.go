package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sakemcp/sake-go/sake/client"
)

// roundRobin sends each request to the next of several gateways: a
// balancer without sticky sessions.
type roundRobin struct {
	hosts []string
	next  atomic.Int64
	hits  []atomic.Int64
}

func (rr *roundRobin) RoundTrip(req *http.Request) (*http.Response, error) {
	i := int(rr.next.Add(1)) % len(rr.hosts)
	rr.hits[i].Add(1)
	req = req.Clone(req.Context())
	req.URL.Host = rr.hosts[i]
	req.Host = rr.hosts[i]
	return http.DefaultTransport.RoundTrip(req)
}

// TestGatewayReplicasShareSessions: two sake gateway processes on one
// PostgreSQL serve a handshake-era session and the modern era as one
// gateway, each request sent to the other replica.
func TestGatewayReplicasShareSessions(t *testing.T) {
	t.Parallel()
	pgURL := gatewayReplicasDatabase(t)

	config := gatewayConfig(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var hosts []string
	var exits []<-chan int
	for range 2 {
		base, exited := startGatewayCommand(t, ctx, "-config", config, "-http", "127.0.0.1:0", "-log-format", "json", "-postgres", pgURL, "-watch=false")
		hosts = append(hosts, strings.TrimPrefix(base, "http://"))
		exits = append(exits, exited)
	}
	rr := &roundRobin{hosts: hosts, hits: make([]atomic.Int64, 2)}
	for _, version := range []string{"2025-11-25", ""} {
		opts := []client.Option{}
		if version != "" {
			opts = append(opts, client.ProtocolVersion(version))
		}
		c, err := client.Connect(ctx, client.HTTP("http://"+hosts[0]+"/mcp", &http.Client{Transport: rr}), opts...)
		if err != nil {
			t.Fatalf("%q: %v", version, err)
		}
		for i := range 4 {
			text := fmt.Sprintf("call %d", i)
			res, err := c.CallTool(ctx, "fixture_echo", json.RawMessage(fmt.Sprintf(`{"text":%q}`, text)))
			if err != nil || res.Text() != text {
				t.Fatalf("%q: call %d = %v, %v", version, i, res, err)
			}
		}
		c.Close()
	}
	if rr.hits[0].Load() < 4 || rr.hits[1].Load() < 4 {
		t.Errorf("the replicas served %d and %d requests", rr.hits[0].Load(), rr.hits[1].Load())
	}
	cancel()
	for _, e := range exits {
		if code := <-e; code != exitOK {
			t.Errorf("exit code %d", code)
		}
	}
}

// gatewayReplicasDatabase returns the URL of a schema of its own for t's
// gateway replicas, dropped when t ends, or skips t naming the script that
// starts a cluster.
func gatewayReplicasDatabase(t *testing.T) string {
	t.Helper()
	pgURL := os.Getenv("SAKE_POSTGRES_URL")
	if pgURL == "" {
		t.Skip("SAKE_POSTGRES_URL is unset: run `eval \"$(scripts/postgres.sh start)\"` for a throwaway PostgreSQL cluster")
	}
	schema := fmt.Sprintf("gateway_%d", time.Now().UnixNano())
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
	return u.String()
}
