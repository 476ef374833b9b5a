package plug_test

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/plug"
)

type rootsAsker struct{ result chan error }

func (a rootsAsker) Ask(ctx *sake.Context) (string, error) {
	_, err := ctx.ListRoots("r")
	a.result <- err
	return "", err
}

func TestAskEndsWhenStreamAbandoned(t *testing.T) {
	// The client reads the question, then its connection drops and it
	// never resumes: after the grace period the question fails instead of
	// holding the request for the ask timeout.
	t.Parallel()
	a := rootsAsker{result: make(chan error, 1)}
	ts, _, _ := serve(t, a, plug.ResumeGrace(time.Millisecond))
	resp := do(t, ts, http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{}},"clientInfo":{"name":"t","version":"1"}}}`, legacyHeaders(""))
	sid := resp.Header.Get("Mcp-Session-Id")
	readJSON(t, resp, http.StatusOK)
	ctx, cancel := context.WithCancel(context.Background())
	resp = doCtx(t, ctx, ts, http.MethodPost, ts.URL, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask"}}`, legacyHeaders(sid))
	br := bufio.NewReader(resp.Body)
	mustEvent(t, br) // priming
	if ev := mustEvent(t, br); decode(t, []byte(ev.data)).Method != "roots/list" {
		t.Fatalf("want the roots/list question, got %+v", ev)
	}
	cancel() // the connection drops
	select {
	case err := <-a.result:
		if err == nil {
			t.Fatal("the question was answered")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the question still waits after its stream was abandoned")
	}
}

func TestCloseStreamSaysConnectionClose(t *testing.T) {
	t.Parallel()
	p := poller{closed: make(chan bool, 1)}
	ts, _, _ := serve(t, p)
	sid := initialize(t, ts, legacyHeaders(""))
	resp := do(t, ts, http.MethodPost, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"poll"}}`, legacyHeaders(sid))
	if !resp.Close {
		t.Errorf("a stream the server closes must say Connection: close; headers %v", resp.Header)
	}
	if !<-p.closed {
		t.Fatal("CloseStream reported false")
	}
}

func TestAnonymousSessionsCountPerAddress(t *testing.T) {
	t.Parallel()
	srv := sake.MustNew(echo{}, sake.Logger(quiet), sake.WithLimits(sake.Limits{MaxSessionsPerOwner: 1}))
	h := plug.New(srv, plug.Logger(quiet))
	ts := httptest.NewServer(h)
	t.Cleanup(func() { h.Close(); ts.Close() })
	first := initialize(t, ts, nil)
	second := initialize(t, ts, nil) // same address: the idle first one makes room
	wantError(t, do(t, ts, http.MethodPost, `{"jsonrpc":"2.0","id":3,"method":"ping"}`, legacyHeaders(first)), http.StatusNotFound, sake.CodeInvalidRequest)
	if r := readJSON(t, do(t, ts, http.MethodPost, `{"jsonrpc":"2.0","id":3,"method":"ping"}`, legacyHeaders(second)), http.StatusOK); r.Error != nil {
		t.Errorf("the newest session: %+v", r.Error)
	}
}
