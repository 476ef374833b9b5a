package sake_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/sakemcp/sake-go/sake"
)

func nameTool(name string) *sake.ToolDef {
	return sake.NewTool(name, func(ctx *sake.Context) (string, error) { return name, nil })
}

func toolNames(t *testing.T, s *sake.Server) string {
	t.Helper()
	tools, err := connect(t, s).ListTools()
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, len(tools))
	for i, tl := range tools {
		names[i] = tl.Name
	}
	return strings.Join(names, ",")
}

// counter counts broadcasts per list.
type counter struct {
	mu sync.Mutex
	n  map[sake.List]int
}

func watch(s *sake.Server) *counter {
	c := &counter{n: map[sake.List]int{}}
	s.Watch(func(b sake.Broadcast) { c.mu.Lock(); c.n[b.List]++; c.mu.Unlock() })
	return c
}

func (c *counter) get(l sake.List) int { c.mu.Lock(); defer c.mu.Unlock(); return c.n[l] }

func TestRegistryKeepsOrderThroughChanges(t *testing.T) {
	t.Parallel()
	s := sake.MustNew(nil)
	seen := watch(s)
	// Added out of order, with reads in between and without.
	for _, n := range []string{"m", "c", "x"} {
		if err := s.AddTool(nameTool(n)); err != nil {
			t.Fatal(err)
		}
	}
	if got := toolNames(t, s); got != "c,m,x" {
		t.Fatalf("after three adds: %s", got)
	}
	if err := s.AddTool(nameTool("a"), nameTool("n"), nameTool("z"), nameTool("m")); err != nil {
		t.Fatal(err)
	}
	if !s.RemoveTool("c") || s.RemoveTool("c") || s.RemoveTool("never") {
		t.Fatal("RemoveTool reported wrongly")
	}
	if got := toolNames(t, s); got != "a,m,n,x,z" {
		t.Fatalf("after a batch and a removal: %s", got)
	}
	// Added and removed before anyone read: never seen.
	if err := s.AddTool(nameTool("b")); err != nil {
		t.Fatal(err)
	}
	if !s.RemoveTool("b") {
		t.Fatal("a pending tool was not found")
	}
	if got := toolNames(t, s); got != "a,m,n,x,z" {
		t.Fatalf("after add and remove: %s", got)
	}
	// Three single adds, one batch, one removal that found its tool, one
	// add and one removal: one broadcast each; failed removals none.
	if n := seen.get(sake.ListTools); n != 7 {
		t.Errorf("%d broadcasts, want 7", n)
	}
	res, err := connect(t, s).CallTool("m", nil)
	if err != nil || res.Text() != "m" {
		t.Fatalf("the replaced tool: %v, %v", res, err)
	}
}

func TestAddToolIsAllOrNothing(t *testing.T) {
	t.Parallel()
	s := sake.MustNew(nil)
	seen := watch(s)
	err := s.AddTool(nameTool("good"), sake.NewTool("bad name!", func(*sake.Context) error { return nil }), nil)
	if err == nil || !strings.Contains(err.Error(), "2 definitions are wrong") || !strings.Contains(err.Error(), "bad name!") {
		t.Fatalf("err = %v", err)
	}
	if got := toolNames(t, s); got != "" {
		t.Fatalf("a failed batch added %s", got)
	}
	if seen.get(sake.ListTools) != 0 {
		t.Error("a failed batch was broadcast")
	}
	if err := s.AddTool(); err != nil || seen.get(sake.ListTools) != 0 {
		t.Errorf("an empty batch: %v, %d broadcasts", err, seen.get(sake.ListTools))
	}
}

func TestBatchesOfResourcesAndPrompts(t *testing.T) {
	t.Parallel()
	s := sake.MustNew(nil)
	seen := watch(s)
	var defs []*sake.ResourceDef
	for i := 3; i > 0; i-- {
		uri := fmt.Sprintf("mem://%d", i)
		defs = append(defs, sake.NewResource(uri, func(*sake.Context) (string, error) { return uri, nil }))
	}
	defs = append(defs, sake.NewResourceTemplate("mem://t/{id}", func(_ *sake.Context, v map[string]string) (string, error) { return v["id"], nil }))
	if err := s.AddResource(defs...); err != nil {
		t.Fatal(err)
	}
	if err := s.AddPrompt(
		sake.NewPrompt("b", func(*sake.Context) (string, error) { return "b", nil }),
		sake.NewPrompt("a", func(*sake.Context) (string, error) { return "a", nil })); err != nil {
		t.Fatal(err)
	}
	if seen.get(sake.ListResources) != 1 || seen.get(sake.ListPrompts) != 1 {
		t.Errorf("broadcasts: %d resources, %d prompts", seen.get(sake.ListResources), seen.get(sake.ListPrompts))
	}
	c := connect(t, s)
	rs, err := c.ListResources()
	if err != nil || len(rs) != 3 || rs[0].URI != "mem://1" || rs[2].URI != "mem://3" {
		t.Fatalf("resources = %+v, %v", rs, err)
	}
	if got, err := c.ReadResource("mem://t/42"); err != nil || got[0].Text != "42" {
		t.Fatalf("template read = %+v, %v", got, err)
	}
	ps, err := c.ListPrompts()
	if err != nil || len(ps) != 2 || ps[0].Name != "a" {
		t.Fatalf("prompts = %+v, %v", ps, err)
	}
	if !s.RemoveResource("mem://t/{id}") || s.RemoveResource("mem://t/{id}") || !s.RemovePrompt("a") {
		t.Fatal("removal reported wrongly")
	}
	var e *sake.Error
	if _, err := c.ReadResource("mem://t/42"); !errors.As(err, &e) {
		t.Errorf("a removed template still reads: %v", err)
	}
	before := [2]int{seen.get(sake.ListResources), seen.get(sake.ListPrompts)}
	if err := s.AddResource(sake.NewResource("mem://ok", func(*sake.Context) (string, error) { return "", nil }), &sake.ResourceDef{}); err == nil {
		t.Error("a batch with an empty definition was accepted")
	}
	if _, err := c.ReadResource("mem://ok"); err == nil {
		t.Error("a failed batch added its good resource")
	}
	if err := s.AddPrompt(sake.NewPrompt("ok", func(*sake.Context) (string, error) { return "", nil }), &sake.PromptDef{}); err == nil {
		t.Error("a batch with an empty prompt definition was accepted")
	}
	if ps, _ := c.ListPrompts(); len(ps) != 1 || ps[0].Name != "b" {
		t.Errorf("prompts after a failed batch = %+v, want b alone", ps)
	}
	if after := [2]int{seen.get(sake.ListResources), seen.get(sake.ListPrompts)}; after != before {
		t.Errorf("failed batches were broadcast: %v, then %v", before, after)
	}
}

