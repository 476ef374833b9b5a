package surface

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
)

// Version is the format of the golden file.
const Version = 1

// Golden is the golden file: what clients depend on, and nothing that
// changes from run to run or release to release (the server's version,
// the sizes of resources).
type Golden struct {
	Snapshot          int              `json:"snapshot"`
	ProtocolVersion   string           `json:"protocolVersion"`
	Capabilities      []string         `json:"capabilities"`
	Extensions        []string         `json:"extensions"`
	Tools             []map[string]any `json:"tools"`
	Resources         []map[string]any `json:"resources"`
	ResourceTemplates []map[string]any `json:"resourceTemplates"`
	Prompts           []map[string]any `json:"prompts"`
}

// Encode returns the golden file of a surface, canonical: every list
// sorted, every object's keys sorted, indented by two spaces.
func Encode(s *Surface) ([]byte, error) {
	g := Golden{Snapshot: Version, ProtocolVersion: s.ProtocolVersion, Extensions: s.Extensions}
	var caps map[string]json.RawMessage
	if err := json.Unmarshal(s.Capabilities, &caps); err != nil {
		return nil, fmt.Errorf("the server's capabilities: %w", err)
	}
	g.Capabilities = []string{}
	for k := range caps {
		if k != "extensions" {
			g.Capabilities = append(g.Capabilities, k)
		}
	}
	sort.Strings(g.Capabilities)
	if g.Extensions == nil {
		g.Extensions = []string{}
	}
	var err error
	if g.Tools, err = entries(s.Tools, "name"); err != nil {
		return nil, err
	}
	if g.Resources, err = entries(s.Resources, "uri", "size"); err != nil {
		return nil, err
	}
	if g.ResourceTemplates, err = entries(s.ResourceTemplates, "uriTemplate"); err != nil {
		return nil, err
	}
	if g.Prompts, err = entries(s.Prompts, "name"); err != nil {
		return nil, err
	}
	b, err := json.Marshal(g)
	if err != nil {
		return nil, err
	}
	return Canonical(b)
}

// Decode reads a golden file; it fails on anything that is not one.
func Decode(b []byte) (*Golden, error) {
	var g Golden
	if err := json.Unmarshal(b, &g); err != nil {
		return nil, err
	}
	if g.Snapshot == 0 {
		return nil, fmt.Errorf(`no "snapshot" member`)
	}
	return &g, nil
}

// entries turns list entries into JSON objects sorted by key, without
// the members drop names.
func entries[T any](list []T, key string, drop ...string) ([]map[string]any, error) {
	out := []map[string]any{}
	for _, v := range list {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		var m map[string]any
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		if err := d.Decode(&m); err != nil {
			return nil, err
		}
		for _, k := range drop {
			delete(m, k)
		}
		out = append(out, m)
	}
	sort.SliceStable(out, func(i, j int) bool { return fmt.Sprint(out[i][key]) < fmt.Sprint(out[j][key]) })
	return out, nil
}

// Canonical re-encodes JSON indented, with every object's keys sorted and
// numbers as written.
func Canonical(b []byte) ([]byte, error) {
	var v any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// Diff writes what changed from want to got, item by item: "-" for what
// was removed, "+" for what was added, "~" for what changed, with the
// changed lines.
func Diff(w io.Writer, want, got *Golden) {
	if want.ProtocolVersion != got.ProtocolVersion {
		fmt.Fprintf(w, "~ protocol revision %s, was %s\n", got.ProtocolVersion, want.ProtocolVersion)
	}
	diffNames(w, "capability", want.Capabilities, got.Capabilities)
	diffNames(w, "extension", want.Extensions, got.Extensions)
	diffItems(w, "tool", "name", want.Tools, got.Tools)
	diffItems(w, "resource", "uri", want.Resources, got.Resources)
	diffItems(w, "resource template", "uriTemplate", want.ResourceTemplates, got.ResourceTemplates)
	diffItems(w, "prompt", "name", want.Prompts, got.Prompts)
}

func diffNames(w io.Writer, kind string, want, got []string) {
	in := func(list []string, s string) bool {
		for _, v := range list {
			if v == s {
				return true
			}
		}
		return false
	}
	for _, s := range want {
		if !in(got, s) {
			fmt.Fprintf(w, "- %s %s (removed)\n", kind, s)
		}
	}
	for _, s := range got {
		if !in(want, s) {
			fmt.Fprintf(w, "+ %s %s (added)\n", kind, s)
		}
	}
}

func diffItems(w io.Writer, kind, key string, want, got []map[string]any) {
	index := func(list []map[string]any) (map[string]map[string]any, []string) {
		m := map[string]map[string]any{}
		var order []string
		for _, v := range list {
			k := fmt.Sprint(v[key])
			if _, dup := m[k]; !dup {
				order = append(order, k)
			}
			m[k] = v
		}
		return m, order
	}
	wm, worder := index(want)
	gm, gorder := index(got)
	for _, k := range worder {
		if _, ok := gm[k]; !ok {
			fmt.Fprintf(w, "- %s %s (removed)\n", kind, k)
		}
	}
	for _, k := range gorder {
		g := gm[k]
		old, ok := wm[k]
		if !ok {
			fmt.Fprintf(w, "+ %s %s (added)\n", kind, k)
			continue
		}
		a, _ := canonicalValue(old)
		b, _ := canonicalValue(g)
		if a == b {
			continue
		}
		if v := versionChange(old, g); v != "" {
			fmt.Fprintf(w, "~ %s %s %s\n", kind, k, v)
		}
		fmt.Fprintf(w, "~ %s %s changed:\n", kind, k)
		LineDiff(w, a, b, "    ")
	}
}

func canonicalValue(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	c, err := Canonical(b)
	return string(c), err
}
