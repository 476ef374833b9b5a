package main

import (
	"embed"
	"io/fs"
)

//go:embed skills
var skillFiles embed.FS

// skillsFS is the fixture's Agent Skills: one folder per skill.
func skillsFS() fs.FS {
	sub, err := fs.Sub(skillFiles, "skills")
	if err != nil {
		panic(err)
	}
	return sub
}
