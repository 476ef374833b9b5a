package toolsearch

import (
	"encoding/json"
	"fmt"
	"testing"
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
