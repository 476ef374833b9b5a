package openapi

import (
	"strconv"
	"strings"
)

// maxNameLen is the longest tool name MCP allows.
const maxNameLen = 128

// sanitizeName turns an operationId into a valid tool name: every
// character outside A-Z, a-z, 0-9, "_", "." and "-" becomes "_", runs of
// "_" become one, and the name is cut to 128 bytes.
func sanitizeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-'
		if !ok {
			r = '_'
		}
		if r == '_' && strings.HasSuffix(b.String(), "_") {
			continue
		}
		b.WriteRune(r)
	}
	out := strings.Trim(b.String(), "_")
	if len(out) > maxNameLen {
		out = strings.TrimRight(out[:maxNameLen], "_")
	}
	return out
}

// fallbackName names an operation without an operationId after its
// method and path: GET /pets/{petId} is "get_pets_petId".
func fallbackName(method, path string) string {
	return sanitizeName(strings.ToLower(method) + "_" + path)
}

// uniqueName returns name, or name_2, name_3… when it is taken.
func uniqueName(name string, taken map[string]bool) string {
	out := name
	for i := 2; taken[out]; i++ {
		suffix := "_" + strconv.Itoa(i)
		base := name
		if len(base)+len(suffix) > maxNameLen {
			base = base[:maxNameLen-len(suffix)]
		}
		out = base + suffix
	}
	taken[out] = true
	return out
}
