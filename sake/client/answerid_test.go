package client_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/plug"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// misanswering answers tools/list with the JSON body answer makes of the
// request's id, and passes everything else to a sake server.
func misanswering(t *testing.T, answer func(id json.RawMessage) string) string {
	srv, _ := newKitServer(t)
	h := plug.New(srv)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			b, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(b))
			var req struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			_ = json.Unmarshal(b, &req)
			if req.Method == "tools/list" {
				w.Header().Set("Content-Type", "application/json")
				_, _ = io.WriteString(w, answer(req.ID))
				return
			}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { ts.Close(); h.Close() })
	return ts.URL
}

func TestJSONAnswerToAnotherRequestIsRefused(t *testing.T) {
	tools := `"result":{"tools":[{"name":"stolen","inputSchema":{"type":"object"}}]}}`
	cases := map[string]func(id json.RawMessage) string{
		"another id": func(id json.RawMessage) string {
			n, _ := strconv.Atoi(string(id))
			return `{"jsonrpc":"2.0","id":` + strconv.Itoa(n+1000) + `,` + tools
		},
		"no id":   func(json.RawMessage) string { return `{"jsonrpc":"2.0",` + tools },
		"null id": func(json.RawMessage) string { return `{"jsonrpc":"2.0","id":null,` + tools },
		"a string of another id": func(id json.RawMessage) string {
			return `{"jsonrpc":"2.0","id":"x` + string(id) + `",` + tools
		},
	}
	for name, answer := range cases {
		for _, e := range eras {
			t.Run(name+"/"+e.Name, func(t *testing.T) {
				t.Parallel()
				c, err := client.Connect(t.Context(), client.HTTP(misanswering(t, answer), nil), e.Opts...)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				got, err := c.ListTools(t.Context())
				if err == nil || !strings.Contains(err.Error(), "another request") {
					t.Fatalf("tools/list answered with another id = %+v, %v; want an error", got, err)
				}
				// The client goes on working.
				if res, err := c.CallTool(t.Context(), "echo", map[string]string{"text": "still"}); err != nil || res.Text() != "still" {
					t.Fatalf("the next call = %v, %v", res, err)
				}
			})
		}
	}
}

func TestJSONErrorWithNullIDIsTheRequestsError(t *testing.T) {
	t.Parallel()
	url := misanswering(t, func(json.RawMessage) string {
		return `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}`
	})
	c, err := client.Connect(t.Context(), client.HTTP(url, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.ListTools(t.Context()); !isCode(err, protocol.CodeInvalidRequest) {
		t.Fatalf("a null-id error = %v, want the server's -32600", err)
	}
}
