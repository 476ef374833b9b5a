package toolsearch

import (
	"math"
	"slices"
	"sync"
)

// Doc is what the index knows of one tool.
type Doc struct {
	// Name is the tool's name; Title and Description its own.
	Name, Title, Description string
	// Args are its arguments (the input schema's top-level properties).
	Args []Arg
}

// Arg is one argument of a tool.
type Arg struct {
	Name, Description string
}

// Hit is one result of a search: the position of the tool in the
// documents the index was built from, and its score.
type Hit struct {
	Doc   int
	Score float64
}

// The fields of a tool, and how much a term found in each counts: a word
// of the name says most about what the tool does, a word of an
// argument's description least. b is how much the field's length
// dampens a term (BM25's b, per field as in BM25F).
var fields = [...]struct{ weight, b float64 }{
	fieldName:    {3.0, 0.3},
	fieldTitle:   {2.0, 0.3},
	fieldDesc:    {1.0, 0.75},
	fieldArgName: {1.0, 0.5},
	fieldArgDesc: {0.4, 0.75},
}

const (
	fieldName = iota
	fieldTitle
	fieldDesc
	fieldArgName
	fieldArgDesc
	numFields
)

// k1 is BM25's saturation: how fast repeats of a term stop counting.
const k1 = 1.2

// maxQueryTerms bounds the terms of one query that are looked up.
const maxQueryTerms = 32

// posting is a term's weight in one document: its BM25F score
// contribution, computed once when the index is built.
type posting struct {
	doc    int32
	weight float32
}

// Index ranks tools for a query with BM25F: each field of a tool (name,
// title, description, argument names, argument descriptions) counts with
// its own weight and length normalisation, over terms split from
// snake_case and camelCase and reduced to their stems; a query's words are
// also looked up under common synonyms (delete/remove, get/fetch,
// find/search, ...), counting less than the words themselves. An Index is
// immutable and safe for concurrent use; build a new one when the tools
// change.
type Index struct {
	postings map[string][]posting
	n        int
	scores   sync.Pool // *[]float32 of n, zeroed after each use
}

// NewIndex builds the index of docs; Hit.Doc is a position in docs. Its
// cost is linear in the text of the docs.
func NewIndex(docs []Doc) *Index {
	// What each document holds: its terms with their counts per field,
	// one run of terms per document in one slice.
	type termTF struct {
		term string
		tf   [numFields]float32
	}
	var terms []termTF
	starts := make([]int, len(docs)+1)
	lens := make([][numFields]float64, len(docs))
	var total [numFields]float64
	df := map[string]int{}
	stems := map[string]string{}
	slot := map[string]int{} // term → its place in terms, for the document being read
	for i := range docs {
		d := &docs[i]
		starts[i] = len(terms)
		clear(slot)
		add := func(f int, text string) {
			tokens(text, stems, func(term string) {
				j, ok := slot[term]
				if !ok {
					j = len(terms)
					slot[term] = j
					terms = append(terms, termTF{term: term})
					df[term]++
				}
				terms[j].tf[f]++
				lens[i][f]++
			})
		}
		add(fieldName, d.Name)
		add(fieldTitle, d.Title)
		add(fieldDesc, d.Description)
		for _, a := range d.Args {
			add(fieldArgName, a.Name)
			add(fieldArgDesc, a.Description)
		}
		for f := range numFields {
			total[f] += lens[i][f]
		}
	}
	starts[len(docs)] = len(terms)
	var avg [numFields]float64
	for f := range numFields {
		avg[f] = 1
		if len(docs) > 0 && total[f] > 0 {
			avg[f] = total[f] / float64(len(docs))
		}
	}
	ix := &Index{postings: make(map[string][]posting, len(df)), n: len(docs)}
	n := float64(len(docs))
	idf := make(map[string]float64, len(df))
	for term, k := range df {
		idf[term] = math.Log(1 + (n-float64(k)+0.5)/(float64(k)+0.5))
		ix.postings[term] = make([]posting, 0, k)
	}
	for i := range docs {
		var norm [numFields]float64
		for f := range numFields {
			norm[f] = 1 - fields[f].b + fields[f].b*lens[i][f]/avg[f]
		}
		for _, x := range terms[starts[i]:starts[i+1]] {
			var w float64
			for f := range numFields {
				if x.tf[f] != 0 {
					w += fields[f].weight * float64(x.tf[f]) / norm[f]
				}
			}
			ix.postings[x.term] = append(ix.postings[x.term], posting{doc: int32(i), weight: float32(idf[x.term] * w / (k1 + w))})
		}
	}
	ix.scores.New = func() any { s := make([]float32, ix.n); return &s }
	return ix
}

// Len returns the number of documents indexed.
func (ix *Index) Len() int { return ix.n }

// Search returns at most k hits for query, best first (ties in the order
// of the documents), skipping the documents keep refuses (nil keeps all).
// keep is asked only of documents that match, best first, until k are
// kept. Its cost is linear in the postings of the query's terms.
func (ix *Index) Search(query string, k int, keep func(doc int) bool) []Hit {
	if k <= 0 || ix.n == 0 {
		return nil
	}
	terms := queryTerms(query)
	if len(terms) == 0 {
		return nil
	}
	sp := ix.scores.Get().(*[]float32)
	scores := *sp
	var touched []int32
	for _, qt := range terms {
		for _, p := range ix.postings[qt.term] {
			if scores[p.doc] == 0 {
				touched = append(touched, p.doc)
			}
			scores[p.doc] += qt.weight * p.weight
		}
	}
	hits := make([]Hit, 0, len(touched))
	for _, d := range touched {
		hits = append(hits, Hit{Doc: int(d), Score: float64(scores[d])})
		scores[d] = 0
	}
	ix.scores.Put(sp)
	slices.SortFunc(hits, func(a, b Hit) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return a.Doc - b.Doc
	})
	out := hits[:0]
	for _, h := range hits {
		if len(out) == k {
			break
		}
		if keep == nil || keep(h.Doc) {
			out = append(out, h)
		}
	}
	return out
}

// queryTerm is a term looked up for a query, and how much it counts.
type queryTerm struct {
	term   string
	weight float32
}

// synonymWeight is how much a synonym of a query's word counts next to
// the word itself.
const synonymWeight = 0.5

// queryTerms turns a query into the terms looked up: its own words
// (each once) and their synonyms.
func queryTerms(query string) []queryTerm {
	var out []queryTerm
	seen := map[string]int{}
	add := func(term string, w float32) {
		if i, ok := seen[term]; ok {
			out[i].weight = max(out[i].weight, w)
			return
		}
		if len(out) >= maxQueryTerms {
			return
		}
		seen[term] = len(out)
		out = append(out, queryTerm{term: term, weight: w})
	}
	tokens(query, nil, func(term string) {
		add(term, 1)
		for _, s := range synonyms[term] {
			add(s, synonymWeight)
		}
	})
	return out
}
