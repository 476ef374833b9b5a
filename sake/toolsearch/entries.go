package toolsearch

import (
	"encoding/json"
	"errors"
	"slices"
)

var errArgsNotObject = errors.New("the arguments must be a JSON object")

// searchEntry is search_tools' tools/list entry.
func searchEntry(o Options) (json.RawMessage, error) {
	return json.Marshal(map[string]any{
		"name":  o.SearchTool,
		"title": "Search tools",
		"description": "Finds the tools of this server that do what you describe, best first, with their full definitions " +
			"(name, description, inputSchema). Describe the task in a few plain words (\"open a pull request\", " +
			"\"read a file\"); then run a tool found with " + o.CallTool + ".",
		"inputSchema": map[string]any{
			"type": "object",
			"properties": map[string]any{
				"query": map[string]any{"type": "string", "description": "What the tool should do, in plain words."},
				"limit": map[string]any{"type": "integer", "minimum": 1, "maximum": MaxResults,
					"description": "How many tools to return at most (default " + itoa(o.Results) + ")."},
			},
			"required":             []string{"query"},
			"additionalProperties": false,
		},
		"annotations": map[string]any{"readOnlyHint": true, "openWorldHint": false},
	})
}

// callEntry is call_tool's tools/list entry.
func callEntry(o Options) (json.RawMessage, error) {
	return json.Marshal(map[string]any{
		"name":  o.CallTool,
		"title": "Call a tool",
		"description": "Runs a tool that " + o.SearchTool + " found, by its name, with its arguments as its inputSchema " +
			"describes them, and returns that tool's result.",
		"inputSchema": map[string]any{
			"type": "object",
			"properties": map[string]any{
				"name":      map[string]any{"type": "string", "description": "The tool's name, as " + o.SearchTool + " returned it."},
				"arguments": map[string]any{"type": "object", "description": "The tool's arguments."},
			},
			"required":             []string{"name"},
			"additionalProperties": false,
		},
	})
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
