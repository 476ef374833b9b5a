package protocol

import "encoding/json"

// SkillInfo is a skill as skills/list and skills/get describe it.
type SkillInfo struct {
	// URI is the skill's SKILL.md.
	URI string `json:"uri"`
	// Frontmatter is SKILL.md's YAML frontmatter as JSON, every field as
	// written.
	Frontmatter json.RawMessage `json:"frontmatter"`
	// Resources lists every file of the skill, SKILL.md first.
	Resources []SkillFile `json:"resources"`
}

// SkillFile is one file of a skill: its URI, the SHA-256 digest of its
// bytes (sha256:<hex>) and their number.
type SkillFile struct {
	URI    string `json:"uri"`
	Digest string `json:"digest"`
	Size   int64  `json:"size"`
}

// SkillsExtension is the identifier of the Skills extension (SEP-2640),
// under capabilities.extensions.
const SkillsExtension = "io.modelcontextprotocol/skills"
