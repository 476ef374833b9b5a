package toolsearch

import (
	"encoding/json"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// benchCatalog is testdata/catalog.json: real tools of real MCP servers,
// each named namespace_name as a gateway serves them.
type benchCatalog struct {
	Servers []struct {
		Namespace string            `json:"namespace"`
		Source    string            `json:"source"`
		Tools     []json.RawMessage `json:"tools"`
	} `json:"servers"`
}

type benchQuery struct {
	Query string   `json:"query"`
	Want  []string `json:"want"`
}

// loadCatalog returns the catalog's tools as list entries renamed with
// their namespace, and the queries.
func loadCatalog(t testing.TB) (names []string, entries []json.RawMessage, queries []benchQuery) {
	names, entries = loadTools(t)
	return names, entries, loadQueries(t, "testdata/queries.json")
}

// loadTools returns the catalog's tools as list entries renamed with
// their namespace.
func loadTools(t testing.TB) (names []string, entries []json.RawMessage) {
	t.Helper()
	raw, err := os.ReadFile("testdata/catalog.json")
	if err != nil {
		t.Fatal(err)
	}
	var c benchCatalog
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	for _, s := range c.Servers {
		for _, e := range s.Tools {
			var m map[string]any
			if err := json.Unmarshal(e, &m); err != nil {
				t.Fatal(err)
			}
			m["name"] = s.Namespace + "_" + m["name"].(string)
			b, _ := json.Marshal(m)
			names = append(names, m["name"].(string))
			entries = append(entries, b)
		}
	}
	return names, entries
}

// loadQueries reads a file of queries.
func loadQueries(t testing.TB, file string) []benchQuery {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var q struct {
		Queries []benchQuery `json:"queries"`
	}
	if err := json.Unmarshal(raw, &q); err != nil {
		t.Fatal(err)
	}
	return q.Queries
}

// hitRates runs every query through search and returns the share whose
// wanted tool is first, and among the first five.
func hitRates(t *testing.T, names []string, queries []benchQuery, search func(q string) []int) (top1, top5 float64) {
	t.Helper()
	for _, q := range queries {
		ranked := search(q.Query)
		var got []string
		for i, d := range ranked {
			if i == 5 {
				break
			}
			got = append(got, names[d])
		}
		for _, w := range q.Want {
			if !slices.Contains(names, w) {
				t.Fatalf("query %q wants %s, which the catalog does not have", q.Query, w)
			}
		}
		hit := slices.IndexFunc(got, func(n string) bool { return slices.Contains(q.Want, n) })
		switch {
		case hit == 0:
			top1++
			top5++
		case hit > 0:
			top5++
		default:
			t.Logf("miss: %q wants %v, got %v", q.Query, q.Want, got)
		}
	}
	return top1 / float64(len(queries)), top5 / float64(len(queries))
}

// TestRankingQuality measures the search on the real catalog, against
// plain BM25 (one field, words split at spaces and punctuation, no stems
// or synonyms). It fails when the hit rate at 5 falls below the figure
// docs/tool-search.md reports.
func TestRankingQuality(t *testing.T) {
	names, entries, queries := loadCatalog(t)
	if len(names) < 300 || len(queries) < 40 {
		t.Fatalf("the benchmark needs at least 300 tools and 40 queries; it has %d and %d", len(names), len(queries))
	}
	docs := make([]Doc, len(entries))
	for i, e := range entries {
		docs[i] = DocFromEntry(e)
	}
	ix := NewIndex(docs)
	top1, top5 := hitRates(t, names, queries, func(q string) []int {
		var out []int
		for _, h := range ix.Search(q, 5, nil) {
			out = append(out, h.Doc)
		}
		return out
	})
	base := newPlainBM25(docs)
	b1, b5 := hitRates(t, names, queries, base.search)
	t.Logf("%d tools, %d queries: toolsearch hit@1 %.0f%%, hit@5 %.0f%%; plain BM25 hit@1 %.0f%%, hit@5 %.0f%%",
		len(names), len(queries), 100*top1, 100*top5, 100*b1, 100*b5)
	if top5 < minHitAt5 {
		t.Errorf("hit rate at 5 is %.2f, below %.2f", top5, minHitAt5)
	}
	held := loadQueries(t, "testdata/heldout.json")
	h1, h5 := hitRates(t, names, held, func(q string) []int {
		var out []int
		for _, h := range ix.Search(q, 5, nil) {
			out = append(out, h.Doc)
		}
		return out
	})
	hb1, hb5 := hitRates(t, names, held, base.search)
	t.Logf("held out, %d queries: toolsearch hit@1 %.0f%%, hit@5 %.0f%%; plain BM25 hit@1 %.0f%%, hit@5 %.0f%%",
		len(held), 100*h1, 100*h5, 100*hb1, 100*hb5)
	if h5 < minHeldOutHitAt5 {
		t.Errorf("hit rate at 5 on the held-out queries is %.2f, below %.2f", h5, minHeldOutHitAt5)
	}
}

// minHeldOutHitAt5 is the hit rate at 5 the search keeps on the held-out
// queries.
const minHeldOutHitAt5 = 0.75

// minHitAt5 is the hit rate at 5 the search keeps on the catalog.
const minHitAt5 = 0.85

// plainBM25 is the baseline: Okapi BM25 over one field.
type plainBM25 struct {
	tf   []map[string]float64
	lens []float64
	avg  float64
	df   map[string]float64
}

func plainWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

func newPlainBM25(docs []Doc) *plainBM25 {
	p := &plainBM25{df: map[string]float64{}}
	var total float64
	for _, d := range docs {
		text := d.Name + " " + d.Title + " " + d.Description
		for _, a := range d.Args {
			text += " " + a.Name + " " + a.Description
		}
		m := map[string]float64{}
		words := plainWords(text)
		for _, w := range words {
			m[w]++
		}
		for w := range m {
			p.df[w]++
		}
		p.tf = append(p.tf, m)
		p.lens = append(p.lens, float64(len(words)))
		total += float64(len(words))
	}
	p.avg = total / float64(len(docs))
	return p
}

func (p *plainBM25) search(q string) []int {
	n := float64(len(p.tf))
	type scored struct {
		doc   int
		score float64
	}
	var hits []scored
	for i, m := range p.tf {
		var s float64
		for _, w := range plainWords(q) {
			if f := m[w]; f > 0 {
				idf := math.Log(1 + (n-p.df[w]+0.5)/(p.df[w]+0.5))
				s += idf * f * 2.2 / (f + 1.2*(1-0.75+0.75*p.lens[i]/p.avg))
			}
		}
		if s > 0 {
			hits = append(hits, scored{i, s})
		}
	}
	slices.SortStableFunc(hits, func(a, b scored) int {
		if a.score > b.score {
			return -1
		}
		if a.score < b.score {
			return 1
		}
		return 0
	})
	var out []int
	for i := 0; i < len(hits) && i < 5; i++ {
		out = append(out, hits[i].doc)
	}
	return out
}
