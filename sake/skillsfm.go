package sake

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/sakemcp/sake-go/sake/protocol"
	"go.yaml.in/yaml/v3"
)

// skillFrontmatter is a SKILL.md's YAML frontmatter: rendered as JSON,
// every field as written and in order, and the two fields every skill has.
type skillFrontmatter struct {
	json        []byte
	name        string
	description string
}

var frontmatterRE = regexp.MustCompile(`^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)`)

// maxFrontmatterNodes bounds the values a frontmatter may expand to
// (aliases included).
const maxFrontmatterNodes = 10000

// parseSkillFrontmatter reads the frontmatter that opens a SKILL.md, of
// at most max bytes as YAML and as JSON (0: no cap).
func parseSkillFrontmatter(text string, max int) (*skillFrontmatter, error) {
	m := frontmatterRE.FindStringSubmatch(strings.TrimPrefix(text, "\uFEFF"))
	if m == nil {
		return nil, errors.New("it does not open with YAML frontmatter between --- lines (name and description at least)")
	}
	if max > 0 && len(m[1]) > max {
		return nil, fmt.Errorf("the frontmatter is %d bytes; it may hold at most %d (Limits.MaxSkillFrontmatterBytes): keep long text in the body", len(m[1]), max)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(m[1]), &doc); err != nil {
		return nil, fmt.Errorf("the frontmatter is not valid YAML: %v", err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, errors.New("the frontmatter is not a YAML mapping of fields")
	}
	root := doc.Content[0]
	r := &yamlRenderer{max: max}
	out, err := r.render(nil, root, 0)
	if err == nil && max > 0 && len(out) > max {
		err = fmt.Errorf("it expands to %d bytes of JSON; it may hold at most %d (Limits.MaxSkillFrontmatterBytes): keep long text in the body, and use fewer aliases", len(out), max)
	}
	if err != nil {
		return nil, fmt.Errorf("frontmatter: %v", err)
	}
	fm := &skillFrontmatter{json: out}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch k.Value {
		case "name", "description":
			if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!str" || v.Value == "" {
				return nil, fmt.Errorf("frontmatter %s must be a non-empty string", k.Value)
			}
			if k.Value == "name" {
				fm.name = v.Value
			} else {
				fm.description = v.Value
			}
		case "metadata":
			if v.Kind == yaml.MappingNode {
				for j := 0; j < len(v.Content); j += 2 {
					if strings.HasPrefix(v.Content[j].Value, "io.modelcontextprotocol/") {
						return nil, fmt.Errorf("frontmatter metadata key %q uses the prefix io.modelcontextprotocol/, reserved for MCP extensions: rename it", v.Content[j].Value)
					}
				}
			}
		}
	}
	if fm.name == "" || fm.description == "" {
		return nil, errors.New("the frontmatter needs name and description")
	}
	return fm, nil
}

// yamlRenderer renders a YAML node as JSON, of at most max bytes (0: no
// cap).
type yamlRenderer struct{ nodes, max int }

func (r *yamlRenderer) render(dst []byte, n *yaml.Node, depth int) ([]byte, error) {
	if r.nodes++; r.nodes > maxFrontmatterNodes || depth > 64 {
		return nil, errors.New("too large or too deep (aliases expand it beyond 10000 values)")
	}
	if r.max > 0 && len(dst) > r.max {
		return nil, fmt.Errorf("it expands to more than %d bytes of JSON (Limits.MaxSkillFrontmatterBytes): keep long text in the body, and use fewer aliases", r.max)
	}
	switch n.Kind {
	case yaml.AliasNode:
		return r.render(dst, n.Alias, depth+1)
	case yaml.MappingNode:
		dst = append(dst, '{')
		seen := map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode || k.Tag == "!!merge" || k.Value == "<<" && k.Style == 0 {
				return nil, fmt.Errorf("line %d: keys must be plain strings (no merge keys or complex keys)", k.Line)
			}
			if seen[k.Value] {
				return nil, fmt.Errorf("line %d: the key %q is given twice", k.Line, k.Value)
			}
			seen[k.Value] = true
			dst = protocol.AppendKey(dst, k.Value, i == 0)
			var err error
			if dst, err = r.render(dst, n.Content[i+1], depth+1); err != nil {
				return nil, err
			}
		}
		return append(dst, '}'), nil
	case yaml.SequenceNode:
		dst = append(dst, '[')
		for i, c := range n.Content {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = r.render(dst, c, depth+1); err != nil {
				return nil, err
			}
		}
		return append(dst, ']'), nil
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return append(dst, "null"...), nil
		case "!!bool":
			var b bool
			if err := n.Decode(&b); err != nil {
				return nil, err
			}
			return strconv.AppendBool(dst, b), nil
		case "!!int":
			var i int64
			if err := n.Decode(&i); err != nil {
				return nil, fmt.Errorf("line %d: %v", n.Line, err)
			}
			return strconv.AppendInt(dst, i, 10), nil
		case "!!float":
			var f float64
			if err := n.Decode(&f); err != nil {
				return nil, fmt.Errorf("line %d: %v", n.Line, err)
			}
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, fmt.Errorf("line %d: %s has no JSON form", n.Line, n.Value)
			}
			return strconv.AppendFloat(dst, f, 'g', -1, 64), nil
		default: // strings, and timestamps as written
			return protocol.AppendString(dst, n.Value), nil
		}
	}
	return nil, fmt.Errorf("line %d: unsupported YAML", n.Line)
}
