package sake_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/saketest"
)

type calcArgs struct {
	X int `json:"x"`
}

// calcTool is version v of the tool calc: it answers "v<version>: x".
func calcTool(version string) *sake.ToolDef {
	return sake.NewTypedTool("calc", func(_ *sake.Context, a calcArgs) (string, error) {
		return fmt.Sprintf("v%s: %d", version, a.X), nil
	}).Description("calc " + version).Version(version)
}

func notePrompt(version string) *sake.PromptDef {
	return sake.NewPrompt("note", func(_ *sake.Context) (string, error) { return "note " + version, nil }).Version(version)
}

func policyResource(version string) *sake.ResourceDef {
	return sake.NewResource("shop://policy", func(_ *sake.Context) (string, error) { return "policy " + version, nil }).Version(version)
}

// versionedServer serves calc 1.0, 2.0 and 10.0, prompt note 1 and 2,
// and the resource shop://policy 2024-01-31 and 2025-06-01.
func versionedServer(t *testing.T) *sake.Server {
	t.Helper()
	srv := sake.MustNew(nil)
	if err := srv.AddTool(calcTool("2.0"), calcTool("10.0"), calcTool("1.0")); err != nil {
		t.Fatal(err)
	}
	if err := srv.AddPrompt(notePrompt("1"), notePrompt("2")); err != nil {
		t.Fatal(err)
	}
	if err := srv.AddResource(policyResource("2025-06-01"), policyResource("2024-01-31")); err != nil {
		t.Fatal(err)
	}
	return srv
}

// assertUnknownVersion checks the error of a call for a version the
// server does not serve: the unknown-name error, naming the versions.
func assertUnknownVersion(t *testing.T, err error, code int, what, served string) {
	t.Helper()
	var e *sake.Error
	if !errors.As(err, &e) || e.Code != code || !strings.HasPrefix(e.Message, what) ||
		!strings.Contains(e.Message, "the versions served are "+served) {
		t.Errorf("call of an unknown version: %v, want %d %q naming %s", err, code, what, served)
	}
}

// listedTool returns the one tool listed, with the version its _meta
// carries.
func listedTool(t *testing.T, c *saketest.Client) (description, version string) {
	t.Helper()
	tools, err := c.ListTools()
	if err != nil || len(tools) != 1 {
		t.Fatalf("tools/list = %+v, %v; want one tool", tools, err)
	}
	v, _ := tools[0].Meta[sake.MetaComponentVersion].(string)
	return tools[0].Description, v
}

// listedVersions returns the versions the one tool listed names in
// _meta, joined with spaces ("" when it names none).
func listedVersions(t *testing.T, c *saketest.Client) string {
	t.Helper()
	tools, err := c.ListTools()
	if err != nil || len(tools) != 1 {
		t.Fatalf("tools/list = %+v, %v; want one tool", tools, err)
	}
	list, _ := tools[0].Meta[sake.MetaComponentVersions].([]any)
	return strings.TrimSuffix(strings.TrimPrefix(fmt.Sprint(list), "["), "]")
}

