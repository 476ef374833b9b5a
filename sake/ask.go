package sake

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"

	"github.com/sakemcp/sake-go/sake/internal/validate"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// ErrInputRequired is returned by Elicit, ElicitURL, Sample and ListRoots
// in the modern era when the answer is not there yet. Return it (or an
// error wrapping it) from the tool: the dispatcher answers the call with
// an input_required result listing every question asked during the call,
// and runs the tool again when the client retries with the answers.
//
// A tool that asks several questions at once asks them all before
// returning, for example:
//
//	_, err1 := ctx.Elicit("name", "Your name?", &name)
//	_, err2 := ctx.Sample("summary", sake.SamplingRequest{...})
//	if err := errors.Join(err1, err2); err != nil {
//		return nil, err
//	}
//
// In the legacy era the same calls send real requests to the client and
// wait for its answers, so ErrInputRequired never happens there.
//
// Because a modern tool runs again on every round, work done before the
// first question is repeated: keep it side-effect free, or save what must
// survive in the signed request state with Keep and read it with Kept.
var ErrInputRequired = errors.New("sake: waiting for the client's input")

// Elicit asks the user to fill in a form. form is a pointer to a struct:
// its JSON Schema (flat, primitive fields only, as the protocol allows) is
// the requested schema, and on accept the answers are checked against it
// (ErrInvalidAnswer when they do not fit) and decoded into it. key
// names the question; it must be the same every time the tool asks it.
func (c *Context) Elicit(key, message string, form any) (ElicitAction, error) {
	schema, err := elicitSchemaFor(form)
	if err != nil {
		return "", err
	}
	return c.elicitForm(key, message, schema, form)
}

// ElicitSchema is Elicit with a requested schema given verbatim (for
// enums with titles, multi-select and other shapes a struct cannot say).
// On accept the answers are checked against schema (ErrInvalidAnswer) and
// decoded into answers (a pointer), if not nil.
func (c *Context) ElicitSchema(key, message string, schema json.RawMessage, answers any) (ElicitAction, error) {
	return c.elicitForm(key, message, schema, answers)
}

func (c *Context) elicitForm(key, message string, schema json.RawMessage, answers any) (ElicitAction, error) {
	if caps := c.req.ClientCapabilities; caps == nil || !caps.Elicitation.SupportsForm() {
		return "", missingCapability(c.req.Era, "elicitation", map[string]any{"elicitation": map[string]any{}})
	}
	params := &protocol.ElicitRequest{Mode: "form", Message: message, RequestedSchema: schema}
	if c.req.Era != EraModern && c.req.ProtocolVersion < "2025-11-25" {
		params.Mode = "" // the mode came with 2025-11-25
	}
	raw, err := c.ask(key, "elicitation/create", params)
	if err != nil {
		return "", err
	}
	check, err := elicitValidator(schema)
	if err != nil {
		return "", err
	}
	action, err := decodeElicit(raw, answers, check)
	if ia, ok := err.(*invalidAnswer); ok {
		return "", fmt.Errorf("%w: %q: %v", ErrInvalidAnswer, key, ia.err)
	}
	if err != nil {
		return "", c.malformed(key, "elicitation/create", params, err)
	}
	return action, nil
}

// ElicitURL asks the user to visit url (for what must not pass through the
// client: credentials, payments). Accept means the user agreed to open it;
// the outcome is for the server to learn on its side.
func (c *Context) ElicitURL(key, message, url string) (ElicitAction, error) {
	action, _, err := c.elicitURL(key, message, url)
	return action, err
}

// ElicitURLCompletable is ElicitURL that also returns complete, for a
// tool that goes on waiting once the user agreed to open url and learns
// on its side when they finished there (a sign-in's callback): complete
// tells the client, in 2025-11-25, with notifications/elicitation/complete
// naming the elicitation, sent on the call's own stream (to the client
// that was asked, and it alone). It sends once, however often it is
// called. The modern era has no such notification (the client's retry
// carries on): there complete does nothing.
func (c *Context) ElicitURLCompletable(key, message, url string) (action ElicitAction, complete func(), err error) {
	action, id, err := c.elicitURL(key, message, url)
	if err != nil {
		return "", nil, err
	}
	complete = func() {}
	if id != "" {
		msg, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/elicitation/complete",
			"params": map[string]string{"elicitationId": id}})
		if err == nil {
			complete = sync.OnceFunc(func() { c.notify(msg) })
		}
	}
	return action, complete, nil
}

