package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/saketest"
)

func TestFixtureSkills(t *testing.T) {
	t.Parallel()
	eras(t, func(t *testing.T, opts ...saketest.Option) {
		c := saketest.Connect(t, &Everything{}, append(opts, saketest.ServerOptions(sake.Skills(skillsFS())))...)
		raw, err := c.Request("skills/list", nil)
		if err != nil {
			t.Fatal(err)
		}
		var r struct {
			Skills []struct {
				URI         string            `json:"uri"`
				Frontmatter map[string]any    `json:"frontmatter"`
				Resources   []json.RawMessage `json:"resources"`
			} `json:"skills"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range r.Skills {
			got = append(got, s.URI)
		}
		if strings.Join(got, " ") != "skill://git-workflow/SKILL.md skill://pdf-processing/SKILL.md" || len(r.Skills[1].Resources) != 3 {
			t.Errorf("skills = %s", raw)
		}
		raw, err = c.Request("resources/directory/read", map[string]any{"uri": "skill://pdf-processing"})
		if err != nil || !strings.Contains(string(raw), `"uri":"skill://pdf-processing/references","name":"references","mimeType":"inode/directory"`) {
			t.Errorf("directory read = %s, %v", raw, err)
		}
	})
}
