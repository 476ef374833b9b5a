package sake_test

import (
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/saketest"
)

func TestOlderRevisionsGetTheirShapes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		version                         string
		title, outputSchema, annotation bool
		structured, completions         bool
	}{
		{"2025-11-25", true, true, true, true, true},
		{"2025-06-18", true, true, true, true, true},
		{"2025-03-26", false, false, true, false, true},
		{"2024-11-05", false, false, false, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.version, func(t *testing.T) {
			t.Parallel()
			c := saketest.Connect(t, newNotes(), saketest.LegacyVersion(tc.version))
			if c.Session().ProtocolVersion != tc.version {
				t.Fatalf("negotiated %s", c.Session().ProtocolVersion)
			}
			if got := strings.Contains(string(c.Session().Capabilities), `"completions"`); got != tc.completions {
				t.Errorf("completions capability = %v", got)
			}
			tools, err := c.ListTools()
			if err != nil {
				t.Fatal(err)
			}
			var add, list protocol.ToolInfo
			for _, tl := range tools {
				switch tl.Name {
				case "add_note":
					add = tl
				case "list_notes":
					list = tl
				}
			}
			if (add.Title != "") != tc.title || (list.OutputSchema != nil) != tc.outputSchema || (add.Annotations != nil) != tc.annotation {
				t.Errorf("tool shapes: title %q, outputSchema %v, annotations %v", add.Title, list.OutputSchema != nil, add.Annotations)
			}
			res, err := c.CallTool("list_notes", nil)
			if err != nil {
				t.Fatal(err)
			}
			var l noteList
			structured := res.DecodeStructured(&l) == nil
			if structured != tc.structured || !strings.Contains(res.Text(), `"count":1`) {
				t.Errorf("structured content = %v, text %q", structured, res.Text())
			}
			if !tc.structured && res.StructuredContent != nil {
				t.Error("structuredContent sent to an older client")
			}
		})
	}
}
