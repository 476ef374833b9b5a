package client_test

import (
	"testing"
	"testing/fstest"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/protocol"
)

func TestSkills(t *testing.T) {
	each(t, func(t *testing.T, tr transport, era protocol.Era, opts []client.Option) {
		fsys := fstest.MapFS{
			"pdf/SKILL.md":            {Data: []byte("---\nname: pdf\ndescription: Reads PDF files.\n---\n# PDF\n")},
			"pdf/references/FORMS.md": {Data: []byte("# Forms\n")},
			"pdf/a.txt":               {Data: []byte("a")},
			"pdf/b.txt":               {Data: []byte("b")},
			"pdf/c.txt":               {Data: []byte("c")},
		}
		srv := sake.MustNew(newKit(), sake.Skills(fsys), sake.WithLimits(sake.Limits{PageSize: 2}))
		c := connect(t, tr, srv, opts...)
		ctx := t.Context()
		skills, err := c.ListSkills(ctx)
		if err != nil || len(skills) != 1 || skills[0].URI != "skill://pdf/SKILL.md" || len(skills[0].Resources) != 5 {
			t.Fatalf("skills = %+v, %v", skills, err)
		}
		got, err := c.GetSkill(ctx, "skill://pdf/SKILL.md")
		if err != nil || got.URI != "skill://pdf/SKILL.md" {
			t.Fatalf("skill = %+v, %v", got, err)
		}
		if _, err := c.GetSkill(ctx, "skill://nope/SKILL.md"); err == nil {
			t.Fatal("an unknown skill was found")
		}
		// Five children in pages of two.
		children, err := c.ReadDirectory(ctx, "skill://pdf")
		if err != nil || len(children) != 5 {
			t.Fatalf("children = %+v, %v", children, err)
		}
		if _, err := c.ReadDirectory(ctx, "skill://pdf/SKILL.md"); err == nil {
			t.Fatalf("a file read as a directory: %v", err)
		}
	})
}