func TestVersionsSideBySide(t *testing.T) {
	t.Parallel()
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		c := saketest.Connect(t, versionedServer(t), opts...)

		// Lists show the highest: 10.0 above 2.0 (numbers, not text).
		if d, v := listedTool(t, c); d != "calc 10.0" || v != "10.0" {
			t.Errorf("listed calc = %q version %q, want calc 10.0", d, v)
		}
		if vs := listedVersions(t, c); vs != "10.0 2.0 1.0" {
			t.Errorf("listed calc names the versions %q, want 10.0 2.0 1.0", vs)
		}
		ps, err := c.ListPrompts()
		if err != nil || len(ps) != 1 || ps[0].Meta[sake.MetaComponentVersion] != "2" {
			t.Errorf("prompts/list = %+v, %v", ps, err)
		}
		rs, err := c.ListResources()
		if err != nil || len(rs) != 1 || rs[0].Meta[sake.MetaComponentVersion] != "2025-06-01" {
			t.Errorf("resources/list = %+v, %v", rs, err)
		}

		// Without a version a call gets the highest; with one, that one.
		if res, err := c.CallTool("calc", map[string]any{"x": 1}); err != nil || res.Text() != "v10.0: 1" {
			t.Errorf("calc = %v, %v", res, err)
		}
		for _, v := range []string{"1.0", "2.0", "10.0"} {
			res, err := c.WithVersion(v).CallTool("calc", map[string]any{"x": 2})
			if err != nil || res.Text() != "v"+v+": 2" {
				t.Errorf("calc version %s = %v, %v", v, res, err)
			}
		}
		if p, err := c.WithVersion("1").GetPrompt("note", nil); err != nil || !strings.Contains(mustJSON(t, p), `"note 1"`) {
			t.Errorf("note version 1 = %+v, %v", p, err)
		}
		if rc, err := c.WithVersion("2024-01-31").ReadResource("shop://policy"); err != nil || len(rc) != 1 || rc[0].Text != "policy 2024-01-31" {
			t.Errorf("policy version 2024-01-31 = %+v, %v", rc, err)
		}
		if rc, err := c.ReadResource("shop://policy"); err != nil || len(rc) != 1 || rc[0].Text != "policy 2025-06-01" {
			t.Errorf("policy = %+v, %v", rc, err)
		}

		// A version the server does not have: the unknown-name error, with
		// the versions served.
		_, err = c.WithVersion("3.0").CallTool("calc", map[string]any{"x": 1})
		assertUnknownVersion(t, err, sake.CodeInvalidParams, "Unknown tool: calc", "10.0, 2.0, 1.0")
		_, err = c.WithVersion("3").GetPrompt("note", nil)
		assertUnknownVersion(t, err, sake.CodeInvalidParams, "Unknown prompt: note", "2, 1")
		wantCode := sake.CodeInvalidParams
		if c.Session().Era == sake.EraLegacy {
			wantCode = sake.CodeResourceNotFound
		}
		_, err = c.WithVersion("2020-01-01").ReadResource("shop://policy")
		assertUnknownVersion(t, err, wantCode, "Resource not found", "2025-06-01, 2024-01-31")
		// A version of a name the server does not have is an unknown name.
		_, err = c.WithVersion("1.0").CallTool("nothing", nil)
		assertUnknownTool(t, err, "nothing")
	})
}

func TestVersionsReplaceOnlyTheirOwnVersion(t *testing.T) {
	t.Parallel()
	srv := versionedServer(t)
	c := saketest.Connect(t, srv)
	replacement := sake.NewTypedTool("calc", func(_ *sake.Context, a calcArgs) (string, error) { return "new two", nil }).Version("2.0")
	if err := srv.AddTool(replacement); err != nil {
		t.Fatal(err)
	}
	if res, err := c.WithVersion("2.0").CallTool("calc", map[string]any{"x": 1}); err != nil || res.Text() != "new two" {
		t.Errorf("calc 2.0 after replacing it = %v, %v", res, err)
	}
	if res, err := c.WithVersion("1.0").CallTool("calc", map[string]any{"x": 1}); err != nil || res.Text() != "v1.0: 1" {
		t.Errorf("calc 1.0 after replacing 2.0 = %v, %v", res, err)
	}
	if !srv.RemoveTool("calc") {
		t.Fatal("RemoveTool(calc) = false")
	}
	_, err := c.WithVersion("1.0").CallTool("calc", map[string]any{"x": 1})
	assertUnknownTool(t, err, "calc")
}

