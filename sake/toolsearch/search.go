package toolsearch

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sync"
	"sync/atomic"

	"github.com/sakemcp/sake-go/sake"
)

// Defaults and bounds of a search.
const (
	// DefaultResults is how many tools search_tools returns when the
	// query asks for no number.
	DefaultResults = 5
	// MaxResults is the most tools one query may ask for.
	MaxResults = 50
	// MaxQueryBytes bounds a query's length.
	MaxQueryBytes = 2048
)

// Options configure a Search.
type Options struct {
	// Covers selects the tools the search takes out of tools/list: those
	// for which it returns true (nil covers every tool). Namespace covers
	// the tools of one mount or gateway entry. Tools it does not cover
	// stay listed as they are and are not searched.
	Covers func(name string) bool
	// AlwaysList names covered tools that stay listed (and are searched
	// too): the two or three a model needs at once.
	AlwaysList []string
	// SearchTool and CallTool name the two tools the search adds;
	// "search_tools" and "call_tool" when empty. Give other names when
	// several searches serve one server (one per mount, say). A tool of
	// the server with either name is shadowed by the search's.
	SearchTool, CallTool string
	// Results is how many tools a query returns when it asks for no
	// number; DefaultResults when zero, at most MaxResults.
	Results int
	// OnlyPermitted leaves out of the results the tools whose
	// requirement (scopes, authentication) the caller does not meet now,
	// even when the server's lists show them (servers without
	// sake.PerCallerLists list every tool so that a client can step up).
	OnlyPermitted bool
}

// Search replaces a server's tool catalog, or the part of it Options.Covers
// selects, with two tools: one that finds tools by what they do, one that
// calls a tool found. Install its Middleware with sake.Use (or
// gateway.ServerOptions) first, before middleware that should see the
// real tool a call_tool reaches.
type Search struct {
	opts    Options
	pinned  map[string]bool
	entries [2]json.RawMessage // the list entries of the two tools

	built  atomic.Pointer[built]
	mu     sync.Mutex   // one rebuild at a time
	builds atomic.Int64 // indexes built, for tests
}

// built is the index of one server's catalog.
type built struct {
	srv *sake.Server
	cat sake.ToolCatalog
	ix  *Index
	pos []int // the catalog position of each indexed document
}

var toolNameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

// New checks opts and returns a Search.
func New(opts Options) (*Search, error) {
	if opts.SearchTool == "" {
		opts.SearchTool = "search_tools"
	}
	if opts.CallTool == "" {
		opts.CallTool = "call_tool"
	}
	for _, n := range []string{opts.SearchTool, opts.CallTool} {
		if !toolNameRE.MatchString(n) {
			return nil, fmt.Errorf("toolsearch: tool name %q is not 1 to 128 of A-Z a-z 0-9 _ . -", n)
		}
	}
	if opts.SearchTool == opts.CallTool {
		return nil, fmt.Errorf("toolsearch: SearchTool and CallTool are both %q; give them different names", opts.SearchTool)
	}
	switch {
	case opts.Results == 0:
		opts.Results = DefaultResults
	case opts.Results < 0 || opts.Results > MaxResults:
		return nil, fmt.Errorf("toolsearch: Results is %d; give 1 to %d (or 0 for %d)", opts.Results, MaxResults, DefaultResults)
	}
	s := &Search{opts: opts, pinned: map[string]bool{}}
	for _, n := range opts.AlwaysList {
		s.pinned[n] = true
	}
	var err error
	if s.entries[0], err = searchEntry(opts); err != nil {
		return nil, err
	}
	if s.entries[1], err = callEntry(opts); err != nil {
		return nil, err
	}
	return s, nil
}

// Namespace returns a Covers function for the tools a server mounted
// under namespace (sake.Server.Mount, a gateway entry) is served with:
// those whose names start with namespace and an underscore.
func Namespace(namespace string) func(name string) bool {
	prefix := namespace + "_"
	return func(name string) bool { return len(name) > len(prefix) && name[:len(prefix)] == prefix }
}

// covers reports whether the search takes the tool out of the list.
func (s *Search) covers(name string) bool {
	return s.opts.Covers == nil || s.opts.Covers(name)
}

// Middleware returns the middleware that lists, answers and forwards.
func (s *Search) Middleware() sake.Middleware {
	return func(next sake.Handler) sake.Handler {
		return func(ctx context.Context, req *sake.Request) (any, error) {
			switch req.Method {
			case "tools/list":
				return s.list(ctx, req, next)
			case "tools/call":
				switch req.Params.Name {
				case s.opts.SearchTool:
					return s.search(req)
				case s.opts.CallTool:
					return s.call(ctx, req, next)
				}
			}
			return next(ctx, req)
		}
	}
}

// index returns the index of the server's catalog as it is now, built
// once per change of the catalog.
func (s *Search) index(srv *sake.Server) *built {
	cat := srv.ToolCatalog()
	if b := s.built.Load(); b != nil && b.srv == srv && b.cat == cat {
		return b
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if b := s.built.Load(); b != nil && b.srv == srv && b.cat.Same(cat) {
		nb := *b
		nb.cat = cat // the same tools in a newer snapshot: keep the index
		s.built.Store(&nb)
		return &nb
	}
	s.builds.Add(1)
	b := &built{srv: srv, cat: cat}
	docs := make([]Doc, 0, cat.Len())
	for i := range cat.Len() {
		if !s.covers(cat.Name(i)) {
			continue
		}
		docs = append(docs, DocFromEntry(cat.Entry(nil, i)))
		b.pos = append(b.pos, i)
	}
	b.ix = NewIndex(docs)
	s.built.Store(b)
	return b
}

// DocFromEntry reads what the index needs from a tool's tools/list entry:
// its name, title (or annotations' title), description and the names and
// descriptions of its input schema's properties. A malformed entry gives
// what could be read.
func DocFromEntry(entry json.RawMessage) Doc {
	var e struct {
		Name        string `json:"name"`
		Title       string `json:"title"`
		Description string `json:"description"`
		Annotations struct {
			Title string `json:"title"`
		} `json:"annotations"`
		InputSchema struct {
			Properties map[string]struct {
				Description string `json:"description"`
			} `json:"properties"`
		} `json:"inputSchema"`
	}
	_ = json.Unmarshal(entry, &e)
	d := Doc{Name: e.Name, Title: e.Title, Description: e.Description}
	if d.Title == "" {
		d.Title = e.Annotations.Title
	}
	for _, name := range sortedKeys(e.InputSchema.Properties) {
		d.Args = append(d.Args, Arg{Name: name, Description: e.InputSchema.Properties[name].Description})
	}
	return d
}
