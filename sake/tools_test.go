package sake_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// eras runs a test body once per protocol era.
func eras(t *testing.T, body func(t *testing.T, era saketest.Option)) {
	t.Helper()
	t.Run("modern", func(t *testing.T) { t.Parallel(); body(t, saketest.ClientInfo("test", "1")) })
	t.Run("legacy", func(t *testing.T) { t.Parallel(); body(t, saketest.Legacy()) })
}

func TestCallToolResults(t *testing.T) {
	t.Parallel()
	eras(t, func(t *testing.T, era saketest.Option) {
		c := saketest.Connect(t, newNotes(), era)
		res, err := c.CallTool("add_note", map[string]any{"id": "2", "text": "call mum"})
		if err != nil || res.Text() != "added 2" {
			t.Fatalf("add_note = %v, %v", res, err)
		}
		res, err = c.CallTool("list_notes", nil)
		if err != nil {
			t.Fatal(err)
		}
		var l noteList
		if err := res.DecodeStructured(&l); err != nil || l.Count != 2 || strings.Join(l.IDs, ",") != "1,2" {
			t.Fatalf("structured = %+v, %v", l, err)
		}
		if !strings.Contains(res.Text(), `"count":2`) {
			t.Errorf("text fallback = %q", res.Text())
		}
		res, err = c.CallTool("report", nil)
		if err != nil || len(res.Content) != 2 || res.Content[1].ContentType() != "image" {
			t.Fatalf("report = %+v, %v", res, err)
		}
		if img := res.Content[1].(*sake.ImageContent); string(img.Data) != "\x01\x02" || img.MIMEType != "image/png" {
			t.Errorf("image = %+v", img)
		}
	})
}

func TestCallToolErrors(t *testing.T) {
	t.Parallel()
	eras(t, func(t *testing.T, era saketest.Option) {
		c := saketest.Connect(t, newNotes(), era, saketest.ReturnPanics())

		// A tool's error is a result with isError, and changes nothing.
		_, err := c.CallTool("add_note", map[string]any{"id": "1", "text": "again"})
		var te *sake.ToolError
		if !errors.As(err, &te) || !strings.Contains(te.Result.Text(), "note 1 already exists") {
			t.Fatalf("duplicate add: %v", err)
		}

		// A *sake.Error from a tool is a JSON-RPC error.
		_, err = c.CallTool("forbidden", nil)
		var e *sake.Error
		if !errors.As(err, &e) || e.Code != -31000 {
			t.Fatalf("forbidden: %v", err)
		}

		// An unknown tool is a protocol error.
		_, err = c.CallTool("nope", nil)
		if !errors.As(err, &e) || e.Code != sake.CodeInvalidParams || e.Message != "Unknown tool: nope" {
			t.Fatalf("unknown tool: %v", err)
		}

		// A panic becomes an error result, and the server goes on.
		_, err = c.CallTool("explode", nil)
		if !errors.As(err, &te) || !strings.Contains(te.Result.Text(), "internal error") {
			t.Fatalf("panic: %v", err)
		}
		if _, err := c.CallTool("list_notes", nil); err != nil {
			t.Fatalf("after panic: %v", err)
		}
	})
}

func TestArgumentValidation(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		args any
		want []string
	}{
		{"missing required", map[string]any{"id": "3"}, []string{"text: is required"}},
		{"wrong type", map[string]any{"id": "3", "text": 5}, []string{"text: must be a string"}},
		{"pattern", map[string]any{"id": "x", "text": "a"}, []string{"id: must match pattern"}},
		{"minimum", map[string]any{"id": "3", "text": "a", "priority": 0}, []string{"priority: must be >= 1"}},
		{"maximum", map[string]any{"id": "3", "text": "a", "priority": 9}, []string{"priority: must be <= 5"}},
		{"enum", map[string]any{"id": "3", "text": "a", "color": "blue"}, []string{"color: must be one of"}},
		{"unknown field", map[string]any{"id": "3", "text": "a", "colour": "red"}, []string{"colour: is not allowed"}},
		{"slice item type", map[string]any{"id": "3", "text": "a", "tags": []any{1}}, []string{"tags[0]: must be a string"}},
		{"empty string", map[string]any{"id": "3", "text": ""}, []string{"text: must be at least 1 character"}},
		{"no arguments", nil, []string{"id: is required", "text: is required"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			n := newNotes()
			c := saketest.Connect(t, n)
			res, err := c.CallTool("add_note", tc.args)
			var te *sake.ToolError
			if !errors.As(err, &te) {
				t.Fatalf("got %v, %v; want an isError result", res, err)
			}
			for _, w := range tc.want {
				if !strings.Contains(te.Result.Text(), w) {
					t.Errorf("message %q does not contain %q", te.Result.Text(), w)
				}
			}
			if n.Count() != 1 {
				t.Errorf("the invalid call changed the notes: %d", n.Count())
			}
		})
	}
}

func TestToolListing(t *testing.T) {
	t.Parallel()
	c := saketest.Connect(t, newNotes())
	tools, err := c.ListTools()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	byName := map[string]protocol.ToolInfo{}
	for _, tl := range tools {
		names = append(names, tl.Name)
		byName[tl.Name] = tl
	}
	if got := strings.Join(names, ","); got != "add_note,explode,forbidden,list_notes,report" {
		t.Fatalf("tools = %s (helpers, ignored methods and non-context methods must not be tools)", got)
	}
	add := byName["add_note"]
	if add.Title != "Add a note" || add.Description != "Adds a note." || add.Annotations == nil || !*add.Annotations.IdempotentHint {
		t.Errorf("add_note metadata = %+v", add)
	}
	var schema map[string]any
	if err := json.Unmarshal(add.InputSchema, &schema); err != nil {
		t.Fatal(err)
	}
	if schema["type"] != "object" || schema["additionalProperties"] != false || schema["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
		t.Errorf("schema root = %v", schema)
	}
	props := schema["properties"].(map[string]any)
	prio := props["priority"].(map[string]any)
	if prio["minimum"] != 1.0 || prio["maximum"] != 5.0 || prio["default"] != 3.0 {
		t.Errorf("priority = %v", prio)
	}
	if req := schema["required"].([]any); len(req) != 2 {
		t.Errorf("required = %v (omitempty fields are optional)", req)
	}
	if byName["list_notes"].OutputSchema == nil {
		t.Error("a struct result has no outputSchema")
	}
	if byName["add_note"].OutputSchema != nil {
		t.Error("a string result has an outputSchema")
	}
	again, _ := c.ListTools()
	if len(again) != len(tools) || again[0].Name != tools[0].Name {
		t.Error("listing order is not stable")
	}
}

func TestContextParameterForms(t *testing.T) {
	t.Parallel()
	// ListNotes takes a context.Context, AddNote a *sake.Context: both are tools.
	c := saketest.Connect(t, newNotes())
	if _, err := c.CallTool("list_notes", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	// A tool without arguments refuses any.
	_, err := c.CallTool("list_notes", map[string]any{"x": 1})
	var te *sake.ToolError
	if !errors.As(err, &te) {
		t.Fatalf("extra argument accepted: %v", err)
	}
}