func TestVersionsDisableOneVersion(t *testing.T) {
	t.Parallel()
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		srv := versionedServer(t)
		c := saketest.Connect(t, srv, opts...)
		l := saketest.Listen(t, srv)

		srv.Disable(sake.Components{Tools: []string{"calc"}, Prompts: []string{"note"}, Version: "10.0"})
		saketest.AssertListChanged(t, l, sake.ListTools)
		if d, v := listedTool(t, c); d != "calc 2.0" || v != "2.0" {
			t.Errorf("listed calc with 10.0 disabled = %q version %q, want 2.0", d, v)
		}
		if vs := listedVersions(t, c); vs != "2.0 1.0" {
			t.Errorf("listed calc with 10.0 disabled names the versions %q, want 2.0 1.0", vs)
		}
		if res, err := c.CallTool("calc", map[string]any{"x": 1}); err != nil || res.Text() != "v2.0: 1" {
			t.Errorf("calc with 10.0 disabled = %v, %v", res, err)
		}
		_, err := c.WithVersion("10.0").CallTool("calc", map[string]any{"x": 1})
		assertUnknownVersion(t, err, sake.CodeInvalidParams, "Unknown tool: calc", "2.0, 1.0")
		// The prompt has no version 10.0: it is untouched.
		if ps, err := c.ListPrompts(); err != nil || len(ps) != 1 || ps[0].Meta[sake.MetaComponentVersion] != "2" {
			t.Errorf("prompts/list = %+v, %v", ps, err)
		}

		// The whole name, disabled, then enabled: the later rule wins, for
		// every version.
		srv.Disable(sake.Components{Tools: []string{"calc"}})
		_, err = c.WithVersion("1.0").CallTool("calc", map[string]any{"x": 1})
		assertUnknownTool(t, err, "calc")
		if err != nil && strings.Contains(err.Error(), "versions served") {
			t.Errorf("a disabled name tells its versions: %v", err)
		}
		srv.Enable(sake.Components{Tools: []string{"calc"}})
		if d, _ := listedTool(t, c); d != "calc 10.0" {
			t.Errorf("listed calc after enabling the name = %q, want calc 10.0", d)
		}
	})
}

func TestVersionFilter(t *testing.T) {
	t.Parallel()
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		srv := versionedServer(t)
		c := saketest.Connect(t, srv, opts...)
		if err := srv.FilterVersions(sake.VersionFilter{Range: ">=2.0 <3"}); err != nil {
			t.Fatal(err)
		}
		if d, v := listedTool(t, c); d != "calc 2.0" || v != "2.0" {
			t.Errorf("listed calc with >=2.0 <3 = %q version %q", d, v)
		}
		if vs := listedVersions(t, c); vs != "" {
			t.Errorf("calc served in one version names the versions %q", vs)
		}
		for _, v := range []string{"1.0", "10.0"} {
			_, err := c.WithVersion(v).CallTool("calc", map[string]any{"x": 1})
			assertUnknownVersion(t, err, sake.CodeInvalidParams, "Unknown tool: calc", "2.0")
		}
		// The prompt's version 2 ranks as 2.0: it passes.
		if ps, err := c.ListPrompts(); err != nil || len(ps) != 1 || ps[0].Meta[sake.MetaComponentVersion] != "2" {
			t.Errorf("prompts/list = %+v, %v", ps, err)
		}
		if err := srv.FilterVersions(sake.VersionFilter{Range: "< 2"}); err != nil {
			t.Fatal(err)
		}
		if d, _ := listedTool(t, c); d != "calc 1.0" {
			t.Errorf("listed calc with < 2 = %q", d)
		}
		if _, err := c.GetPrompt("note", nil); err != nil {
			t.Errorf("note 1 passes < 2: %v", err)
		}
		_, err := c.WithVersion("2").GetPrompt("note", nil)
		assertUnknownVersion(t, err, sake.CodeInvalidParams, "Unknown prompt: note", "1")
		// Removing the filter brings every version back.
		if err := srv.FilterVersions(sake.VersionFilter{}); err != nil {
			t.Fatal(err)
		}
		if d, _ := listedTool(t, c); d != "calc 10.0" {
			t.Errorf("listed calc without a filter = %q", d)
		}
	})
}

