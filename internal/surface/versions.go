package surface

import (
	"fmt"
	"strings"

	"github.com/sakemcp/sake-go/sake/protocol"
)

// versionChange says how the versions of an entry changed: the version
// listed (_meta["io.github.sakemcp/version"]) and the versions served
// (_meta["io.github.sakemcp/versions"]), "" when neither did.
func versionChange(want, got map[string]any) string {
	wv, gv := metaString(want, protocol.MetaComponentVersion), metaString(got, protocol.MetaComponentVersion)
	ws, gs := metaList(want, protocol.MetaComponentVersions), metaList(got, protocol.MetaComponentVersions)
	var parts []string
	if wv != gv {
		parts = append(parts, fmt.Sprintf("version %s, was %s", orNone(gv), orNone(wv)))
	}
	if ws != gs {
		parts = append(parts, fmt.Sprintf("versions served %s, were %s", orNone(gs), orNone(ws)))
	}
	return strings.Join(parts, "; ")
}

func meta(entry map[string]any) map[string]any {
	m, _ := entry["_meta"].(map[string]any)
	return m
}

func metaString(entry map[string]any, key string) string {
	s, _ := meta(entry)[key].(string)
	return s
}

func metaList(entry map[string]any, key string) string {
	list, _ := meta(entry)[key].([]any)
	parts := make([]string, len(list))
	for i, v := range list {
		parts[i] = fmt.Sprint(v)
	}
	return strings.Join(parts, " ")
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
