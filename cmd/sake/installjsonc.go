package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tailscale/hujson"
)

// mergeServerJSONC is mergeServer for a client whose file is JSONC (JSON
// with comments and trailing commas, as VS Code reads its mcp.json): a
// plain JSON file is merged as JSON; one with comments is edited in
// place, its comments kept, then laid out again.
func mergeServerJSONC(path string, old []byte, key, name string, entry json.RawMessage, force bool) (out []byte, replaced bool, err error) {
	if len(bytes.TrimSpace(old)) == 0 || json.Valid(old) {
		return mergeServer(path, old, key, name, entry, force)
	}
	v, err := hujson.Parse(bytes.Clone(old)) // the parse shares its input, and Format edits in place
	if err != nil {
		return nil, false, fmt.Errorf("%s is not JSON with comments (%v); nothing was changed: fix the file or move it away", path, err)
	}
	if _, ok := v.Value.(*hujson.Object); !ok {
		return nil, false, fmt.Errorf("%s is not a JSON object; nothing was changed: fix the file or move it away", path)
	}
	servers := v.Find(jsonPointer(key))
	var ops []map[string]any
	switch {
	case servers == nil || isNull(servers):
		ops = append(ops, map[string]any{"op": "add", "path": jsonPointer(key), "value": map[string]any{}})
	default:
		if _, ok := servers.Value.(*hujson.Object); !ok {
			return nil, false, fmt.Errorf("%s: %q is not a JSON object; nothing was changed: fix it or move the file away", path, key)
		}
		if v.Find(jsonPointer(key, name)) != nil {
			if !force {
				return nil, false, fmt.Errorf("%s already has a server named %q; nothing was changed: choose another -name, or replace it with -force", path, name)
			}
			replaced = true
		}
	}
	ops = append(ops, map[string]any{"op": "add", "path": jsonPointer(key, name), "value": entry})
	patch, err := json.Marshal(ops)
	if err != nil {
		return nil, false, err
	}
	if err := v.Patch(patch); err != nil {
		return nil, false, fmt.Errorf("%s: %w; nothing was changed", path, err)
	}
	v.Format()
	return v.Pack(), replaced, nil
}

// isNull reports whether v is the literal null.
func isNull(v *hujson.Value) bool {
	l, ok := v.Value.(hujson.Literal)
	return ok && string(l) == "null"
}

// jsonPointer is the JSON Pointer (RFC 6901) of the members named.
func jsonPointer(names ...string) string {
	var b strings.Builder
	for _, n := range names {
		b.WriteByte('/')
		b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(n))
	}
	return b.String()
}
