package main

import (
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/saketest"
)

func TestFixtureSkills(t *testing.T) {
	t.Parallel()
	eras(t, func(t *testing.T, opts ...saketest.Option) {
		c := saketest.Connect(t, &Everything{}, append(opts, saketest.ServerOptions(sake.Skills(skillsFS())))...)
		skills, err := c.ListSkills()
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range skills {
			got = append(got, s.URI)
		}
		if strings.Join(got, " ") != "skill://git-workflow/SKILL.md skill://pdf-processing/SKILL.md" || len(skills[1].Resources) != 3 {
			t.Fatalf("skills = %+v", skills)
		}
		entry, err := c.GetSkill("skill://pdf-processing/SKILL.md")
		if err != nil || string(entry.Frontmatter) != string(skills[1].Frontmatter) || entry.Resources[0] != skills[1].Resources[0] {
			t.Errorf("skills/get = %+v, %v", entry, err)
		}
		children, err := c.ReadDirectory("skill://pdf-processing")
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, ch := range children {
			names = append(names, ch.Name+":"+ch.MIMEType)
		}
		if want := "SKILL.md:text/markdown references:inode/directory scripts:inode/directory"; strings.Join(names, " ") != want {
			t.Errorf("children = %s, want %s", strings.Join(names, " "), want)
		}
		if _, err := c.ReadDirectory("skill://pdf-processing/SKILL.md"); err == nil {
			t.Error("reading a file as a directory succeeded")
		}
	})
}