func TestVersionFilterUnversioned(t *testing.T) {
	t.Parallel()
	srv := sake.MustNew(nil)
	plain := sake.NewTypedTool("plain", func(_ *sake.Context, a calcArgs) (string, error) { return "plain", nil })
	if err := srv.AddTool(plain, calcTool("1.0")); err != nil {
		t.Fatal(err)
	}
	c := saketest.Connect(t, srv)
	if err := srv.FilterVersions(sake.VersionFilter{Range: ">=1"}); err != nil {
		t.Fatal(err)
	}
	if tools, err := c.ListTools(); err != nil || len(tools) != 2 {
		t.Errorf("tools with unversioned passing = %+v, %v", tools, err)
	}
	if err := srv.FilterVersions(sake.VersionFilter{Range: ">=1", ExcludeUnversioned: true}); err != nil {
		t.Fatal(err)
	}
	if tools, err := c.ListTools(); err != nil || len(tools) != 1 || tools[0].Name != "calc" {
		t.Errorf("tools with unversioned excluded = %+v, %v", tools, err)
	}
	_, err := c.CallTool("plain", nil)
	assertUnknownTool(t, err, "plain")
}

func TestVersionFilterRefusesAMalformedRange(t *testing.T) {
	t.Parallel()
	srv := versionedServer(t)
	c := saketest.Connect(t, srv)
	for _, r := range []string{">=", "<3 >=", `>="2"`, ">=2 <x y,z="} {
		if err := srv.FilterVersions(sake.VersionFilter{Range: r}); err == nil {
			t.Errorf("FilterVersions(%q) = nil, want an error", r)
		}
	}
	if d, _ := listedTool(t, c); d != "calc 10.0" {
		t.Errorf("a refused filter changed the list: %q", d)
	}
}

func TestVersionsRefusedDefinitions(t *testing.T) {
	t.Parallel()
	srv := sake.MustNew(nil)
	if err := srv.AddTool(calcTool("1 .0")); err == nil || !strings.Contains(err.Error(), "version") {
		t.Errorf("a version with a space: %v", err)
	}
	if err := srv.AddTool(calcTool(strings.Repeat("9", 65))); err == nil || !strings.Contains(err.Error(), "64 bytes") {
		t.Errorf("a version of 65 bytes: %v", err)
	}
	if tools, err := saketest.Connect(t, srv).ListTools(); err != nil || len(tools) != 0 {
		t.Errorf("refused tools were added: %v, %v", tools, err)
	}
}

// versionedShop declares two versions of one tool on its methods.
type versionedShop struct{}

func (versionedShop) QuoteV1(_ *sake.Context, a calcArgs) (string, error) { return "quote 1", nil }
func (versionedShop) QuoteV2(_ *sake.Context, a calcArgs) (string, error) { return "quote 2", nil }

func (versionedShop) Declare(d *sake.Declarations) {
	d.Tool("QuoteV1").Name("quote").Version("1.0")
	d.Tool("QuoteV2").Name("quote").Version("2.0")
}

type sameVersionShop struct{ versionedShop }

func (sameVersionShop) Declare(d *sake.Declarations) {
	d.Tool("QuoteV1").Name("quote").Version("1.0")
	d.Tool("QuoteV2").Name("quote").Version("1.0")
}

func TestVersionsDeclaredOnMethods(t *testing.T) {
	t.Parallel()
	c := saketest.Connect(t, sake.MustNew(versionedShop{}))
	if res, err := c.CallTool("quote", map[string]any{"x": 1}); err != nil || res.Text() != "quote 2" {
		t.Errorf("quote = %v, %v", res, err)
	}
	if res, err := c.WithVersion("1.0").CallTool("quote", map[string]any{"x": 1}); err != nil || res.Text() != "quote 1" {
		t.Errorf("quote 1.0 = %v, %v", res, err)
	}
	_, err := sake.New(sameVersionShop{})
	if err == nil || !strings.Contains(err.Error(), "tool quote version 1.0") {
		t.Errorf("two methods declaring quote 1.0: %v", err)
	}
}

