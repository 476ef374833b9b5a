package pgreplica_test

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/internal/pgtest"
	"github.com/sakemcp/sake-go/sake/pgreplica"
	"github.com/sakemcp/sake-go/sake/plug"
)

// staller forwards TCP connections to the database; stall makes the
// connections that sent a LISTEN so far stop carrying anything, without
// closing them, as a network path that silently drops packets does. Other
// connections, and new ones, go on.
type staller struct {
	ln     net.Listener
	target string

	mu      sync.Mutex
	listens map[net.Conn]bool // connections that sent a LISTEN
	dead    map[net.Conn]bool // those silenced by stall
	all     []net.Conn
}

func newStaller(t *testing.T, target string) *staller {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &staller{ln: ln, target: target, listens: map[net.Conn]bool{}, dead: map[net.Conn]bool{}}
	go s.serve()
	t.Cleanup(s.close)
	return s
}

func (s *staller) serve() {
	for {
		in, err := s.ln.Accept()
		if err != nil {
			return
		}
		out, err := net.Dial("tcp", s.target)
		if err != nil {
			in.Close()
			continue
		}
		s.mu.Lock()
		s.all = append(s.all, in, out)
		s.mu.Unlock()
		go s.pipe(out, in, in, true)
		go s.pipe(in, out, in, false)
	}
}

// pipe copies from src to dst; key is the client side of the pair.
// Once the connection is silenced, nothing more is copied either way.
func (s *staller) pipe(dst, src, key net.Conn, up bool) {
	defer dst.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			s.mu.Lock()
			if up && bytes.Contains(buf[:n], []byte("LISTEN ")) {
				s.listens[key] = true
			}
			dead := s.dead[key]
			s.mu.Unlock()
			if dead {
				<-make(chan struct{}) // swallowed: the path is dead
			}
			if _, err := dst.Write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// stall silences the connections that sent a LISTEN.
func (s *staller) stall() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.listens {
		s.dead[c] = true
	}
}

func (s *staller) close() {
	s.ln.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.all {
		c.Close()
	}
}

// A replica whose LISTEN connection silently stops delivering (no error,
// no closed socket) notices it within seconds, and until it listens
// again it does not serve from what it kept in memory: a session deleted
// on another replica meanwhile, whose notice never reaches it, is
// refused (404), not served from its stale record.
func TestSilentlyLostListenStopsServingFromMemory(t *testing.T) {
	t.Parallel()
	direct, schema, _ := pgtest.Schema(t)
	// A's DELETE waits for B to confirm, which B, deaf, never does: its
	// backend lives on behind the stalled path. ConfirmWait bounds the wait.
	a := openReplica(t, pgtest.Pool(t, direct, schema), nil, pgreplica.ConfirmWait(200*time.Millisecond))

	u, err := url.Parse(direct)
	if err != nil {
		t.Fatal(err)
	}
	path := newStaller(t, u.Host)
	u.Host = path.ln.Addr().String()
	lost := make(lossTap, 16)
	b := openReplica(t, pgtest.Pool(t, u.String(), schema), slog.New(lost))

	sid := initialize(t, a.url, "alice")
	ping := `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	if resp := post(t, b.url, "alice", sid, ping); resp.StatusCode != http.StatusOK {
		t.Fatalf("B before: %d", resp.StatusCode)
	}
	if n := pgreplica.CachedSessions(b.r); n != 1 {
		t.Fatalf("B keeps %d records, want the session's", n)
	}
	path.stall()
	deleteSession(t, a.url, "alice", sid)
	// B hears nothing of the end; it must notice its LISTEN is dead.
	for noticed := false; !noticed; {
		select {
		case ch := <-lost:
			noticed = strings.HasPrefix(ch, "sake_sessions")
		case <-time.After(30 * time.Second):
			t.Fatal("B never noticed that its LISTEN connection delivers nothing")
		}
	}
	if resp := post(t, b.url, "alice", sid, ping); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("B after its LISTEN was lost and the session deleted: %d, want 404", resp.StatusCode)
	}
}

// openReplica runs a replica on pool behind an HTTP server (X-User names
// the caller), with extra options; logger, when set, receives its logs.
func openReplica(t *testing.T, pool *pgxpool.Pool, logger *slog.Logger, extra ...pgreplica.Option) replica {
	t.Helper()
	ctx := context.Background()
	opts := extra
	if logger != nil {
		opts = append(opts, pgreplica.Logger(logger))
	}
	r, err := pgreplica.Open(ctx, pool, opts...)
	if err != nil {
		t.Fatal(err)
	}
	heard := make(chan heardRelay, 256)
	pgreplica.OnRelayHeard(r, func(session, kind string) {
		select {
		case heard <- heardRelay{session, kind}:
		default:
		}
	})
	quiet := slog.New(slog.DiscardHandler)
	srv := sake.MustNew(app{}, append(r.Options(), sake.Logger(quiet))...)
	h := plug.New(srv, plug.Logger(quiet), plug.Identify(func(req *http.Request) (*sake.Identity, error) {
		if u := req.Header.Get("X-User"); u != "" {
			return &sake.Identity{Subject: u}, nil
		}
		return nil, nil
	}))
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		ts.Close()
		h.Close()
		_ = srv.Shutdown(ctx)
		_ = r.Close(ctx)
	})
	return replica{srv: srv, url: ts.URL, r: r, heard: heard}
}
