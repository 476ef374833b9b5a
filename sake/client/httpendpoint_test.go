package client_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/plug"
)

// urlEditor is an Authorizer that changes each request's URL, as a
// signing scheme may.
type urlEditor struct{}

func (a *urlEditor) Authorize(_ context.Context, req *http.Request) error {
	q := req.URL.Query()
	q.Add("sig", "1")
	req.URL.RawQuery = q.Encode()
	req.URL.User = nil
	return nil
}

func (*urlEditor) Challenged(context.Context, *http.Request, *http.Response, int) (bool, error) {
	return false, nil
}

// TestHTTPEndpointIsCopiedPerRequest: the endpoint is parsed once, and a
// request whose URL an Authorizer changes does not change the next one's.
func TestHTTPEndpointIsCopiedPerRequest(t *testing.T) {
	t.Parallel()
	srv := sake.MustNew(newKit())
	h := plug.New(srv)
	var mu sync.Mutex
	var queries []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		queries = append(queries, r.URL.RawQuery)
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	defer func() { ts.Close(); h.Close() }()
	for _, e := range eras {
		c, err := client.Connect(t.Context(), client.HTTP(ts.URL+"/mcp?k=v", ts.Client(), client.WithAuthorizer(&urlEditor{})), e.Opts...)
		if err != nil {
			t.Fatal(err)
		}
		for range 3 {
			if _, err := c.CallTool(t.Context(), "echo", map[string]string{"text": "hi"}); err != nil {
				t.Fatal(err)
			}
		}
		_ = c.Close()
	}
	mu.Lock()
	defer mu.Unlock()
	if len(queries) < 6 {
		t.Fatalf("the server saw %d requests, want at least 6", len(queries))
	}
	for _, q := range queries {
		if q != "k=v&sig=1" {
			t.Fatalf("a request went with the query %q, want %q (each request starts from the endpoint as configured): all %q", q, "k=v&sig=1", strings.Join(queries, " | "))
		}
	}
}

// BenchmarkCallToolHTTP measures a tools/call over Streamable HTTP on
// loopback, both eras: the client's side of each request is most of what
// is not the server's.
func BenchmarkCallToolHTTP(b *testing.B) {
	for _, e := range eras {
		b.Run(e.Name, func(b *testing.B) {
			srv := sake.MustNew(newKit())
			h := plug.New(srv)
			ts := httptest.NewServer(h)
			defer func() { ts.Close(); h.Close() }()
			c, err := client.Connect(b.Context(), client.HTTP(ts.URL, ts.Client()), e.Opts...)
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			args := map[string]string{"text": "hi"}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.CallTool(b.Context(), "echo", args); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
