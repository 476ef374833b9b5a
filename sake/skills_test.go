package sake_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/saketest"
)

const pdfSkill = `---
name: pdf
description: Work with PDF files.
license: Apache-2.0
metadata:
  version: "2.1"
  pages: 12
  ratio: 0.5
  draft: false
  tags: [forms, merge]
  released: 2026-07-28
---
# PDF
Read references/FORMS.md.
`

func skillFS() fstest.MapFS {
	return fstest.MapFS{
		"pdf/SKILL.md":                   {Data: []byte(pdfSkill)},
		"pdf/references/FORMS.md":        {Data: []byte("# Forms\n")},
		"pdf/references/deep/x.txt":      {Data: []byte("x")},
		"pdf/logo.png":                   {Data: []byte{0x89, 'P', 'N', 'G', 0xff, 0x00}},
		"pdf/my notes.md":                {Data: []byte("notes")},
		"pdf/.hidden":                    {Data: []byte("secret")},
		"acme/billing/refunds/SKILL.md":  {Data: []byte("---\nname: refunds\ndescription: Refund requests.\n---\nBody\n")},
		"acme/billing/refunds/policy.md": {Data: []byte("Policy")},
		"pdf/merge/SKILL.md":             {Data: []byte("---\nname: merge\ndescription: Merge PDFs.\n---\n")},
	}
}

func digest(b string) string {
	s := sha256.Sum256([]byte(b))
	return "sha256:" + hex.EncodeToString(s[:])
}

type skillEntry struct {
	URI         string          `json:"uri"`
	Frontmatter json.RawMessage `json:"frontmatter"`
	Resources   []struct {
		URI    string `json:"uri"`
		Digest string `json:"digest"`
		Size   int    `json:"size"`
	} `json:"resources"`
}

