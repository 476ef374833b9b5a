package main

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/sakemcp/sake-go/sake"
)

// The fixture of the official MCP conformance suite: every tool, resource
// and prompt its scenarios call, with the exact names and outputs they
// check.

const (
	pngBase64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
	wavBase64 = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="
)

var (
	pngData = mustDecode(pngBase64)
	wavData = mustDecode(wavBase64)
)

func mustDecode(s string) []byte {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

// Everything is the conformance fixture.
type Everything struct{}

// Declare describes every component.
func (e *Everything) Declare(d *sake.Declarations) {
	d.Tool("TestSimpleText").Name("test_simple_text").Description("Returns a simple text response.")
	d.Tool("TestImageContent").Name("test_image_content").Description("Returns an image.")
	d.Tool("TestAudioContent").Name("test_audio_content").Description("Returns a sound.")
	d.Tool("TestEmbeddedResource").Name("test_embedded_resource").Description("Returns an embedded resource.")
	d.Tool("TestMultipleContentTypes").Name("test_multiple_content_types").Description("Returns text, an image and a resource.")
	d.Tool("TestToolWithLogging").Name("test_tool_with_logging").Description("Logs three messages while it runs.")
	d.Tool("TestToolWithProgress").Name("test_tool_with_progress").Description("Reports progress three times.")
	d.Tool("TestErrorHandling").Name("test_error_handling").Description("Always fails with a tool error.")
	d.Tool("TestSampling").Name("test_sampling").Description("Asks the client's model to answer a prompt.")
	d.Tool("TestElicitation").Name("test_elicitation").Description("Asks the user for a username and an email.")
	d.Tool("TestElicitationSEP1034Defaults").Name("test_elicitation_sep1034_defaults").Description("Asks with default values of every primitive type.")
	d.Tool("TestElicitationSEP1330Enums").Name("test_elicitation_sep1330_enums").Description("Asks with every enum shape.")
	d.Tool("JSONSchema202012Tool").Name("json_schema_2020_12_tool").Description("Takes arguments described with JSON Schema 2020-12 keywords.").
		InputSchema(json.RawMessage(jsonSchema202012))
	d.Tool("TestMissingCapability").Name("test_missing_capability").Description("Needs the sampling capability.")
	d.Tool("TestStreamingElicitation").Name("test_streaming_elicitation").Description("Streams progress before its result.")
	d.Tool("TestLoggingTool").Name("test_logging_tool").Description("Logs a message when the client asked for logs.")
	d.Tool("TestTriggerToolChange").Name("test_trigger_tool_change").Description("Changes the list of tools.")
	d.Tool("TestTriggerPromptChange").Name("test_trigger_prompt_change").Description("Changes the list of prompts.")
	d.Tool("TestInputRequiredResultElicitation").Name("test_input_required_result_elicitation").Description("Asks the user's name.")
	d.Tool("TestInputRequiredResultSampling").Name("test_input_required_result_sampling").Description("Asks the client's model a question.")
	d.Tool("TestInputRequiredResultListRoots").Name("test_input_required_result_list_roots").Description("Asks the client for its roots.")
	d.Tool("TestInputRequiredResultRequestState").Name("test_input_required_result_request_state").Description("Asks for confirmation and keeps state across rounds.")
	d.Tool("TestInputRequiredResultMultipleInputs").Name("test_input_required_result_multiple_inputs").Description("Asks three questions at once.")
	d.Tool("TestInputRequiredResultMultiRound").Name("test_input_required_result_multi_round").Description("Asks two questions, one round each.")
	d.Tool("TestInputRequiredResultTamperedState").Name("test_input_required_result_tampered_state").Description("Refuses a request state that was altered.")
	d.Tool("TestInputRequiredResultCapabilities").Name("test_input_required_result_capabilities").Description("Asks only what the client can answer.")
	d.Tool("TestXMCPHeader").Name("test_x_mcp_header").Description("Takes a region mirrored in the Mcp-Param-Region header.")
	d.Tool("TestReconnection").Name("test_reconnection").Description("Closes its stream mid-call; the result comes on the resumed stream.")

	d.Resource("StaticText", "test://static-text").Name("static-text").Description("A static text resource.").MIMEType("text/plain")
	d.Resource("StaticBinary", "test://static-binary").Name("static-binary").Description("A static binary resource.").MIMEType("image/png")
	d.Resource("WatchedResource", "test://watched-resource").Name("watched-resource").Description("A resource clients subscribe to.").MIMEType("text/plain")
	d.ResourceTemplate("TemplateData", "test://template/{id}/data").Name("template-data").Description("Data for an id.").MIMEType("application/json")

	d.Prompt("TestSimplePrompt").Name("test_simple_prompt").Description("A simple prompt.")
	d.Prompt("TestPromptWithArguments").Name("test_prompt_with_arguments").Description("A prompt with two arguments.").Complete("arg1", "CompleteArg1")
	d.Prompt("TestPromptWithEmbeddedResource").Name("test_prompt_with_embedded_resource").Description("A prompt with an embedded resource.")
	d.Prompt("TestPromptWithImage").Name("test_prompt_with_image").Description("A prompt with an image.")
	d.Prompt("TestInputRequiredResultPrompt").Name("test_input_required_result_prompt").Description("A prompt that asks the user for context.")
	e.declareTasks(d)
}

// TestSimpleText returns text.
func (e *Everything) TestSimpleText(ctx *sake.Context) (string, error) {
	return "This is a simple text response for testing.", nil
}

// TestImageContent returns an image.
func (e *Everything) TestImageContent(ctx *sake.Context) (sake.Content, error) {
	return sake.Image(pngData, "image/png"), nil
}

// TestAudioContent returns a sound.
func (e *Everything) TestAudioContent(ctx *sake.Context) (sake.Content, error) {
	return sake.Audio(wavData, "audio/wav"), nil
}

// TestEmbeddedResource returns an embedded resource.
func (e *Everything) TestEmbeddedResource(ctx *sake.Context) (sake.Content, error) {
	return &sake.EmbeddedResource{Resource: sake.ResourceContents{URI: "test://embedded-resource", MIMEType: "text/plain",
		Text: "This is an embedded resource content."}}, nil
}

// TestMultipleContentTypes returns three kinds of content.
func (e *Everything) TestMultipleContentTypes(ctx *sake.Context) ([]sake.Content, error) {
	return []sake.Content{
		sake.Text("Multiple content types test:"),
		sake.Image(pngData, "image/png"),
		&sake.EmbeddedResource{Resource: sake.ResourceContents{URI: "test://mixed-content-resource", MIMEType: "application/json",
			Text: `{"test":"data","value":123}`}},
	}, nil
}

// TestToolWithLogging logs three messages.
func (e *Everything) TestToolWithLogging(ctx *sake.Context) (string, error) {
	for _, m := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
		ctx.Log(sake.LevelInfo, "", m)
	}
	return "Tool with logging executed successfully", nil
}

