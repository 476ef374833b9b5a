package pgreplica_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/internal/pgtest"
	"github.com/sakemcp/sake-go/sake/pgreplica"
	"github.com/sakemcp/sake-go/sake/plug"
)

// While the database is down, a legacy session's messages get 503 with
// Retry-After, not 404 (which would make the client start over), and an
// initialize is refused as a storage failure, not as too many sessions.
// Once the database is back, the session goes on.
func TestDatabaseOutageIsNotSessionNotFound(t *testing.T) {
	t.Parallel()
	direct, schema, _ := pgtest.Schema(t)
	u, err := url.Parse(direct)
	if err != nil {
		t.Fatal(err)
	}
	db := pgtest.NewCutter(t, u.Host)
	u.Host = db.Addr()
	ctx := context.Background()
	lost := make(lossTap, 16)
	r, err := pgreplica.Open(ctx, pgtest.Pool(t, u.String(), schema), pgreplica.Logger(slog.New(lost)))
	if err != nil {
		t.Fatal(err)
	}
	quiet := slog.New(slog.DiscardHandler)
	srv := sake.MustNew(app{}, append(r.Options(), sake.Logger(quiet))...)
	h := plug.New(srv, plug.Logger(quiet))
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		ts.Close()
		h.Close()
		_ = srv.Shutdown(ctx)
		_ = r.Close(ctx)
	})
	sid := initialize(t, ts.URL, "")
	ping := `{"jsonrpc":"2.0","id":2,"method":"ping"}`

	// Known, the session's messages are answered from memory.
	if resp := post(t, ts.URL, "", sid, `{"jsonrpc":"2.0","id":2,"method":"ping"}`); resp.StatusCode != http.StatusOK {
		t.Fatalf("ping: %d", resp.StatusCode)
	}
	db.Cut()
	// Once the replica knows its LISTEN connection is lost, it no longer
	// trusts what it keeps in memory: the record must be read, and cannot.
	for ch := range lost {
		if strings.HasPrefix(ch, "sake_sessions") {
			break
		}
	}
	wantUnavailable := func(resp *http.Response, what string) {
		t.Helper()
		var body struct {
			Error *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&body)
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
			t.Fatalf("%s during the outage: %d, Retry-After %q, want 503 with Retry-After", what, resp.StatusCode, resp.Header.Get("Retry-After"))
		}
		if body.Error == nil || body.Error.Code != sake.CodeServerBusy || !strings.Contains(body.Error.Message, "session store") {
			t.Fatalf("%s during the outage: error %+v, want -32000 saying the session store failed", what, body.Error)
		}
	}
	wantUnavailable(post(t, ts.URL, "", sid, ping), "a session's request")
	resp := post(t, ts.URL, "", "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if resp.Header.Get("Mcp-Session-Id") != "" {
		t.Error("an initialize that could not be stored issued a session id")
	}
	wantUnavailable(resp, "initialize")

	db.Restore()
	resp = post(t, ts.URL, "", sid, ping)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("after the outage: %d, want 200", resp.StatusCode)
	}
	// A session the database does not have is gone indeed.
	if resp := post(t, ts.URL, "", "no-such-session", ping); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("an unknown session: %d, want 404", resp.StatusCode)
	}
}

// lossTap is a slog handler that sends the channel of each lost LISTEN
// connection.
type lossTap chan string

func (l lossTap) Enabled(context.Context, slog.Level) bool { return true }
func (l lossTap) Handle(_ context.Context, r slog.Record) error {
	if !strings.HasPrefix(r.Message, "listening on PostgreSQL failed") {
		return nil
	}
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "channel" {
			select {
			case l <- a.Value.String():
			default:
			}
		}
		return true
	})
	return nil
}
func (l lossTap) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l lossTap) WithGroup(string) slog.Handler      { return l }
