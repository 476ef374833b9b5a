package main

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/saketest"
)

func eras(t *testing.T, body func(t *testing.T, opts ...saketest.Option)) {
	t.Helper()
	answers := []saketest.Option{
		saketest.OnInput(func(p protocol.ElicitRequest) protocol.ElicitResult {
			switch {
			case strings.Contains(p.Message, "name"):
				return saketest.Accept(map[string]any{"name": "Alice"})
			case strings.Contains(p.Message, "colour"):
				return saketest.Accept(map[string]any{"color": "blue"})
			case strings.Contains(p.Message, "context"):
				return saketest.Accept(map[string]any{"context": "test context"})
			case strings.Contains(p.Message, "confirm"):
				return saketest.Accept(map[string]any{"ok": true})
			}
			return saketest.Accept(map[string]any{"username": "testuser", "email": "test@example.com"})
		}),
		saketest.SamplingText("Paris"),
		saketest.Roots(sake.Root{URI: "file:///test/root", Name: "Test Root"}),
	}
	t.Run("modern", func(t *testing.T) { t.Parallel(); body(t, answers...) })
	t.Run("legacy", func(t *testing.T) { t.Parallel(); body(t, append(answers, saketest.Legacy())...) })
}

func TestFixtureTools(t *testing.T) {
	t.Parallel()
	eras(t, func(t *testing.T, opts ...saketest.Option) {
		c := saketest.Connect(t, &Everything{}, opts...)
		tools, err := c.ListTools()
		if err != nil {
			t.Fatal(err)
		}
		for _, tl := range tools {
			if tl.Description == "" {
				t.Errorf("tool %s has no description", tl.Name)
			}
		}
		text := map[string]string{
			"test_simple_text":                           "This is a simple text response for testing.",
			"test_input_required_result_elicitation":     "Hello, Alice!",
			"test_input_required_result_sampling":        "Sampling result: Paris",
			"test_input_required_result_list_roots":      "Found 1 root(s)",
			"test_input_required_result_request_state":   "state-ok: action=accept ok=true",
			"test_input_required_result_multi_round":     "Multi-round complete for Alice who likes blue",
			"test_input_required_result_multiple_inputs": "Name: Alice, answer: Paris, roots: 1",
		}
		for name, want := range text {
			res, err := c.CallTool(name, nil)
			if err != nil || res.Text() != want {
				t.Errorf("%s = %v, %v; want %q", name, res, err, want)
			}
		}
		res, err := c.CallTool("test_multiple_content_types", nil)
		if err != nil || len(res.Content) != 3 || res.Content[2].(*sake.EmbeddedResource).Resource.Text != `{"test":"data","value":123}` {
			t.Errorf("multiple content = %+v, %v", res, err)
		}
		res, err = c.CallTool("test_audio_content", nil)
		if err != nil || res.Content[0].(*sake.AudioContent).MIMEType != "audio/wav" {
			t.Errorf("audio = %+v, %v", res, err)
		}
		_, err = c.CallTool("test_error_handling", nil)
		var te *sake.ToolError
		if !errors.As(err, &te) || te.Result.Text() != "This tool intentionally returns an error for testing" {
			t.Errorf("error handling: %v", err)
		}
		res, err = c.CallTool("test_sampling", map[string]any{"prompt": "Test prompt for sampling"})
		if err != nil || res.Text() != "LLM response: Paris" {
			t.Errorf("sampling = %v, %v", res, err)
		}
		saketest.AssertAsked(t, c, "sampling/createMessage", map[string]any{"maxTokens": 100,
			"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "Test prompt for sampling"}}}})
		res, err = c.CallTool("test_elicitation", map[string]any{"message": "Please provide your information"})
		if err != nil || res.Text() != `User response: action=accept, content={"username":"testuser","email":"test@example.com"}` {
			t.Errorf("elicitation = %v, %v", res, err)
		}
		if _, err := c.CallTool("test_elicitation_sep1034_defaults", nil); err != nil {
			t.Error(err)
		}
		saketest.AssertAsked(t, c, "elicitation/create", map[string]any{"requestedSchema": map[string]any{"properties": map[string]any{
			"name":     map[string]any{"type": "string", "default": "John Doe"},
			"age":      map[string]any{"type": "integer", "default": 30},
			"score":    map[string]any{"type": "number", "default": 95.5},
			"status":   map[string]any{"type": "string", "default": "active", "enum": []any{"active", "inactive", "pending"}},
			"verified": map[string]any{"type": "boolean", "default": true},
		}}})
		if _, err := c.CallTool("test_elicitation_sep1330_enums", nil); err != nil {
			t.Error(err)
		}
		res, err = c.CallTool("json_schema_2020_12_tool", map[string]any{"name": "x", "email": "a@b.c"})
		if err != nil || !strings.Contains(res.Text(), `"email":"a@b.c"`) {
			t.Errorf("2020-12 tool = %v, %v", res, err)
		}
		if _, err := c.CallTool("json_schema_2020_12_tool", map[string]any{"name": "x"}); !errors.As(err, &te) {
			t.Errorf("2020-12 tool without phone or email: %v", err)
		}
	})
}

func TestFixtureSchemaVerbatim(t *testing.T) {
	t.Parallel()
	c := saketest.Connect(t, &Everything{})
	tools, err := c.ListTools()
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools {
		if tl.Name == "json_schema_2020_12_tool" {
			if string(tl.InputSchema) != jsonSchema202012 {
				t.Errorf("schema changed:\n%s", tl.InputSchema)
			}
			return
		}
	}
	t.Error("json_schema_2020_12_tool is not listed")
}

func TestFixtureResourcesAndPrompts(t *testing.T) {
	t.Parallel()
	eras(t, func(t *testing.T, opts ...saketest.Option) {
		c := saketest.Connect(t, &Everything{}, opts...)
		got, err := c.ReadResource("test://template/123/data")
		if err != nil || got[0].Text != `{"data":"Data for ID: 123","id":"123","templateTest":true}` || got[0].MIMEType != "application/json" {
			t.Errorf("template = %+v, %v", got, err)
		}
		got, err = c.ReadResource("test://static-binary")
		if err != nil || len(got[0].Blob) == 0 || got[0].MIMEType != "image/png" {
			t.Errorf("binary = %+v, %v", got, err)
		}
		p, err := c.GetPrompt("test_prompt_with_arguments", map[string]string{"arg1": "testValue1", "arg2": "testValue2"})
		if err != nil || p.Text() != "Prompt with arguments: arg1='testValue1', arg2='testValue2'" {
			t.Errorf("prompt = %+v, %v", p, err)
		}
		p, err = c.GetPrompt("test_input_required_result_prompt", nil)
		if err != nil || p.Text() != "Prompt with context: test context" {
			t.Errorf("prompt with input = %+v, %v", p, err)
		}
		comp, err := c.Complete(protocol.PromptRef("test_prompt_with_arguments"), "arg1", "tes", nil)
		if err != nil || len(comp.Values) != 3 {
			t.Errorf("completion = %+v, %v", comp, err)
		}
		ps, err := c.ListPrompts()
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ps {
			if p.Description == "" {
				t.Errorf("prompt %s has no description", p.Name)
			}
		}
	})
}

func TestFixtureMissingCapability(t *testing.T) {
	t.Parallel()
	c := saketest.Connect(t, &Everything{})
	_, err := c.CallTool("test_missing_capability", nil)
	var e *sake.Error
	if !errors.As(err, &e) || e.Code != sake.CodeMissingRequiredClientCapability {
		t.Fatalf("got %v", err)
	}
	b, _ := json.Marshal(e.Data)
	if string(b) != `{"requiredCapabilities":{"sampling":{}}}` {
		t.Errorf("data = %s", b)
	}
}