// Requests read the registry while it changes (run with -race).
func TestRegistryChangesUnderLoad(t *testing.T) {
	t.Parallel()
	s := sake.MustNew(nil)
	c := connect(t, s)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range 200 {
			_ = s.AddTool(nameTool(fmt.Sprintf("t%03d", i)))
			if i%3 == 0 {
				s.RemoveTool(fmt.Sprintf("t%03d", i/2))
			}
		}
	}()
	for range 50 {
		if _, err := c.ListTools(); err != nil {
			t.Error(err)
		}
	}
	wg.Wait()
	if _, err := c.CallTool("t199", nil); err != nil {
		t.Error(err)
	}
}

func TestDefaultPageHoldsAThousandAndAtMostFourMiB(t *testing.T) {
	t.Parallel()
	s := sake.MustNew(nil)
	defs := make([]*sake.ToolDef, 1001)
	for i := range defs {
		defs[i] = nameTool(fmt.Sprintf("t%04d", i))
	}
	if err := s.AddTool(defs...); err != nil {
		t.Fatal(err)
	}
	c := connect(t, s)
	p, err := c.ListToolsPage("")
	if err != nil || len(p.Items) != 1000 || p.NextCursor == "" {
		t.Fatalf("first page: %d items, cursor %q, %v", len(p.Items), p.NextCursor, err)
	}
	p, err = c.ListToolsPage(p.NextCursor)
	if err != nil || len(p.Items) != 1 || p.Items[0].Name != "t1000" || p.NextCursor != "" {
		t.Fatalf("second page: %+v, %v", p, err)
	}

	// Five tools of 1.5 MiB each: two per page, whatever the count limit.
	big := sake.MustNew(nil, sake.WithLimits(sake.Limits{PageSize: -1}))
	long := strings.Repeat("d", 3<<19)
	for i := range 5 {
		if err := big.AddTool(nameTool(fmt.Sprint("big", i)).Description(long)); err != nil {
			t.Fatal(err)
		}
	}
	c = connect(t, big)
	var sizes []int
	cursor := ""
	for {
		p, err := c.ListToolsPage(cursor)
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, len(p.Items))
		if cursor = p.NextCursor; cursor == "" {
			break
		}
	}
	if fmt.Sprint(sizes) != "[2 2 1]" {
		t.Errorf("page sizes %v, want [2 2 1]", sizes)
	}
}

func TestTypedConstructors(t *testing.T) {
	t.Parallel()
	s := sake.MustNew(nil)
	type vars struct {
		ID string `json:"id"`
	}
	type promptArgs struct {
		Topic string `json:"topic"`
	}
	err := errors.Join(
		s.AddTool(sake.NewTypedTool("double", func(_ *sake.Context, a struct {
			N int `json:"n"`
		}) (int, error) {
			return 2 * a.N, nil
		})),
		s.AddResource(sake.NewTypedResource("mem://fixed", func(*sake.Context) (string, error) { return "fixed", nil })),
		s.AddResource(sake.NewTypedResourceTemplate("mem://item/{id}", func(_ *sake.Context, v vars) (string, error) { return "item " + v.ID, nil })),
		s.AddPrompt(sake.NewTypedPrompt("about", func(_ *sake.Context, a promptArgs) (string, error) { return "Tell me about " + a.Topic, nil })),
	)
	if err != nil {
		t.Fatal(err)
	}
	c := connect(t, s)
	if res, err := c.CallTool("double", map[string]any{"n": 21}); err != nil || res.Text() != "42" {
		t.Errorf("double = %v, %v", res, err)
	}
	if res, err := c.CallTool("double", map[string]any{"n": "x"}); err == nil || !res.IsError || !strings.Contains(err.Error(), "n: must be an integer") {
		t.Errorf("double with a string = %v, %v", res, err)
	}
	if got, err := c.ReadResource("mem://item/7"); err != nil || got[0].Text != "item 7" {
		t.Errorf("template = %+v, %v", got, err)
	}
	if got, err := c.ReadResource("mem://fixed"); err != nil || got[0].Text != "fixed" {
		t.Errorf("resource = %+v, %v", got, err)
	}
	p, err := c.GetPrompt("about", map[string]string{"topic": "sake"})
	if err != nil || len(p.Messages) != 1 {
		t.Errorf("prompt = %+v, %v", p, err)
	}
	// A typed tool whose argument type cannot be a tool's is refused when added.
	if err := s.AddTool(sake.NewTypedTool("bad", func(_ *sake.Context, n int) (string, error) { return "", nil })); err == nil {
		t.Error("an int argument was accepted")
	}
}
