package client

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/sakemcp/sake-go/sake/protocol"
)

// ListSkills lists the server's Agent Skills (skills/list, the
// io.modelcontextprotocol/skills extension), following the pages.
func (c *Client) ListSkills(ctx context.Context) ([]protocol.SkillInfo, error) {
	return listAll[protocol.SkillInfo](ctx, c, "skills/list", "skills")
}

// GetSkill returns the entry of the skill whose SKILL.md is at uri
// (skills/get).
func (c *Client) GetSkill(ctx context.Context, uri string) (*protocol.SkillInfo, error) {
	raw, err := c.call(ctx, "skills/get", map[string]string{"uri": uri}, nil)
	if err != nil {
		return nil, err
	}
	var r struct {
		Skill *protocol.SkillInfo `json:"skill"`
	}
	if err := json.Unmarshal(raw, &r); err != nil || r.Skill == nil {
		return nil, fmt.Errorf("client: skills/get answered something else (%v): %.200s", err, raw)
	}
	return r.Skill, nil
}

// ReadDirectory lists the children of a directory resource
// (resources/directory/read), following the pages; subdirectories have
// the type inode/directory.
func (c *Client) ReadDirectory(ctx context.Context, uri string) ([]protocol.ResourceInfo, error) {
	var all []protocol.ResourceInfo
	cursor := ""
	seen := map[string]bool{}
	for range maxPages {
		params := map[string]string{"uri": uri}
		if cursor != "" {
			params["cursor"] = cursor
		}
		raw, err := c.call(ctx, "resources/directory/read", params, nil)
		if err != nil {
			return nil, err
		}
		var r struct {
			Resources  []protocol.ResourceInfo `json:"resources"`
			NextCursor string                  `json:"nextCursor"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("client: resources/directory/read result: %w", err)
		}
		all = append(all, r.Resources...)
		if r.NextCursor == "" {
			return all, nil
		}
		if seen[r.NextCursor] {
			return nil, fmt.Errorf("client: resources/directory/read returned the cursor %q twice", r.NextCursor)
		}
		seen[r.NextCursor] = true
		cursor = r.NextCursor
	}
	return nil, fmt.Errorf("client: resources/directory/read of %s has more than %d pages", uri, maxPages)
}
