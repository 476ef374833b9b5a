// Package surface reads what an MCP server offers (its tools, resources,
// resource templates, prompts, capabilities and extensions) and writes it
// as a golden file that is the same for the same server, for the sake
// command's inspect and snapshot and for saketest.Snapshot.
package surface

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// Surface is what a server offers, as sake inspect -json prints it.
type Surface struct {
	Server            protocol.Implementation         `json:"server"`
	ProtocolVersion   string                          `json:"protocolVersion"`
	Era               string                          `json:"era"`
	SupportedVersions []string                        `json:"supportedVersions,omitempty"`
	Instructions      string                          `json:"instructions,omitempty"`
	Capabilities      json.RawMessage                 `json:"capabilities"`
	Extensions        []string                        `json:"extensions"`
	Tools             []protocol.ToolInfo             `json:"tools"`
	Resources         []protocol.ResourceInfo         `json:"resources"`
	ResourceTemplates []protocol.ResourceTemplateInfo `json:"resourceTemplates"`
	Prompts           []protocol.PromptInfo           `json:"prompts"`
	Skills            []protocol.SkillInfo            `json:"skills,omitempty"`
}

// Fetch lists everything the server declares it has: a list whose
// capability the server did not declare is left empty, not asked.
func Fetch(ctx context.Context, c *client.Client) (*Surface, error) {
	info := c.Info()
	s := &Surface{
		Server:            info.Server,
		ProtocolVersion:   info.ProtocolVersion,
		Era:               info.Era.String(),
		SupportedVersions: info.SupportedVersions,
		Instructions:      info.Instructions,
		Capabilities:      info.Capabilities,
		Extensions:        extensions(info.Capabilities),
		Tools:             []protocol.ToolInfo{},
		Resources:         []protocol.ResourceInfo{},
		ResourceTemplates: []protocol.ResourceTemplateInfo{},
		Prompts:           []protocol.PromptInfo{},
	}
	if len(s.Capabilities) == 0 {
		s.Capabilities = json.RawMessage("{}")
	}
	var err error
	if info.HasCapability("tools") {
		if s.Tools, err = c.ListTools(ctx); err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
	}
	if info.HasCapability("resources") {
		if s.Resources, err = c.ListResources(ctx); err != nil {
			return nil, fmt.Errorf("resources/list: %w", err)
		}
		if s.ResourceTemplates, err = c.ListResourceTemplates(ctx); err != nil {
			return nil, fmt.Errorf("resources/templates/list: %w", err)
		}
	}
	if info.HasCapability("prompts") {
		if s.Prompts, err = c.ListPrompts(ctx); err != nil {
			return nil, fmt.Errorf("prompts/list: %w", err)
		}
	}
	if info.HasExtension(protocol.SkillsExtension) {
		if s.Skills, err = c.ListSkills(ctx); err != nil {
			return nil, fmt.Errorf("skills/list: %w", err)
		}
	}
	return s, nil
}

// Counts says how many of each the surface has.
func (s *Surface) Counts() string {
	return fmt.Sprintf("%d tools, %d resources, %d resource templates, %d prompts",
		len(s.Tools), len(s.Resources), len(s.ResourceTemplates), len(s.Prompts))
}

// extensions returns the ids of capabilities.extensions, sorted.
func extensions(caps json.RawMessage) []string {
	var m struct {
		Extensions map[string]json.RawMessage `json:"extensions"`
	}
	_ = json.Unmarshal(caps, &m)
	out := []string{}
	for id := range m.Extensions {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}