// TestToolWithProgress reports progress and returns the token.
func (e *Everything) TestToolWithProgress(ctx *sake.Context) (string, error) {
	for _, p := range []float64{0, 50, 100} {
		ctx.Progress(p, 100, fmt.Sprintf("Completed step %v of 100", p))
	}
	if tok := ctx.ProgressToken(); tok != nil {
		return string(tok), nil
	}
	return "no progress token", nil
}

// TestErrorHandling fails.
func (e *Everything) TestErrorHandling(ctx *sake.Context) (string, error) {
	//lint:ignore ST1005 the conformance suite expects this exact text
	return "", errors.New("This tool intentionally returns an error for testing")
}

// SamplingArgs are the arguments of test_sampling.
type SamplingArgs struct {
	Prompt string `json:"prompt" jsonschema:"description=The prompt to send to the model"`
}

// TestSampling asks the client's model.
func (e *Everything) TestSampling(ctx *sake.Context, a SamplingArgs) (string, error) {
	res, err := ctx.Sample("sampling", sake.SamplingRequest{
		Messages:  []sake.SamplingMessage{{Role: sake.RoleUser, Content: sake.Text(a.Prompt)}},
		MaxTokens: 100,
	})
	if err != nil {
		return "", err
	}
	return "LLM response: " + res.Text(), nil
}

// ElicitationArgs are the arguments of test_elicitation.
type ElicitationArgs struct {
	Message string `json:"message" jsonschema:"description=The message to show the user"`
}

// UserInfo is the form test_elicitation asks for.
type UserInfo struct {
	Username string `json:"username" jsonschema:"description=User's response"`
	Email    string `json:"email" jsonschema:"description=User's email address"`
}

// TestElicitation asks the user.
func (e *Everything) TestElicitation(ctx *sake.Context, a ElicitationArgs) (string, error) {
	var u UserInfo
	action, err := ctx.Elicit("user_info", a.Message, &u)
	if err != nil {
		return "", err
	}
	content, _ := json.Marshal(u)
	return fmt.Sprintf("User response: action=%s, content=%s", action, content), nil
}

