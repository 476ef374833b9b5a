package saketest

import (
	"context"

	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// ListSkills lists every skill (skills/list), following pages.
func (c *Client) ListSkills() ([]protocol.SkillInfo, error) {
	c.t.Helper()
	return call(c, (*client.Client).ListSkills)
}

// GetSkill returns the entry of the skill whose SKILL.md is at uri
// (skills/get).
func (c *Client) GetSkill(uri string) (*protocol.SkillInfo, error) {
	c.t.Helper()
	return call(c, func(cl *client.Client, ctx context.Context) (*protocol.SkillInfo, error) {
		return cl.GetSkill(ctx, uri)
	})
}

// ReadDirectory lists the children of a directory resource
// (resources/directory/read), following pages; subdirectories have the
// type inode/directory.
func (c *Client) ReadDirectory(uri string) ([]protocol.ResourceInfo, error) {
	c.t.Helper()
	return call(c, func(cl *client.Client, ctx context.Context) ([]protocol.ResourceInfo, error) {
		return cl.ReadDirectory(ctx, uri)
	})
}
