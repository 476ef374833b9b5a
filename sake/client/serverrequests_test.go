package client_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// askingServer is a 2025-11-25 session whose GET stream sends the client
// the requests written to send; the client's answers arrive on answers.
type askingServer struct {
	send    chan string
	answers chan json.RawMessage
}

func newAskingServer(t *testing.T) (*askingServer, string) {
	a := &askingServer{send: make(chan string), answers: make(chan json.RawMessage, 1024)}
	ts := httptest.NewServer(a)
	t.Cleanup(ts.Close)
	return a, ts.URL
}

func (a *askingServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet:
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		for {
			select {
			case msg := <-a.send:
				fmt.Fprintf(w, "data: %s\n\n", msg)
				w.(http.Flusher).Flush()
			case <-r.Context().Done():
				return
			}
		}
	case http.MethodDelete:
		return
	}
	b, _ := io.ReadAll(r.Body)
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	_ = json.Unmarshal(b, &m)
	switch {
	case m.Method == "initialize":
		w.Header().Set("Mcp-Session-Id", "s1")
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":%q,"capabilities":{},"serverInfo":{"name":"asking","version":"1"}}}`, m.ID, protocol.LegacyVersion)
	case m.Method == "":
		a.answers <- json.RawMessage(b)
		w.WriteHeader(http.StatusAccepted)
	default:
		w.WriteHeader(http.StatusAccepted)
	}
}

func (a *askingServer) ask(id string) {
	a.send <- `{"jsonrpc":"2.0","id":"` + id + `","method":"roots/list"}`
}

// answer waits for the client's next answer.
func (a *askingServer) answer(t *testing.T) (id string, code int) {
	t.Helper()
	select {
	case b := <-a.answers:
		var r struct {
			ID    string `json:"id"`
			Error *struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatalf("answer %s: %v", b, err)
		}
		if r.Error != nil {
			return r.ID, r.Error.Code
		}
		return r.ID, 0
	case <-time.After(10 * time.Second):
		t.Fatal("the client did not answer")
		return "", 0
	}
}

func TestServerRequestsInFlightAreBounded(t *testing.T) {
	cases := []struct {
		name  string
		bound int
		opts  []client.Option
	}{
		{"option", 4, []client.Option{client.MaxServerRequests(4)}},
		{"default", client.DefaultMaxServerRequests, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a, url := newAskingServer(t)
			entered, release := make(chan struct{}, tc.bound+1), make(chan struct{})
			roots := client.OnRoots(func(ctx context.Context) ([]protocol.Root, error) {
				entered <- struct{}{}
				select {
				case <-release:
				case <-ctx.Done():
				}
				return []protocol.Root{{URI: "file:///r"}}, nil
			})
			opts := append([]client.Option{client.ProtocolVersion(protocol.LegacyVersion), roots}, tc.opts...)
			c, err := client.Connect(t.Context(), client.HTTP(url, nil), opts...)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			for i := range tc.bound + 1 {
				a.ask(fmt.Sprint("q", i))
			}
			for range tc.bound {
				<-entered
			}
			// The request beyond the bound is refused at once, and never
			// reaches the handler.
			id, code := a.answer(t)
			if id != fmt.Sprint("q", tc.bound) || code != -32000 {
				t.Fatalf("answer beyond the bound = %s %d, want q%d refused with -32000", id, code, tc.bound)
			}
			if len(entered) != 0 {
				t.Fatalf("the handler ran for %d more requests than the bound", len(entered))
			}
			close(release)
			for range tc.bound {
				if id, code := a.answer(t); code != 0 || !strings.HasPrefix(id, "q") {
					t.Fatalf("answer within the bound = %s %d", id, code)
				}
			}
			// The slots free up once the answers are sent: a request then
			// is answered again. (A slot is given back after the server
			// took the answer, which the test cannot see: ask until one
			// gets through.)
			deadline := time.Now().Add(10 * time.Second)
			for i := 0; ; i++ {
				want := fmt.Sprint("after", i)
				a.ask(want)
				id, code := a.answer(t)
				if id == want && code == 0 {
					break
				}
				if id != want || code != -32000 || time.Now().After(deadline) {
					t.Fatalf("answer after the others = %s %d, want %s answered", id, code, want)
				}
			}
		})
	}
}