// elicitURL asks the user to visit url and returns their answer and, in
// 2025-11-25, the elicitation's id.
func (c *Context) elicitURL(key, message, url string) (ElicitAction, string, error) {
	if caps := c.req.ClientCapabilities; caps == nil || !caps.Elicitation.SupportsURL() {
		return "", "", missingCapability(c.req.Era, "URL elicitation", map[string]any{"elicitation": map[string]any{"url": map[string]any{}}})
	}
	params := &protocol.ElicitRequest{Mode: "url", Message: message, URL: url}
	if c.req.Era != EraModern {
		params.ElicitationID = key + "-" + newSessionID()
	}
	raw, err := c.ask(key, "elicitation/create", params)
	if err != nil {
		return "", "", err
	}
	action, err := decodeElicit(raw, nil, nil)
	if err != nil {
		return "", "", c.malformed(key, "elicitation/create", params, err)
	}
	return action, params.ElicitationID, nil
}

// Sample asks the client's model for a completion.
func (c *Context) Sample(key string, req SamplingRequest) (*SamplingResult, error) {
	if caps := c.req.ClientCapabilities; caps == nil || caps.Sampling == nil {
		return nil, missingCapability(c.req.Era, "sampling", map[string]any{"sampling": map[string]any{}})
	}
	raw, err := c.ask(key, "sampling/createMessage", req)
	if err != nil {
		return nil, err
	}
	var r SamplingResult
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, c.malformed(key, "sampling/createMessage", req, fmt.Errorf("%w: the sampling answer %q: %v", errMalformedAnswer, key, err))
	}
	return &r, nil
}

// ListRoots asks the client for its roots.
func (c *Context) ListRoots(key string) ([]Root, error) {
	if caps := c.req.ClientCapabilities; caps == nil || caps.Roots == nil {
		return nil, missingCapability(c.req.Era, "roots", map[string]any{"roots": map[string]any{}})
	}
	raw, err := c.ask(key, "roots/list", map[string]any{})
	if err != nil {
		return nil, err
	}
	var r struct {
		Roots []Root `json:"roots"`
	}
	if err := json.Unmarshal(raw, &r); err != nil || r.Roots == nil {
		return nil, c.malformed(key, "roots/list", map[string]any{}, fmt.Errorf("%w: the roots answer %q", errMalformedAnswer, key))
	}
	return r.Roots, nil
}

// ErrInvalidAnswer is returned (wrapped, with the violations) by Elicit
// and ElicitSchema when the user accepted with content that does not fit
// the requested schema: a required field missing, a value of the wrong
// type or out of range. The answers are not decoded into the form. It is
// the same in both eras; the tool decides what to do: return the error
// (the model reads it as an error result), or ask again under another
// key.
var ErrInvalidAnswer = errors.New("sake: the accepted answer does not fit the requested schema")

// invalidAnswer carries the violations of an accepted answer.
type invalidAnswer struct{ err error }

func (e *invalidAnswer) Error() string { return e.err.Error() }

// errMalformedAnswer marks an answer the client sent in a shape the
// question does not allow; in the modern era the question is asked again.
var errMalformedAnswer = errors.New("sake: malformed answer")

func missingCapability(era Era, what string, required map[string]any) error {
	if era == EraModern {
		return &Error{Code: CodeMissingRequiredClientCapability,
			Message: "Server requires the " + what + " capability for this request",
			Data:    map[string]any{"requiredCapabilities": required}}
	}
	return &Error{Code: CodeInvalidRequest, Message: "The client did not declare the " + what + " capability at initialize"}
}

