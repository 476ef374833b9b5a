package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"
)

const snapshotUsage = `usage: sake snapshot [flags] CMD [ARGS...] | URL  FILE

Snapshot compares the server's surface with the golden file FILE: its
tools (names, titles, descriptions, input and output schemas, annotations),
resources, resource templates, prompts (with their arguments), capabilities
and extensions, each list sorted, every object's keys sorted, so that the
file is the same for the same server. When they differ it prints what
changed and exits with 1, so that CI catches a schema changing by accident.
-update writes FILE instead (accepting the change).

` + targetUsage + `
Examples:

	sake snapshot -update bin/notes testdata/surface.json
	sake snapshot bin/notes testdata/surface.json
`

// snapshotVersion is the format of the golden file.
const snapshotVersion = 1

// goldenSurface is the golden file: what clients depend on, and nothing
// that changes from run to run or release to release (the server's
// version, the sizes of resources).
type goldenSurface struct {
	Snapshot          int              `json:"snapshot"`
	ProtocolVersion   string           `json:"protocolVersion"`
	Capabilities      []string         `json:"capabilities"`
	Extensions        []string         `json:"extensions"`
	Tools             []map[string]any `json:"tools"`
	Resources         []map[string]any `json:"resources"`
	ResourceTemplates []map[string]any `json:"resourceTemplates"`
	Prompts           []map[string]any `json:"prompts"`
}

func runSnapshot(ctx context.Context, e *env, args []string) error {
	flags := newFlags(e, "snapshot", snapshotUsage)
	var cf connFlags
	cf.register(flags, 30*time.Second)
	update := flags.Bool("update", false, "write FILE with the server's surface instead of comparing")
	if err := parse(flags, e, args); err != nil {
		return err
	}
	pos := flags.Args()
	if len(pos) < 2 {
		return usagef("name the server and the golden file: sake snapshot [-update] CMD [ARGS...] | URL FILE")
	}
	file, target := pos[len(pos)-1], pos[:len(pos)-1]
	old, err := os.ReadFile(file)
	missing := errors.Is(err, fs.ErrNotExist)
	if err != nil && !missing {
		return fmt.Errorf("cannot read %s: %w", file, err)
	}
	var want goldenSurface
	if !*update {
		if missing {
			return fmt.Errorf("%s does not exist: write it with sake snapshot -update", file)
		}
		if err := json.Unmarshal(old, &want); err != nil || want.Snapshot == 0 {
			return fmt.Errorf("%s is not a surface snapshot (%v): write it again with sake snapshot -update", file, err)
		}
		// Compare in the revision the snapshot was taken in: the eras
		// declare some things differently (tasks: a capability before
		// 2026-07-28, an extension since).
		if _, err := eraOption(want.ProtocolVersion); cf.era == "" && err == nil {
			cf.era = want.ProtocolVersion
		}
	}
	ctx, cancel := cf.withTimeout(ctx)
	defer cancel()
	c, err := cf.connect(ctx, e, target)
	if err != nil {
		return err
	}
	s, err := fetchSurface(ctx, c)
	c.Close()
	if err != nil {
		return err
	}
	got, err := golden(s)
	if err != nil {
		return err
	}
	if *update {
		if !missing && bytes.Equal(old, got) {
			fmt.Fprintf(e.stdout, "%s is up to date\n", file)
			return nil
		}
		if dir := filepath.Dir(file); dir != "" {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
		}
		if err := os.WriteFile(file, got, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "wrote %s: %s\n", file, counts(s))
		return nil
	}
	oldCanon, err := canonical(old)
	if err != nil {
		return err
	}
	if bytes.Equal(oldCanon, got) {
		fmt.Fprintf(e.stdout, "%s matches the server (%s)\n", file, counts(s))
		return nil
	}
	var gotSurface goldenSurface
	_ = json.Unmarshal(got, &gotSurface)
	fmt.Fprintf(e.stdout, "the server's surface differs from %s:\n", file)
	diffSurfaces(e.stdout, &want, &gotSurface)
	fmt.Fprintf(e.stderr, "sake snapshot: the server's surface differs from %s; if the change is meant, accept it with sake snapshot -update\n", file)
	return errSilentFail
}

func counts(s *surface) string {
	return fmt.Sprintf("%d tools, %d resources, %d resource templates, %d prompts",
		len(s.Tools), len(s.Resources), len(s.ResourceTemplates), len(s.Prompts))
}

// golden returns the golden file of a surface, canonical.
func golden(s *surface) ([]byte, error) {
	g := goldenSurface{Snapshot: snapshotVersion, ProtocolVersion: s.ProtocolVersion, Extensions: s.Extensions}
	caps, err := decodeObject(s.Capabilities)
	if err != nil {
		return nil, fmt.Errorf("the server's capabilities: %w", err)
	}
	for _, k := range caps.keys() {
		if k != "extensions" {
			g.Capabilities = append(g.Capabilities, k)
		}
	}
	sort.Strings(g.Capabilities)
	if g.Capabilities == nil {
		g.Capabilities = []string{}
	}
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
	return canonical(b)
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

// canonical re-encodes JSON indented, with every object's keys sorted and
// numbers as written.
func canonical(b []byte) ([]byte, error) {
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

// diffSurfaces writes what changed from want to got, item by item.
func diffSurfaces(w io.Writer, want, got *goldenSurface) {
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
		fmt.Fprintf(w, "~ %s %s changed:\n", kind, k)
		lineDiff(w, a, b, "    ")
	}
}

func canonicalValue(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	c, err := canonical(b)
	return string(c), err
}
