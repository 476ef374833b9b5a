package openapi_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/client/memory"
	"github.com/sakemcp/sake-go/sake/openapi"
)

// BenchmarkNew reads the Discourse API's document (93 operations) into a
// server.
func BenchmarkNew(b *testing.B) {
	spec := readSpec(b, "discourse.yaml")
	b.ReportAllocs()
	b.SetBytes(int64(len(spec)))
	for b.Loop() {
		if _, err := openapi.New(spec); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkToolCall calls a tool with a path parameter and a JSON body
// through an in-memory client, against a local HTTP server.
func BenchmarkToolCall(b *testing.B) {
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.Copy(w, r.Body)
	}))
	defer api.Close()
	srv, err := openapi.New(readSpec(b, "petstore-3.1.json"), openapi.BaseURL(api.URL), openapi.HTTPClient(api.Client()))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	c, err := client.Connect(ctx, memory.Transport(srv))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	args := map[string]any{"id": 7, "name": "Rex", "photoUrls": []string{"a.png"}, "status": "available"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.CallTool(ctx, "updatePet", args); err != nil {
			b.Fatal(err)
		}
	}
}