// decodeElicit decodes an elicitation answer; an accepted form must pass
// check (the requested schema), when there is one.
func decodeElicit(raw json.RawMessage, form any, check *validate.Schema) (ElicitAction, error) {
	var r struct {
		Action  ElicitAction    `json:"action"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return "", fmt.Errorf("%w: elicitation answer: %v", errMalformedAnswer, err)
	}
	switch r.Action {
	case Accept:
		if check != nil {
			content := r.Content
			if len(content) == 0 || string(content) == "null" {
				content = json.RawMessage("{}")
			}
			v, err := protocol.DecodeAny(content)
			if err != nil {
				return "", fmt.Errorf("%w: the accepted form is not JSON: %v", errMalformedAnswer, err)
			}
			if err := check.Validate(v); err != nil {
				return "", &invalidAnswer{err: err}
			}
		}
		if form != nil && len(r.Content) > 0 && string(r.Content) != "null" {
			if err := json.Unmarshal(r.Content, form); err != nil {
				return "", fmt.Errorf("%w: the accepted form does not fit: %v", errMalformedAnswer, err)
			}
		}
		return Accept, nil
	case Decline, Cancel:
		return r.Action, nil
	}
	return "", fmt.Errorf("%w: elicitation action %q", errMalformedAnswer, r.Action)
}

// elicitSchemaFor reflects the requested schema of an elicitation form,
// keeping only what the protocol allows in it.
func elicitSchemaFor(form any) (json.RawMessage, error) {
	t := reflect.TypeOf(form)
	if t == nil || t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("sake: Elicit needs a pointer to a struct, not %T", form)
	}
	if v, ok := elicitSchemas.Load(t); ok {
		return v.(json.RawMessage), nil
	}
	ts, err := schemaFor(t.Elem())
	if err != nil {
		return nil, err
	}
	var full struct {
		Properties map[string]map[string]any `json:"properties"`
		Required   []string                  `json:"required"`
	}
	if err := json.Unmarshal(ts.raw, &full); err != nil {
		return nil, err
	}
	allowed := map[string]bool{"type": true, "title": true, "description": true, "minLength": true, "maxLength": true,
		"format": true, "minimum": true, "maximum": true, "default": true, "enum": true, "enumNames": true,
		"oneOf": true, "items": true, "minItems": true, "maxItems": true}
	// Properties keep the struct's field order: clients show the form in it.
	b := []byte(`{"type":"object","properties":{`)
	for i, name := range ts.order {
		q := map[string]any{}
		for k, v := range full.Properties[name] {
			if allowed[k] {
				q[k] = v
			}
		}
		pj, err := json.Marshal(q)
		if err != nil {
			return nil, err
		}
		b = protocol.AppendKey(b, name, i == 0)
		b = append(b, pj...)
	}
	b = append(b, '}')
	if len(full.Required) > 0 {
		rj, _ := json.Marshal(full.Required)
		b = append(b, `,"required":`...)
		b = append(b, rj...)
	}
	b = append(b, '}')
	if v, err := validate.Compile(b); err == nil {
		elicitValidators.Store(string(b), v)
	}
	elicitSchemas.Store(t, json.RawMessage(b))
	return b, nil
}

// elicitSchemas caches the requested schema of each form type.
var elicitSchemas sync.Map

// elicitValidators caches the compiled requested schemas of Elicit's
// forms, keyed by the schema's text; a schema given to ElicitSchema is
// compiled when it is asked (it may change from call to call).
var elicitValidators sync.Map

// elicitValidator compiles the requested schema that answers must fit.
func elicitValidator(schema any) (*validate.Schema, error) {
	var raw json.RawMessage
	switch x := schema.(type) {
	case json.RawMessage:
		raw = x
	case []byte:
		raw = x
	default:
		b, err := json.Marshal(schema)
		if err != nil {
			return nil, fmt.Errorf("sake: requested schema: %w", err)
		}
		raw = b
	}
	if v, ok := elicitValidators.Load(string(raw)); ok {
		return v.(*validate.Schema), nil
	}
	v, err := validate.Compile(raw)
	if err != nil {
		return nil, fmt.Errorf("sake: the requested schema does not compile: %w", err)
	}
	return v, nil
}

// Keep saves a value in the request state, so a modern tool that runs
// again after its questions are answered finds it with Kept. Values must
// encode as JSON; keep them small.
func (c *Context) Keep(key string, value any) error {
	b, err := json.Marshal(value)
	if err != nil {
		return fmt.Errorf("sake: Keep %q: %w", key, err)
	}
	r := c.round()
	if r.kept == nil {
		r.kept = map[string]json.RawMessage{}
	}
	r.kept[key] = b
	return nil
}

// Kept decodes into v a value an earlier round saved with Keep, and
// reports whether there was one.
func (c *Context) Kept(key string, v any) bool {
	r := c.round()
	raw, ok := r.kept[key]
	return ok && json.Unmarshal(raw, v) == nil
}

// malformed handles an answer of the wrong shape: in the modern era the
// question is asked again; in the legacy era the error stands.
func (c *Context) malformed(key, method string, params any, err error) error {
	if c.req.Era != EraModern && c.task == nil {
		return err
	}
	b, merr := json.Marshal(params)
	if merr != nil {
		return merr
	}
	c.question(key, method, b)
	return fmt.Errorf("%w (%v)", ErrInputRequired, err)
}

// ask returns the answer to a question: from this round's answers
// (modern), by asking the client through the session (legacy), or it
// records the question and returns ErrInputRequired.
func (c *Context) ask(key, method string, params any) (json.RawMessage, error) {
	if key == "" {
		return nil, errors.New("sake: a question needs a non-empty key")
	}
	if c.req.Era == EraModern || c.task != nil {
		r := c.round()
		if raw, ok := r.answers[key]; ok {
			return raw, nil
		}
		b, err := json.Marshal(params)
		if err != nil {
			return nil, fmt.Errorf("sake: question %q: %w", key, err)
		}
		c.question(key, method, b)
		return nil, ErrInputRequired
	}
	return c.askSession(key, method, params)
}