func TestVersionsThroughAMount(t *testing.T) {
	t.Parallel()
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		child := versionedServer(t)
		parent := sake.MustNew(nil)
		if err := parent.Mount("shop", child); err != nil {
			t.Fatal(err)
		}
		c := saketest.Connect(t, parent, opts...)
		if d, v := listedTool(t, c); d != "calc 10.0" || v != "10.0" {
			t.Errorf("mounted calc = %q version %q", d, v)
		}
		if vs := listedVersions(t, c); vs != "10.0 2.0 1.0" {
			t.Errorf("mounted calc names the versions %q", vs)
		}
		if res, err := c.WithVersion("1.0").CallTool("shop_calc", map[string]any{"x": 3}); err != nil || res.Text() != "v1.0: 3" {
			t.Errorf("shop_calc 1.0 = %v, %v", res, err)
		}
		if rc, err := c.WithVersion("2024-01-31").ReadResource("shop+shop://policy"); err != nil || len(rc) != 1 || rc[0].Text != "policy 2024-01-31" {
			t.Errorf("mounted policy 2024-01-31 = %+v, %v", rc, err)
		}
		// The parent's filter applies to what it mounts.
		if err := parent.FilterVersions(sake.VersionFilter{Range: "<2"}); err != nil {
			t.Fatal(err)
		}
		if d, _ := listedTool(t, c); d != "calc 1.0" {
			t.Errorf("mounted calc under <2 = %q", d)
		}
		_, err := c.WithVersion("2.0").CallTool("shop_calc", map[string]any{"x": 3})
		assertUnknownVersion(t, err, sake.CodeInvalidParams, "Unknown tool: shop_calc", "1.0")
		// The child's own filter is what a mount of it sees.
		if err := parent.FilterVersions(sake.VersionFilter{}); err != nil {
			t.Fatal(err)
		}
		if err := child.FilterVersions(sake.VersionFilter{Range: "=2.0"}); err != nil {
			t.Fatal(err)
		}
		if d, _ := listedTool(t, c); d != "calc 2.0" {
			t.Errorf("mounted calc under the child's =2.0 = %q", d)
		}
	})
}

func TestVersionsKeepTheirTransform(t *testing.T) {
	t.Parallel()
	srv := versionedServer(t)
	if err := srv.Transform(sake.Transform{Tool: "calc", Name: "compute"}); err != nil {
		t.Fatal(err)
	}
	c := saketest.Connect(t, srv)
	if res, err := c.WithVersion("1.0").CallTool("compute", map[string]any{"x": 4}); err != nil || res.Text() != "v1.0: 4" {
		t.Errorf("compute 1.0 = %v, %v", res, err)
	}
	srv.Disable(sake.Components{Tools: []string{"compute"}, Version: "1.0"})
	_, err := c.WithVersion("1.0").CallTool("compute", map[string]any{"x": 4})
	assertUnknownVersion(t, err, sake.CodeInvalidParams, "Unknown tool: compute", "10.0, 2.0")
}

func TestCompareVersions(t *testing.T) {
	t.Parallel()
	ordered := []string{"", "0.9", "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-beta", "1.0.0-rc.1", "1", "1.0.0", "v1.0.1", "1.2", "1.10",
		"2.0", "10.0", "2024-12-31", "2025-01-02", "2025-01-10"}
	for i := range ordered {
		for j := range ordered {
			got := sake.CompareVersions(ordered[i], ordered[j])
			want := 0
			switch {
			case i < j:
				want = -1
			case i > j:
				want = 1
			}
			if got != want {
				t.Errorf("CompareVersions(%q, %q) = %d, want %d", ordered[i], ordered[j], got, want)
			}
		}
	}
	if sake.CompareVersions("1.0.0+build.7", "1.0.0+build.9") == 0 {
		t.Error("two versions differing in build metadata compare equal: the order is not total")
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestVersionAskedForMustBeAShortString(t *testing.T) {
	t.Parallel()
	c := saketest.Connect(t, versionedServer(t), saketest.Legacy())
	for _, v := range []string{`7`, `{"v":"1.0"}`, `"` + strings.Repeat("1", 65) + `"`} {
		r := c.Send([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"` + sake.MetaComponentVersion + `":` + v + `},"name":"calc","arguments":{"x":1}}}`))
		if r.ErrorCode != sake.CodeInvalidParams || !strings.Contains(string(r.Body), "at most 64 bytes") {
			t.Errorf("version %s: %s, want -32602", v, r.Body)
		}
	}
}
