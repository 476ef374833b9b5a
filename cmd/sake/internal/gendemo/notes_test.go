package gendemo_test

import (
	"encoding/json"
	"testing"

	"github.com/sakemcp/sake-go/cmd/sake/internal/gendemo"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// The descriptions below come from the doc comments, through sake_gen.go.
func TestDocCommentsAreTheDescriptions(t *testing.T) {
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		c := saketest.Connect(t, &gendemo.Notes{}, opts...)
		tools, err := c.ListTools()
		if err != nil {
			t.Fatal(err)
		}
		byName := map[string]protocol.ToolInfo{}
		for _, tl := range tools {
			byName[tl.Name] = tl
		}
		for name, want := range map[string]string{
			"add":          "Add stores a note and returns its number.",
			"search":       "Search finds the notes that contain a word. It takes a standard context.",
			"forget":       "Forgets every note.", // Declare wins
			"undocumented": "",
		} {
			tl, ok := byName[name]
			if !ok {
				t.Fatalf("no tool %s in %v", name, tools)
			}
			if tl.Description != want {
				t.Errorf("tool %s: description %q, want %q", name, tl.Description, want)
			}
		}
		if _, ok := byName["format"]; ok {
			t.Error("the helper Format became a tool")
		}
		var add struct {
			Properties map[string]struct {
				Description string `json:"description"`
				Properties  map[string]struct {
					Description string `json:"description"`
				} `json:"properties"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(byName["add"].InputSchema, &add); err != nil {
			t.Fatal(err)
		}
		for name, want := range map[string]string{
			"text":   "Text is the note itself.\n\nIt is kept as written.",
			"tags":   "Words to find the note by", // the tag wins
			"pinned": "Pinned keeps the note at the top.",
			"plain":  "",
		} {
			if got := add.Properties[name].Description; got != want {
				t.Errorf("add's property %s: description %q, want %q", name, got, want)
			}
		}
		if got := add.Properties["where"].Properties["city"].Description; got != "City is the city's name, as the Notes user writes it." {
			t.Errorf("add's property where.city: description %q", got)
		}

		resources, err := c.ListResources()
		if err != nil {
			t.Fatal(err)
		}
		if len(resources) != 1 || resources[0].Description != "About says what the server keeps." {
			t.Errorf("resources %+v", resources)
		}
		prompts, err := c.ListPrompts()
		if err != nil {
			t.Fatal(err)
		}
		if len(prompts) != 1 || prompts[0].Description != "Summarize asks for a summary of the notes." ||
			len(prompts[0].Arguments) != 1 || prompts[0].Arguments[0].Description != "Style is how to write the summary." {
			t.Errorf("prompts %+v", prompts)
		}
	})
}