func listSkills(t *testing.T, c *saketest.Client, cursor string) ([]skillEntry, string) {
	t.Helper()
	var params any
	if cursor != "" {
		params = map[string]any{"cursor": cursor}
	}
	raw, err := c.Request("skills/list", params)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Skills     []skillEntry `json:"skills"`
		NextCursor string       `json:"nextCursor"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	return r.Skills, r.NextCursor
}

func wantCode(t *testing.T, err error, code int, what string) {
	t.Helper()
	var e *sake.Error
	if !errors.As(err, &e) || e.Code != code {
		t.Errorf("%s: err = %v, want code %d", what, err, code)
	}
}

func TestSkills(t *testing.T) {
	eras(t, func(t *testing.T, era saketest.Option) {
		c := saketest.Connect(t, nil, era, saketest.ServerOptions(sake.Skills(skillFS()), sake.WithLimits(sake.Limits{PageSize: 1})))
		if !strings.Contains(string(c.Session().Capabilities), `"io.modelcontextprotocol/skills":{"directoryRead":true}`) ||
			!strings.Contains(string(c.Session().Capabilities), `"resources":{`) {
			t.Errorf("capabilities = %s", c.Session().Capabilities)
		}

		// One entry per page, each whole.
		var all []skillEntry
		cursor := ""
		for page := 0; ; page++ {
			entries, next := listSkills(t, c, cursor)
			if len(entries) != 1 {
				t.Fatalf("page %d has %d entries, want 1", page, len(entries))
			}
			all = append(all, entries...)
			if next == "" {
				break
			}
			cursor = next
		}
		var uris []string
		for _, e := range all {
			uris = append(uris, e.URI)
		}
		if got := strings.Join(uris, " "); got != "skill://acme/billing/refunds/SKILL.md skill://pdf/SKILL.md skill://pdf/merge/SKILL.md" {
			t.Fatalf("skills = %s", got)
		}
		pdf := all[1]
		wantFM := `{"name":"pdf","description":"Work with PDF files.","license":"Apache-2.0","metadata":{"version":"2.1","pages":12,"ratio":0.5,"draft":false,"tags":["forms","merge"],"released":"2026-07-28"}}`
		if string(pdf.Frontmatter) != wantFM {
			t.Errorf("frontmatter = %s\nwant %s", pdf.Frontmatter, wantFM)
		}
		var got []string
		for _, r := range pdf.Resources {
			got = append(got, fmt.Sprintf("%s %d", strings.TrimPrefix(r.URI, "skill://pdf/"), r.Size))
		}
		// SKILL.md first, then every file (the nested skill's too), no hidden ones.
		if want := fmt.Sprintf("SKILL.md %d,logo.png 6,merge/SKILL.md 45,my%%20notes.md 5,references/FORMS.md 8,references/deep/x.txt 1", len(pdfSkill)); strings.Join(got, ",") != want {
			t.Errorf("resources = %s\nwant %s", strings.Join(got, ","), want)
		}
		if pdf.Resources[0].Digest != digest(pdfSkill) {
			t.Errorf("SKILL.md digest = %s", pdf.Resources[0].Digest)
		}

		raw, err := c.Request("skills/get", map[string]any{"uri": "skill://pdf/SKILL.md"})
		if err != nil {
			t.Fatal(err)
		}
		var g struct {
			Skill      skillEntry `json:"skill"`
			NextCursor *string    `json:"nextCursor"`
		}
		if err := json.Unmarshal(raw, &g); err != nil || g.Skill.URI != pdf.URI || len(g.Skill.Resources) != 6 || g.NextCursor != nil {
			t.Errorf("skills/get = %s (%v)", raw, err)
		}
		_, err = c.Request("skills/get", map[string]any{"uri": "skill://nope/SKILL.md"})
		wantCode(t, err, sake.CodeInvalidParams, "skills/get of an unknown skill")
		_, err = c.Request("skills/get", map[string]any{"uri": "skill://pdf/references/FORMS.md"})
		wantCode(t, err, sake.CodeInvalidParams, "skills/get of a file")
		_, err = c.Request("skills/get", nil)
		wantCode(t, err, sake.CodeInvalidParams, "skills/get without uri")
		_, err = c.Request("skills/list", map[string]any{"cursor": cursor + "x"})
		wantCode(t, err, sake.CodeInvalidParams, "skills/list with a tampered cursor")

		res, err := c.ListResources()
		if err != nil {
			t.Fatal(err)
		}
		var listed []string
		for _, r := range res {
			listed = append(listed, r.URI+"|"+r.Name+"|"+r.Description+"|"+r.MIMEType)
		}
		if want := "skill://acme/billing/refunds/SKILL.md|refunds|Refund requests.|text/markdown skill://pdf/SKILL.md|pdf|Work with PDF files.|text/markdown skill://pdf/merge/SKILL.md|merge|Merge PDFs.|text/markdown"; strings.Join(listed, " ") != want {
			t.Errorf("resources/list = %s", strings.Join(listed, " "))
		}

		for uri, want := range map[string]string{
			"skill://pdf/SKILL.md":                   "text/markdown " + pdfSkill,
			"skill://pdf/references/FORMS.md":        "text/markdown # Forms\n",
			"skill://pdf/my%20notes.md":              "text/markdown notes",
			"skill://acme/billing/refunds/policy.md": "text/markdown Policy",
		} {
			got, err := c.ReadResource(uri)
			if err != nil || len(got) != 1 || got[0].MIMEType+" "+got[0].Text != want {
				t.Errorf("read %s = %+v, %v", uri, got, err)
			}
		}
		png, err := c.ReadResource("skill://pdf/logo.png")
		if err != nil || png[0].MIMEType != "image/png" || string(png[0].Blob) != "\x89PNG\xff\x00" {
			t.Errorf("read logo.png = %+v, %v", png, err)
		}
		for _, uri := range []string{"skill://pdf/.hidden", "skill://pdf/missing.md", "skill://pdf", "skill://pdf/my notes.md"} {
			if _, err := c.ReadResource(uri); err == nil {
				t.Errorf("read %s succeeded", uri)
			}
		}

		dir := func(uri string) string {
			var out []string
			params := map[string]any{"uri": uri}
			for {
				raw, err := c.Request("resources/directory/read", params)
				if err != nil {
					return "error"
				}
				var r struct {
					Resources  []protocol.ResourceInfo `json:"resources"`
					NextCursor string                  `json:"nextCursor"`
				}
				_ = json.Unmarshal(raw, &r)
				for _, x := range r.Resources {
					out = append(out, x.Name+":"+x.MIMEType)
				}
				if r.NextCursor == "" {
					return strings.Join(out, " ")
				}
				params["cursor"] = r.NextCursor
			}
		}
		if got := dir("skill://pdf/references"); got != "FORMS.md:text/markdown deep:inode/directory" {
			t.Errorf("directory references = %s", got)
		}
		if got := dir("skill://pdf/merge"); got != "SKILL.md:text/markdown" {
			t.Errorf("directory merge = %s", got)
		}
		if got := dir("skill://pdf"); got != "SKILL.md:text/markdown logo.png:image/png merge:inode/directory my notes.md:text/markdown references:inode/directory" {
			t.Errorf("directory pdf = %s", got)
		}
		for _, uri := range []string{"skill://pdf/SKILL.md", "skill://nope", "skill://pdf/references/"} {
			_, err := c.Request("resources/directory/read", map[string]any{"uri": uri})
			wantCode(t, err, sake.CodeInvalidParams, "directory read of "+uri)
		}
	})
}

func TestSkillsWithoutDirectoryRead(t *testing.T) {
	t.Parallel()
	c := saketest.Connect(t, nil, saketest.ServerOptions(sake.Skills(skillFS(), sake.WithoutDirectoryRead())))
	if !strings.Contains(string(c.Session().Capabilities), `"io.modelcontextprotocol/skills":{}`) {
		t.Errorf("capabilities = %s", c.Session().Capabilities)
	}
	_, err := c.Request("resources/directory/read", map[string]any{"uri": "skill://pdf"})
	wantCode(t, err, sake.CodeMethodNotFound, "directory read without directoryRead")

	plain := saketest.Connect(t, nil)
	for _, m := range []string{"skills/list", "skills/get", "resources/directory/read"} {
		_, err := plain.Request(m, map[string]any{"uri": "skill://pdf/SKILL.md"})
		wantCode(t, err, sake.CodeMethodNotFound, m+" on a server without skills")
	}
}

func TestSkillsConstructionErrors(t *testing.T) {
	t.Parallel()
	md := func(fm string) *fstest.MapFile { return &fstest.MapFile{Data: []byte("---\n" + fm + "\n---\nbody\n")} }
	many := fstest.MapFS{"big/SKILL.md": md("name: big\ndescription: d")}
	for i := 0; i < 512; i++ { // the default Limits.MaxSkillFiles, SKILL.md making one more
		many[fmt.Sprintf("big/f%03d.txt", i)] = &fstest.MapFile{Data: []byte("x")}
	}
	cases := []struct {
		name string
		fsys fstest.MapFS
		want string
	}{
		{"empty", fstest.MapFS{"readme.md": {Data: []byte("hi")}}, "no SKILL.md"},
		{"root", fstest.MapFS{"SKILL.md": md("name: x\ndescription: d")}, "root of the fs"},
		{"name mismatch", fstest.MapFS{"pdf/SKILL.md": md("name: pdf-tools\ndescription: d")}, `names it "pdf-tools"`},
		{"bad name", fstest.MapFS{"PDF/SKILL.md": md("name: PDF\ndescription: d")}, "lowercase"},
		{"double hyphen", fstest.MapFS{"a--b/SKILL.md": md("name: a--b\ndescription: d")}, "twice in a row"},
		{"bad authority", fstest.MapFS{"my team/x/SKILL.md": md("name: x\ndescription: d")}, "authority"},
		{"no frontmatter", fstest.MapFS{"x/SKILL.md": {Data: []byte("# x\n")}}, "frontmatter"},
		{"no description", fstest.MapFS{"x/SKILL.md": md("name: x")}, "name and description"},
		{"description not a string", fstest.MapFS{"x/SKILL.md": md("name: x\ndescription: [a]")}, "non-empty string"},
		{"bad yaml", fstest.MapFS{"x/SKILL.md": md("name: x\ndescription: 'd")}, "not valid YAML"},
		{"duplicate key", fstest.MapFS{"x/SKILL.md": md("name: x\nname: x\ndescription: d")}, "twice"},
		{"reserved", fstest.MapFS{"x/SKILL.md": md("name: x\ndescription: d\nmetadata:\n  io.modelcontextprotocol/y: 1")}, "reserved"},
		{"not a mapping", fstest.MapFS{"x/SKILL.md": md("- a")}, "mapping"},
		{"too many files", many, "at most 512"},
		{"too big", fstest.MapFS{"x/SKILL.md": md("name: x\ndescription: d"), "x/blob": {Data: make([]byte, 16<<20)}}, "at most 16777216"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := sake.New(nil, sake.Skills(tc.fsys))
			var ce *sake.ConstructionError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("New = %v, want a ConstructionError mentioning %q", err, tc.want)
			}
		})
	}
	// Every broken skill is named at once.
	_, err := sake.New(nil, sake.Skills(fstest.MapFS{
		"a/SKILL.md": md("name: b\ndescription: d"),
		"c/SKILL.md": md("name: c"),
	}))
	if err == nil || !strings.Contains(err.Error(), "skill a") || !strings.Contains(err.Error(), "skill c") {
		t.Errorf("New = %v, want both skills named", err)
	}
}

// The server-wide requirement gates the skills as it gates resources.
func TestSkillsRequireScopes(t *testing.T) {
	t.Parallel()
	srv := sake.MustNew(nil, sake.Skills(skillFS()), sake.RequireScopes("docs"))
	without := saketest.Connect(t, srv, saketest.Scopes("other"))
	for _, call := range []struct {
		method string
		params map[string]any
	}{
		{"skills/list", nil},
		{"skills/get", map[string]any{"uri": "skill://pdf/SKILL.md"}},
		{"resources/read", map[string]any{"uri": "skill://pdf/references/FORMS.md"}},
		{"resources/read", map[string]any{"uri": "skill://pdf/SKILL.md"}},
		{"resources/directory/read", map[string]any{"uri": "skill://pdf"}},
	} {
		_, err := without.Request(call.method, call.params)
		var se *protocol.InsufficientScopeError
		if !errors.As(err, &se) {
			t.Errorf("%s %v without the scope: err = %v, want protocol.InsufficientScopeError", call.method, call.params, err)
		}
	}
	with := saketest.Connect(t, srv, saketest.Scopes("docs"))
	if _, err := with.Request("skills/list", nil); err != nil {
		t.Errorf("skills/list with the scope: %v", err)
	}
	if got, err := with.ReadResource("skill://pdf/references/FORMS.md"); err != nil || got[0].Text != "# Forms\n" {
		t.Errorf("read with the scope: %v, %v", got, err)
	}
}

// A frontmatter is served whole in one skills/list entry: it is bounded
// at construction (Limits.MaxSkillFrontmatterBytes, 64 KiB by default),
// in its YAML and in the JSON aliases expand it to.
func TestSkillsFrontmatterIsBounded(t *testing.T) {
	t.Parallel()
	md := func(fm string) fstest.MapFS {
		return fstest.MapFS{"big/SKILL.md": {Data: []byte("---\nname: big\n" + fm + "\n---\nbody\n")}}
	}
	const defaultMax = 64 << 10
	long := md("description: " + strings.Repeat("d", defaultMax))
	_, err := sake.New(nil, sake.Skills(long))
	var ce *sake.ConstructionError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "skill big") || !strings.Contains(err.Error(), fmt.Sprint(defaultMax)) || !strings.Contains(err.Error(), "Limits.MaxSkillFrontmatterBytes") {
		t.Errorf("New with a frontmatter beyond the default = %v, want a ConstructionError naming the skill and the limit", err)
	}
	// Aliases that expand a small YAML beyond the limit.
	aliased := md("description: d\nx: &a " + strings.Repeat("a", 1000) + "\nl: [" + strings.TrimSuffix(strings.Repeat("*a,", 200), ",") + "]")
	if _, err := sake.New(nil, sake.Skills(aliased), sake.WithLimits(sake.Limits{MaxSkillFrontmatterBytes: 100 << 10})); err == nil || !strings.Contains(err.Error(), "skill big") {
		t.Errorf("New with aliases expanding beyond the limit = %v, want a construction error", err)
	}
	if _, err := sake.New(nil, sake.Skills(long), sake.WithLimits(sake.Limits{MaxSkillFrontmatterBytes: 1 << 20})); err != nil {
		t.Errorf("New with a raised limit = %v", err)
	}
	if _, err := sake.New(nil, sake.Skills(md("description: d")), sake.WithLimits(sake.Limits{MaxSkillFrontmatterBytes: 16})); err == nil {
		t.Error("New with a frontmatter beyond a lowered limit succeeded")
	}
}

// With PerCallerLists, a skill the predicate refuses is, for that caller,
// one the server does not have: skills/list leaves it out, skills/get does
// not know it, its files and directories cannot be read, and it is not in
// resources/list. The skill nested in a refused one stays its own
// component.
func TestSkillsPerCaller(t *testing.T) {
	eras(t, func(t *testing.T, era saketest.Option) {
		hidePDF := sake.PerCallerLists(func(_ *sake.Request, c sake.ComponentInfo) bool { return c.Name != "pdf" })
		c := saketest.Connect(t, nil, era, saketest.ServerOptions(sake.Skills(skillFS()), hidePDF))
		entries, _ := listSkills(t, c, "")
		var uris []string
		for _, e := range entries {
			uris = append(uris, e.URI)
		}
		if got := strings.Join(uris, " "); got != "skill://acme/billing/refunds/SKILL.md skill://pdf/merge/SKILL.md" {
			t.Errorf("skills/list = %s, want the two skills the predicate allows", got)
		}
		_, err := c.Request("skills/get", map[string]any{"uri": "skill://pdf/SKILL.md"})
		wantCode(t, err, sake.CodeInvalidParams, "skills/get of a refused skill")
		if _, err := c.Request("skills/get", map[string]any{"uri": "skill://pdf/merge/SKILL.md"}); err != nil {
			t.Errorf("skills/get of the nested, allowed skill: %v", err)
		}
		for _, uri := range []string{"skill://pdf/SKILL.md", "skill://pdf/references/FORMS.md"} {
			if _, err := c.ReadResource(uri); err == nil {
				t.Errorf("resources/read %s of a refused skill succeeded", uri)
			}
		}
		if _, err := c.ReadResource("skill://pdf/merge/SKILL.md"); err != nil {
			t.Errorf("resources/read of the nested, allowed skill: %v", err)
		}
		if _, err := c.ReadDirectory("skill://pdf/references"); err == nil {
			t.Error("resources/directory/read in a refused skill succeeded")
		}
		if _, err := c.ReadDirectory("skill://acme/billing/refunds"); err != nil {
			t.Errorf("resources/directory/read of an allowed skill: %v", err)
		}
		listed, err := c.ListResources()
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range listed {
			if r.URI == "skill://pdf/SKILL.md" {
				t.Error("resources/list shows the refused skill's SKILL.md")
			}
		}
	})
}
