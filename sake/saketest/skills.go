package saketest

import (
	"context"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
)

// ListSkills lists every skill (skills/list), following pages.
func (c *Client) ListSkills() ([]sake.SkillInfo, error) {
	c.t.Helper()
	return call(c, (*client.Client).ListSkills)
}

// GetSkill returns the entry of the skill whose SKILL.md is at uri
// (skills/get).
func (c *Client) GetSkill(uri string) (*sake.SkillInfo, error) {
	c.t.Helper()
	return call(c, func(cl *client.Client, ctx context.Context) (*sake.SkillInfo, error) {
		return cl.GetSkill(ctx, uri)
	})
}

// ReadDirectory lists the children of a directory resource
// (resources/directory/read), following pages; subdirectories have the
// type inode/directory.
func (c *Client) ReadDirectory(uri string) ([]sake.ResourceInfo, error) {
	c.t.Helper()
	return call(c, func(cl *client.Client, ctx context.Context) ([]sake.ResourceInfo, error) {
		return cl.ReadDirectory(ctx, uri)
	})
}
