// Package docs_test checks the guides in this directory and the README:
// every Go block compiles against the module as it is, and every relative
// link leads somewhere.
//
// A ```go block is a whole file (package clause, imports, code) and is
// compiled exactly as it is shown: no import is added. Each block is its
// own package, unless the line before it is <!-- continues -->: then it is
// another file of the package of the block before it in the same Markdown
// file. A block preceded by the line <!-- fragment --> is a piece of code
// (a signature, another library's code) and is not compiled.
package docs_test

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// Markers on the line before a ```go block.
const (
	fragmentMarker  = "<!-- fragment -->"
	continuesMarker = "<!-- continues -->"
)

// codeBlock is one fenced Go block of a Markdown file.
type codeBlock struct {
	file      string // path as shown in messages, relative to the repository root
	line      int    // line of the block's first code line (1-based)
	code      string
	fragment  bool
	continues bool
}

// repoRoot is the checkout this test runs in: the parent of docs/.
func repoRoot(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(wd)
}

// markdownFiles lists README.md, CHANGELOG.md and docs/*.md, relative to
// root.
func markdownFiles(t *testing.T, root string) []string {
	t.Helper()
	files := []string{"CHANGELOG.md", "README.md"}
	guides, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range guides {
		rel, _ := filepath.Rel(root, g)
		files = append(files, filepath.ToSlash(rel))
	}
	sort.Strings(files[2:])
	return files
}

var fenceRE = regexp.MustCompile("^(\\s*)(```+|~~~+)\\s*([A-Za-z0-9_+-]*)")

// goBlocks returns the ```go blocks of a Markdown text.
func goBlocks(name string, text []byte) []codeBlock {
	var blocks []codeBlock
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var (
		lineNo   int
		prev     string // last non-blank line outside a block
		inBlock  bool
		fence    string
		indent   string
		isGo     bool
		cur      codeBlock
		body     []string
		blockPre string
	)
	for sc.Scan() {
		lineNo++
		line := sc.Text()
		if !inBlock {
			if m := fenceRE.FindStringSubmatch(line); m != nil {
				inBlock, indent, fence, isGo = true, m[1], m[2], m[3] == "go"
				cur = codeBlock{file: name, line: lineNo + 1}
				body = body[:0]
				blockPre = prev
				continue
			}
			if strings.TrimSpace(line) != "" {
				prev = strings.TrimSpace(line)
			}
			continue
		}
		if strings.HasPrefix(strings.TrimSpace(line), fence) && strings.Trim(strings.TrimSpace(line), fence[:1]) == "" {
			inBlock = false
			if isGo {
				cur.code = strings.Join(body, "\n") + "\n"
				cur.fragment = blockPre == fragmentMarker
				cur.continues = blockPre == continuesMarker
				blocks = append(blocks, cur)
			}
			prev = ""
			continue
		}
		body = append(body, strings.TrimPrefix(line, indent))
	}
	return blocks
}

// stripCode blanks fenced blocks and inline code spans, keeping line
// numbers, so that links are looked for in prose only.
func stripCode(text string) string {
	lines := strings.Split(text, "\n")
	inBlock, fence := false, ""
	for i, line := range lines {
		trimmed := strings.TrimSpace(line)
		switch {
		case !inBlock && fenceRE.MatchString(line):
			inBlock, fence = true, fenceRE.FindStringSubmatch(line)[2]
			lines[i] = ""
		case inBlock:
			if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "" {
				inBlock = false
			}
			lines[i] = ""
		default:
			lines[i] = inlineCodeRE.ReplaceAllString(line, "``")
		}
	}
	return strings.Join(lines, "\n")
}

var inlineCodeRE = regexp.MustCompile("`+[^`]*`+")
