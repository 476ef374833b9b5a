package docs_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// TestRelativeLinksResolve checks that every relative link of README.md and
// docs/*.md names a file or directory of the checkout and, with a
// #fragment into a Markdown file, one of its headings.
func TestRelativeLinksResolve(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	for _, f := range markdownFiles(t, root) {
		for _, problem := range brokenLinks(root, f) {
			t.Error(problem)
		}
	}
}

// TestLinkCheckerCatchesBrokenLinks runs the checker on a Markdown file with
// a missing file, a missing anchor and a missing anchor in another file, and
// good links beside them.
func TestLinkCheckerCatchesBrokenLinks(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write := func(name, text string) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("docs/other.md", "# Other guide\n\n## The `sake` command, again\n\n## Twice\n\n## Twice\n")
	write("docs/bad.md", "# Bad\n\n## Here it is\n\n"+
		"[ok](other.md) [ok](other.md#the-sake-command-again) [ok](#here-it-is) [ok](other.md#twice-1)\n"+
		"[ok](https://example.com/nothing) [ok](../docs/) `[code](missing.md)`\n"+
		"[bad](missing.md)\n"+
		"[bad](#nowhere)\n"+
		"[bad](other.md#no-such-heading)\n"+
		"```md\n[code](missing-too.md)\n```\n")
	got := brokenLinks(root, "docs/bad.md")
	want := []string{"docs/bad.md:7: missing.md", "docs/bad.md:8: #nowhere", "docs/bad.md:9: other.md#no-such-heading"}
	if len(got) != len(want) {
		t.Fatalf("broken links = %q, want %d of them", got, len(want))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("broken link %d = %q, want it to start %q", i, got[i], want[i])
		}
	}
}

var (
	inlineLinkRE = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	refLinkRE    = regexp.MustCompile(`(?m)^\s*\[[^\]]+\]:\s*(\S+)`)
	schemeRE     = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
)

// brokenLinks returns "file:line: target: why" for each relative link of
// the Markdown file rel (relative to root) that does not resolve.
func brokenLinks(root, rel string) []string {
	text, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		return []string{fmt.Sprintf("%s: %v", rel, err)}
	}
	var problems []string
	for i, line := range strings.Split(stripCode(string(text)), "\n") {
		var targets []string
		for _, m := range inlineLinkRE.FindAllStringSubmatch(line, -1) {
			targets = append(targets, m[1])
		}
		for _, m := range refLinkRE.FindAllStringSubmatch(line, -1) {
			targets = append(targets, m[1])
		}
		for _, target := range targets {
			if why := checkLink(root, rel, target); why != "" {
				problems = append(problems, fmt.Sprintf("%s:%d: %s: %s", rel, i+1, target, why))
			}
		}
	}
	return problems
}

// checkLink says what is wrong with one link target, or "".
func checkLink(root, from, target string) string {
	if schemeRE.MatchString(target) || strings.HasPrefix(target, "//") {
		return ""
	}
	path, frag, _ := strings.Cut(target, "#")
	file := filepath.Join(root, filepath.FromSlash(from))
	if path != "" {
		if strings.HasPrefix(path, "/") {
			file = filepath.Join(root, filepath.FromSlash(path))
		} else {
			file = filepath.Join(filepath.Dir(file), filepath.FromSlash(path))
		}
		if rel, err := filepath.Rel(root, file); err != nil || strings.HasPrefix(rel, "..") {
			return "leads out of the repository"
		}
		if _, err := os.Stat(file); err != nil {
			return "no such file or directory"
		}
	}
	if frag == "" || !strings.HasSuffix(file, ".md") {
		return ""
	}
	text, err := os.ReadFile(file)
	if err != nil {
		return err.Error()
	}
	if !headingAnchors(string(text))[frag] {
		return "no heading has that anchor"
	}
	return ""
}

var headingRE = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)

// headingAnchors returns the anchors GitHub gives the headings of a
// Markdown text: lower case, punctuation dropped, spaces made hyphens, and
// -1, -2... after repeats.
func headingAnchors(text string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	inBlock, fence := false, ""
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if m := fenceRE.FindStringSubmatch(line); m != nil && !inBlock {
			inBlock, fence = true, m[2]
			continue
		}
		if inBlock {
			if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "" {
				inBlock = false
			}
			continue
		}
		m := headingRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		slug := slugify(m[1])
		if n := seen[slug]; n > 0 {
			anchors[fmt.Sprintf("%s-%d", slug, n)] = true
		} else {
			anchors[slug] = true
		}
		seen[slug]++
	}
	return anchors
}

var linkTextRE = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)

func slugify(heading string) string {
	heading = linkTextRE.ReplaceAllString(heading, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}
