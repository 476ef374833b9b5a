package toolsearch

// synonymGroups are words tools and the people asking for them use for
// the same thing: a general vocabulary of actions and objects, not the
// names of any catalog's tools. A query's word is also looked up as each
// other word of its groups, counting synonymWeight.
var synonymGroups = [][]string{
	{"delete", "remove", "erase", "destroy", "drop", "discard", "purge"},
	{"create", "add", "new", "make", "insert", "open"},
	{"get", "fetch", "retrieve", "read", "show", "obtain", "view", "display", "load"},
	{"list", "enumerate", "browse", "all"},
	{"find", "search", "lookup", "query", "locate", "look", "discover"},
	{"update", "edit", "modify", "change", "alter", "set", "patch", "replace"},
	{"send", "post", "publish", "deliver", "notify"},
	{"run", "execute", "invoke", "start", "launch", "trigger", "dispatch"},
	{"stop", "cancel", "abort", "kill", "terminate", "halt"},
	{"write", "save", "store", "put", "persist", "record"},
	{"navigate", "visit", "go", "browse", "goto"},
	{"image", "picture", "photo", "screenshot", "snapshot"},
	{"file", "document", "doc"},
	{"directory", "folder", "dir"},
	{"user", "person", "member", "account", "people", "profile"},
	{"message", "chat", "conversation"},
	{"comment", "reply", "note", "remark"},
	{"repository", "repo"},
	{"copy", "duplicate", "clone", "fork"},
	{"move", "rename", "relocate"},
	{"upload", "attach"},
	{"summary", "summarize", "overview", "describe"},
	{"page", "webpage", "site", "website", "url", "link", "web"},
	{"email", "mail"},
	{"error", "bug", "failure", "problem", "issue", "defect"},
	{"close", "resolve", "finish", "complete"},
	{"click", "press", "tap"},
	{"type", "enter", "fill", "input"},
	{"tag", "label"},
	{"info", "information", "detail", "details", "metadata"},
}

// synonyms maps a term (stemmed) to the other terms of its groups.
var synonyms = map[string][]string{}

func init() {
	for _, g := range synonymGroups {
		var stems []string
		for _, w := range g {
			tokens(w, nil, func(t string) { stems = append(stems, t) })
		}
		for _, a := range stems {
			for _, b := range stems {
				if a != b && !contains(synonyms[a], b) {
					synonyms[a] = append(synonyms[a], b)
				}
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
