package saketest

import (
	"encoding/json"
	"fmt"

	"github.com/sakemcp/sake-go/sake"
)

// ListSkills lists every skill (skills/list), following pages.
func (c *Client) ListSkills() ([]sake.SkillInfo, error) {
	c.t.Helper()
	var all []sake.SkillInfo
	var params map[string]any
	for {
		raw, err := c.Request("skills/list", params)
		if err != nil {
			return nil, err
		}
		var r struct {
			Skills     []sake.SkillInfo `json:"skills"`
			NextCursor string           `json:"nextCursor"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("saketest: skills/list result: %w", err)
		}
		all = append(all, r.Skills...)
		if r.NextCursor == "" {
			return all, nil
		}
		params = map[string]any{"cursor": r.NextCursor}
	}
}

// GetSkill returns the entry of the skill whose SKILL.md is at uri
// (skills/get).
func (c *Client) GetSkill(uri string) (*sake.SkillInfo, error) {
	raw, err := c.Request("skills/get", map[string]any{"uri": uri})
	if err != nil {
		return nil, err
	}
	var r struct {
		Skill *sake.SkillInfo `json:"skill"`
	}
	if err := json.Unmarshal(raw, &r); err != nil || r.Skill == nil {
		return nil, fmt.Errorf("saketest: skills/get result %s: %v", raw, err)
	}
	return r.Skill, nil
}

// ReadDirectory lists the children of a directory resource
// (resources/directory/read), following pages; subdirectories have the
// type inode/directory.
func (c *Client) ReadDirectory(uri string) ([]sake.ResourceInfo, error) {
	var all []sake.ResourceInfo
	params := map[string]any{"uri": uri}
	for {
		raw, err := c.Request("resources/directory/read", params)
		if err != nil {
			return nil, err
		}
		var r struct {
			Resources  []sake.ResourceInfo `json:"resources"`
			NextCursor string              `json:"nextCursor"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("saketest: resources/directory/read result: %w", err)
		}
		all = append(all, r.Resources...)
		if r.NextCursor == "" {
			return all, nil
		}
		params["cursor"] = r.NextCursor
	}
}