// Defaults is the SEP-1034 form: a default for every primitive type.
type Defaults struct {
	Name     string  `json:"name,omitempty" jsonschema:"description=User name,default=John Doe"`
	Age      int     `json:"age,omitempty" jsonschema:"description=User age,default=30"`
	Score    float64 `json:"score,omitempty" jsonschema:"description=User score,default=95.5"`
	Status   string  `json:"status,omitempty" jsonschema:"description=User status,enum=active,enum=inactive,enum=pending,default=active"`
	Verified bool    `json:"verified,omitempty" jsonschema:"description=Verification status,default=true"`
}

// TestElicitationSEP1034Defaults asks with defaults.
func (e *Everything) TestElicitationSEP1034Defaults(ctx *sake.Context) (string, error) {
	var d Defaults
	action, err := ctx.Elicit("defaults", "Please confirm your details", &d)
	if err != nil {
		return "", err
	}
	content, _ := json.Marshal(d)
	return fmt.Sprintf("Elicitation completed: action=%s, content=%s", action, content), nil
}

const enumsSchema = `{"type":"object","properties":{
"untitledSingle":{"type":"string","enum":["option1","option2","option3"]},
"titledSingle":{"type":"string","oneOf":[{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]},
"legacyEnum":{"type":"string","enum":["opt1","opt2","opt3"],"enumNames":["Option One","Option Two","Option Three"]},
"untitledMulti":{"type":"array","minItems":1,"maxItems":3,"items":{"type":"string","enum":["option1","option2","option3"]}},
"titledMulti":{"type":"array","minItems":1,"maxItems":3,"items":{"anyOf":[{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]}}
},"required":[]}`

// TestElicitationSEP1330Enums asks with every enum shape.
func (e *Everything) TestElicitationSEP1330Enums(ctx *sake.Context) (string, error) {
	var answers map[string]any
	action, err := ctx.ElicitSchema("enums", "Please choose", json.RawMessage(enumsSchema), &answers)
	if err != nil {
		return "", err
	}
	content, _ := json.Marshal(answers)
	return fmt.Sprintf("Elicitation completed: action=%s, content=%s", action, content), nil
}

