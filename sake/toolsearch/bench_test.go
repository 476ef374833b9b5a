package toolsearch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/sakemcp/sake-go/sake"
)

// thousandDocs is the real catalog repeated under further namespaces up
// to 1,000 tools, with the queries.
func thousandDocs(b *testing.B) ([]json.RawMessage, []benchQuery) {
	_, entries, queries := loadCatalog(b)
	out := make([]json.RawMessage, 0, 1000)
	for i := 0; len(out) < 1000; i++ {
		var m map[string]any
		if err := json.Unmarshal(entries[i%len(entries)], &m); err != nil {
			b.Fatal(err)
		}
		m["name"] = fmt.Sprintf("r%d_%s", i/len(entries), m["name"])
		e, _ := json.Marshal(m)
		out = append(out, e)
	}
	return out, queries
}

// BenchmarkSearch1000 is one query over 1,000 real tool definitions, the
// index built once.
func BenchmarkSearch1000(b *testing.B) {
	entries, queries := thousandDocs(b)
	docs := make([]Doc, len(entries))
	for i, e := range entries {
		docs[i] = DocFromEntry(e)
	}
	ix := NewIndex(docs)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if len(ix.Search(queries[i%len(queries)].Query, 5, nil)) == 0 {
			b.Fatal("no hits")
		}
	}
}

// BenchmarkIndex1000 builds the index of 1,000 tools, as a change of the
// catalog does.
func BenchmarkIndex1000(b *testing.B) {
	entries, _ := thousandDocs(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		docs := make([]Doc, len(entries))
		for j, e := range entries {
			docs[j] = DocFromEntry(e)
		}
		NewIndex(docs)
	}
}

// BenchmarkSearchToolsCall1000 is a whole search_tools call, message in
// and answer out, on a server of 1,000 real tool definitions.
func BenchmarkSearchToolsCall1000(b *testing.B) {
	entries, queries := thousandDocs(b)
	s, err := New(Options{})
	if err != nil {
		b.Fatal(err)
	}
	srv := sake.MustNew(nil, sake.Use(s.Middleware()))
	for _, e := range entries {
		var d struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		if err := json.Unmarshal(e, &d); err != nil {
			b.Fatal(err)
		}
		def := sake.NewTool(d.Name, func(*sake.Context, map[string]any) (string, error) { return "", nil }).
			Description(d.Description).InputSchema(d.InputSchema)
		if err := srv.AddTool(def); err != nil {
			b.Fatal(err)
		}
	}
	msgs := make([][]byte, len(queries))
	for i, q := range queries {
		args, _ := json.Marshal(map[string]string{"query": q.Query})
		msgs[i] = []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"search_tools","arguments":` + string(args) + `}}`)
	}
	ctx := context.Background()
	in := &sake.Inbound{}
	if r := srv.Handle(ctx, msgs[0], in); r.ErrorCode != 0 || !bytes.Contains(r.Body, []byte(`"inputSchema"`)) {
		b.Fatalf("search_tools: %s", r.Body)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if r := srv.Handle(ctx, msgs[i%len(msgs)], in); r.ErrorCode != 0 {
			b.Fatal(string(r.Body))
		}
	}
	if s.builds.Load() != 1 {
		b.Fatalf("the index was built %d times, want once", s.builds.Load())
	}
}