const jsonSchema202012 = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},"contactMethod":{"type":"string","enum":["phone","email"]},"phone":{"type":"string"},"email":{"type":"string"}},"allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],"if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},"then":{"required":["phone"]},"else":{"required":["email"]},"additionalProperties":false}`

// JSONSchema202012Tool echoes its arguments.
func (e *Everything) JSONSchema202012Tool(ctx *sake.Context, args map[string]any) (string, error) {
	b, _ := json.Marshal(args)
	return "Received: " + string(b), nil
}

// TestMissingCapability needs sampling.
func (e *Everything) TestMissingCapability(ctx *sake.Context) (string, error) {
	if ctx.ClientCapabilities().Sampling == nil {
		return "", &sake.Error{Code: sake.CodeMissingRequiredClientCapability,
			Message: "Server requires the sampling capability for this request",
			Data:    map[string]any{"requiredCapabilities": map[string]any{"sampling": map[string]any{}}}}
	}
	return "The client declared sampling.", nil
}

// TestStreamingElicitation streams progress, then answers.
func (e *Everything) TestStreamingElicitation(ctx *sake.Context) (string, error) {
	ctx.Progress(1, 2, "working")
	ctx.Progress(2, 2, "done")
	return "Streaming complete.", nil
}

// TestLoggingTool logs when the client asked for logs.
func (e *Everything) TestLoggingTool(ctx *sake.Context) (string, error) {
	ctx.Log(sake.LevelInfo, "", "Logging tool called")
	return "Logged.", nil
}

// TestTriggerToolChange adds or removes a tool.
func (e *Everything) TestTriggerToolChange(ctx *sake.Context) (string, error) {
	srv := ctx.Server()
	if srv.RemoveTool("test_dynamic_tool") {
		return "Removed test_dynamic_tool.", nil
	}
	err := srv.AddTool(sake.NewTool("test_dynamic_tool", func(ctx *sake.Context) (string, error) {
		return "This tool was added at run time.", nil
	}).Description("A tool added at run time."))
	return "Added test_dynamic_tool.", err
}

// TestTriggerPromptChange adds or removes a prompt.
func (e *Everything) TestTriggerPromptChange(ctx *sake.Context) (string, error) {
	srv := ctx.Server()
	if srv.RemovePrompt("test_dynamic_prompt") {
		return "Removed test_dynamic_prompt.", nil
	}
	err := srv.AddPrompt(sake.NewPrompt("test_dynamic_prompt", func(ctx *sake.Context) (string, error) {
		return "This prompt was added at run time.", nil
	}).Description("A prompt added at run time."))
	return "Added test_dynamic_prompt.", err
}

// NameForm asks for a name.
type NameForm struct {
	Name string `json:"name"`
}

// TestInputRequiredResultElicitation asks the user's name.
func (e *Everything) TestInputRequiredResultElicitation(ctx *sake.Context) (string, error) {
	var f NameForm
	action, err := ctx.Elicit("user_name", "What is your name?", &f)
	if err != nil {
		return "", err
	}
	if action != sake.Accept {
		return "The user did not answer (" + string(action) + ").", nil
	}
	return "Hello, " + f.Name + "!", nil
}

func capitalQuestion() sake.SamplingRequest {
	return sake.SamplingRequest{
		Messages:  []sake.SamplingMessage{{Role: sake.RoleUser, Content: sake.Text("What is the capital of France?")}},
		MaxTokens: 100,
	}
}

// TestInputRequiredResultSampling asks the model.
func (e *Everything) TestInputRequiredResultSampling(ctx *sake.Context) (string, error) {
	res, err := ctx.Sample("capital_question", capitalQuestion())
	if err != nil {
		return "", err
	}
	return "Sampling result: " + res.Text(), nil
}

// TestInputRequiredResultListRoots asks for roots.
func (e *Everything) TestInputRequiredResultListRoots(ctx *sake.Context) (string, error) {
	roots, err := ctx.ListRoots("client_roots")
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Found %d root(s)", len(roots)), nil
}

// ConfirmForm asks for a yes or no.
type ConfirmForm struct {
	OK bool `json:"ok"`
}

// TestInputRequiredResultRequestState keeps state across rounds.
func (e *Everything) TestInputRequiredResultRequestState(ctx *sake.Context) (string, error) {
	var marker string
	if !ctx.Kept("marker", &marker) {
		marker = "state-ok"
		if err := ctx.Keep("marker", marker); err != nil {
			return "", err
		}
	}
	var f ConfirmForm
	action, err := ctx.Elicit("confirm", "Please confirm", &f)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s: action=%s ok=%v", marker, action, f.OK), nil
}

// TestInputRequiredResultMultipleInputs asks three questions at once.
func (e *Everything) TestInputRequiredResultMultipleInputs(ctx *sake.Context) (string, error) {
	var f NameForm
	_, err1 := ctx.Elicit("user_name", "What is your name?", &f)
	answer, err2 := ctx.Sample("capital_question", capitalQuestion())
	roots, err3 := ctx.ListRoots("client_roots")
	if err := errors.Join(err1, err2, err3); err != nil {
		return "", err
	}
	return fmt.Sprintf("Name: %s, answer: %s, roots: %d", f.Name, answer.Text(), len(roots)), nil
}

// ColorForm asks for a colour.
type ColorForm struct {
	Color string `json:"color"`
}

// TestInputRequiredResultMultiRound asks two questions, one per round.
func (e *Everything) TestInputRequiredResultMultiRound(ctx *sake.Context) (string, error) {
	var name NameForm
	if _, err := ctx.Elicit("step1", "What is your name?", &name); err != nil {
		return "", err
	}
	var color ColorForm
	if _, err := ctx.Elicit("step2", "What is your favourite colour?", &color); err != nil {
		return "", err
	}
	return fmt.Sprintf("Multi-round complete for %s who likes %s", name.Name, color.Color), nil
}

// TestInputRequiredResultTampered asks for confirmation; the dispatcher
// refuses an altered request state before this runs again.
func (e *Everything) TestInputRequiredResultTamperedState(ctx *sake.Context) (string, error) {
	var f ConfirmForm
	if _, err := ctx.Elicit("confirm", "Please confirm", &f); err != nil {
		return "", err
	}
	return fmt.Sprintf("Confirmed: %v", f.OK), nil
}

// TestInputRequiredResultCapabilities asks only what the client declared.
func (e *Everything) TestInputRequiredResultCapabilities(ctx *sake.Context) (string, error) {
	caps := ctx.ClientCapabilities()
	var errs []error
	var parts []string
	if caps.Elicitation != nil {
		var f NameForm
		_, err := ctx.Elicit("user_name", "What is your name?", &f)
		errs = append(errs, err)
		parts = append(parts, "name="+f.Name)
	}
	if caps.Sampling != nil {
		res, err := ctx.Sample("capital_question", capitalQuestion())
		errs = append(errs, err)
		if err == nil {
			parts = append(parts, "answer="+res.Text())
		}
	}
	if err := errors.Join(errs...); err != nil {
		return "", err
	}
	return fmt.Sprintf("Answered with what the client supports: %v", parts), nil
}

// HeaderArgs are the arguments of test_x_mcp_header.
type HeaderArgs struct {
	Region string `json:"region" jsonschema_extras:"x-mcp-header=Region" jsonschema:"description=Cloud region"`
	Level  int    `json:"level,omitempty"`
}

// TestXMCPHeader echoes its region.
func (e *Everything) TestXMCPHeader(ctx *sake.Context, a HeaderArgs) (string, error) {
	return fmt.Sprintf("region=%s level=%d", a.Region, a.Level), nil
}

// TestReconnection closes its stream before answering (SSE polling): the
// client resumes with Last-Event-ID and gets the result there.
func (e *Everything) TestReconnection(ctx *sake.Context) (string, error) {
	ctx.Progress(1, 2, "closing the stream")
	ctx.CloseStream()
	return "Reconnection test completed", nil
}

// StaticText is test://static-text.
func (e *Everything) StaticText(ctx *sake.Context) (string, error) {
	return "This is the content of the static text resource.", nil
}

// StaticBinary is test://static-binary.
func (e *Everything) StaticBinary(ctx *sake.Context) ([]byte, error) { return pngData, nil }

// WatchedResource is test://watched-resource.
func (e *Everything) WatchedResource(ctx *sake.Context) (string, error) {
	return "Watched resource content", nil
}

// TemplateVars are the variables of test://template/{id}/data.
type TemplateVars struct {
	ID string `json:"id"`
}

// TemplateData reads test://template/{id}/data.
func (e *Everything) TemplateData(ctx *sake.Context, v TemplateVars) (string, error) {
	b, _ := json.Marshal(map[string]any{"id": v.ID, "templateTest": true, "data": "Data for ID: " + v.ID})
	return string(b), nil
}

// TestSimplePrompt is a prompt without arguments.
func (e *Everything) TestSimplePrompt(ctx *sake.Context) (string, error) {
	return "This is a simple prompt for testing.", nil
}

// PromptArgs are the arguments of test_prompt_with_arguments.
type PromptArgs struct {
	Arg1 string `json:"arg1" jsonschema:"description=First test argument"`
	Arg2 string `json:"arg2" jsonschema:"description=Second test argument"`
}

// TestPromptWithArguments uses its arguments.
func (e *Everything) TestPromptWithArguments(ctx *sake.Context, a PromptArgs) (string, error) {
	return fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", a.Arg1, a.Arg2), nil
}

// CompleteArg1 completes arg1.
func (e *Everything) CompleteArg1(ctx *sake.Context, r sake.CompleteRequest) ([]string, error) {
	var out []string
	for _, v := range []string{"test", "testing", "tested", "value"} {
		if len(r.Value) <= len(v) && v[:len(r.Value)] == r.Value {
			out = append(out, v)
		}
	}
	return out, nil
}

// ResourceArgs are the arguments of test_prompt_with_embedded_resource.
type ResourceArgs struct {
	ResourceURI string `json:"resourceUri" jsonschema:"description=URI of the resource to embed"`
}

// TestPromptWithEmbeddedResource embeds a resource.
func (e *Everything) TestPromptWithEmbeddedResource(ctx *sake.Context, a ResourceArgs) ([]sake.PromptMessage, error) {
	return []sake.PromptMessage{
		sake.UserMessage(&sake.EmbeddedResource{Resource: sake.ResourceContents{URI: a.ResourceURI, MIMEType: "text/plain",
			Text: "Embedded resource content for testing."}}),
		sake.UserMessage(sake.Text("Please process the embedded resource above.")),
	}, nil
}

// TestPromptWithImage shows an image.
func (e *Everything) TestPromptWithImage(ctx *sake.Context) ([]sake.PromptMessage, error) {
	return []sake.PromptMessage{
		sake.UserMessage(sake.Image(pngData, "image/png")),
		sake.UserMessage(sake.Text("Please analyze the image above.")),
	}, nil
}

// ContextForm asks for context.
type ContextForm struct {
	Context string `json:"context"`
}

// TestInputRequiredResultPrompt asks the user before answering.
func (e *Everything) TestInputRequiredResultPrompt(ctx *sake.Context) (string, error) {
	var f ContextForm
	if _, err := ctx.Elicit("user_context", "What context should the prompt use?", &f); err != nil {
		return "", err
	}
	return "Prompt with context: " + f.Context, nil
}
