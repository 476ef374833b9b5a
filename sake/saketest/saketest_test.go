package saketest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/saketest"
)

type interview struct{}

type nameForm struct {
	Name string `json:"name" jsonschema:"description=Your name"`
}

type okForm struct {
	OK bool `json:"ok"`
}

func (interview) Ask(ctx *sake.Context) (string, error) {
	var f nameForm
	action, err := ctx.Elicit("who", "Who should be greeted?", &f)
	if err != nil {
		return "", err
	}
	if action != sake.Accept {
		return "no greeting: " + string(action), nil
	}
	return "Hello, " + f.Name + "!", nil
}

func (interview) Confirm(ctx *sake.Context) (string, error) {
	var f okForm
	action, err := ctx.Elicit("confirm", "Proceed?", &f)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s ok=%v", action, f.OK), nil
}

func (interview) Survey(ctx *sake.Context) (string, error) {
	var f nameForm
	_, err1 := ctx.Elicit("name", "Name?", &f)
	answer, err2 := ctx.Sample("capital", sake.SamplingRequest{
		Messages:  []sake.SamplingMessage{{Role: sake.RoleUser, Content: sake.Text("Capital of France?")}},
		MaxTokens: 10,
	})
	roots, err3 := ctx.ListRoots("roots")
	if err := errors.Join(err1, err2, err3); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s|%s|%d roots", f.Name, answer.Text(), len(roots)), nil
}

type colorForm struct {
	Color string `json:"color"`
}

func (interview) Steps(ctx *sake.Context) (string, error) {
	var name nameForm
	if !ctx.Kept("name", &name) {
		if _, err := ctx.Elicit("step1", "Name?", &name); err != nil {
			return "", err
		}
		if err := ctx.Keep("name", name); err != nil {
			return "", err
		}
	}
	var color colorForm
	if _, err := ctx.Elicit("step2", "Colour?", &color); err != nil {
		return "", err
	}
	return name.Name + " likes " + color.Color, nil
}

func (interview) Roots(ctx *sake.Context) (string, error) {
	if ctx.ClientCapabilities().Roots == nil {
		return "no roots to look at", nil
	}
	roots, err := ctx.ListRoots("roots")
	if err != nil {
		return "", err
	}
	return roots[0].URI, nil
}

// both runs body in the modern and the legacy era.
func both(t *testing.T, body func(t *testing.T, era saketest.Option)) {
	t.Helper()
	t.Run("modern", func(t *testing.T) { t.Parallel(); body(t, saketest.ClientInfo("t", "1")) })
	t.Run("legacy", func(t *testing.T) { t.Parallel(); body(t, saketest.Legacy()) })
}

func TestOneQuestion(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, era saketest.Option) {
		c := saketest.Connect(t, interview{}, era, saketest.OnInput(func(p protocol.ElicitRequest) protocol.ElicitResult {
			return saketest.Accept(map[string]any{"name": "Rui"})
		}))
		res, err := c.CallTool("ask", nil)
		if err != nil || res.Text() != "Hello, Rui!" {
			t.Fatalf("ask = %v, %v", res, err)
		}
		saketest.AssertAsked(t, c, "elicitation/create", map[string]any{
			"message":         "Who should be greeted?",
			"requestedSchema": map[string]any{"type": "object", "required": []string{"name"}},
		})
		saketest.RefuteAsked(t, c, "sampling/createMessage", nil)
	})
}

func TestDeclineCancelAndExplicitNo(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, era saketest.Option) {
		for answer, want := range map[string]string{"decline": "no greeting: decline", "cancel": "no greeting: cancel"} {
			a := saketest.Decline()
			if answer == "cancel" {
				a = saketest.Cancel()
			}
			c := saketest.Connect(t, interview{}, era, saketest.OnInput(func(protocol.ElicitRequest) protocol.ElicitResult { return a }))
			res, err := c.CallTool("ask", nil)
			if err != nil || res.Text() != want {
				t.Errorf("%s: %v, %v", answer, res, err)
			}
		}
		c := saketest.Connect(t, interview{}, era, saketest.OnInput(func(protocol.ElicitRequest) protocol.ElicitResult {
			return saketest.Accept(map[string]any{"ok": false})
		}))
		res, err := c.CallTool("confirm", nil)
		if err != nil || res.Text() != "accept ok=false" {
			t.Errorf("accept with no: %v, %v", res, err)
		}
	})
}

func TestSeveralQuestionsInOneRound(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, era saketest.Option) {
		c := saketest.Connect(t, interview{}, era,
			saketest.OnInput(func(protocol.ElicitRequest) protocol.ElicitResult {
				return saketest.Accept(map[string]any{"name": "Ana"})
			}),
			saketest.SamplingText("Paris"),
			saketest.Roots(sake.Root{URI: "file:///a"}, sake.Root{URI: "file:///b"}))
		res, err := c.CallTool("survey", nil)
		if err != nil || res.Text() != "Ana|Paris|2 roots" {
			t.Fatalf("survey = %v, %v", res, err)
		}
		saketest.AssertAsked(t, c, "sampling/createMessage", map[string]any{"maxTokens": 10})
		saketest.AssertAsked(t, c, "roots/list", nil)
	})
}

func TestSeveralRounds(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, era saketest.Option) {
		c := saketest.Connect(t, interview{}, era, saketest.OnInput(func(p protocol.ElicitRequest) protocol.ElicitResult {
			if p.Message == "Name?" {
				return saketest.Accept(map[string]any{"name": "Ana"})
			}
			return saketest.Accept(map[string]any{"color": "blue"})
		}))
		res, err := c.CallTool("steps", nil)
		if err != nil || res.Text() != "Ana likes blue" {
			t.Fatalf("steps = %v, %v", res, err)
		}
		// The name is asked once: the second round finds it kept.
		n := 0
		for _, a := range c.Asked() {
			if strings.Contains(string(a.Params), "Name?") {
				n++
			}
		}
		if n != 1 {
			t.Errorf("the name was asked %d times", n)
		}
	})
}

func TestMissingCapability(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, era saketest.Option) {
		c := saketest.Connect(t, interview{}, era)
		_, err := c.CallTool("ask", nil)
		var e *sake.Error
		if !errors.As(err, &e) {
			t.Fatalf("got %v, want a JSON-RPC error", err)
		}
		if c.Session().Era == sake.EraModern {
			if e.Code != sake.CodeMissingRequiredClientCapability || !strings.Contains(fmt.Sprint(e.Data), "elicitation") {
				t.Errorf("modern: %v", e)
			}
		} else if e.Code != sake.CodeInvalidRequest {
			t.Errorf("legacy: %v", e)
		}
		// A tool with an alternative uses only what the client declared.
		res, err := c.CallTool("roots", nil)
		if err != nil || res.Text() != "no roots to look at" {
			t.Errorf("roots without the capability: %v, %v", res, err)
		}
		saketest.RefuteAsked(t, c, "roots/list", nil)
	})
}

// firstRound calls a tool without answering and returns its interim result.
func firstRound(t *testing.T, c *saketest.Client, name string) (requestState string) {
	t.Helper()
	raw, err := c.Send(mustJSON(t, map[string]any{"jsonrpc": "2.0", "id": "r1", "method": "tools/call", "params": map[string]any{
		"name": name, "_meta": modernMeta(map[string]any{"elicitation": map[string]any{}})}})).Body, error(nil)
	var r struct {
		Result struct {
			ResultType    string                     `json:"resultType"`
			InputRequests map[string]json.RawMessage `json:"inputRequests"`
			RequestState  string                     `json:"requestState"`
		} `json:"result"`
	}
	if err = json.Unmarshal(raw, &r); err != nil || r.Result.ResultType != "input_required" || r.Result.RequestState == "" {
		t.Fatalf("first round: %s", raw)
	}
	return r.Result.RequestState
}

func modernMeta(caps map[string]any) map[string]any {
	return map[string]any{"io.modelcontextprotocol/protocolVersion": protocol.ModernVersion, "io.modelcontextprotocol/clientCapabilities": caps}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func retry(t *testing.T, c *saketest.Client, name, state string, answers map[string]any) (json.RawMessage, int) {
	t.Helper()
	body := c.Send(mustJSON(t, map[string]any{"jsonrpc": "2.0", "id": "r2", "method": "tools/call", "params": map[string]any{
		"name": name, "requestState": state, "inputResponses": answers,
		"_meta": modernMeta(map[string]any{"elicitation": map[string]any{}})}})).Body
	var r struct {
		Result json.RawMessage `json:"result"`
		Error  *sake.Error     `json:"error"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatal(err)
	}
	if r.Error != nil {
		return nil, r.Error.Code
	}
	return r.Result, 0
}

func TestRequestStateIsProtected(t *testing.T) {
	t.Parallel()
	c := saketest.Connect(t, interview{}, saketest.ServerOptions(sake.Secret([]byte("s1"))))
	state := firstRound(t, c, "ask")
	accept := map[string]any{"who": map[string]any{"action": "accept", "content": map[string]any{"name": "Rui"}}}

	if res, code := retry(t, c, "ask", state, accept); code != 0 || !strings.Contains(string(res), "Hello, Rui!") {
		t.Fatalf("honest retry: %s %d", res, code)
	}
	dot := strings.LastIndexByte(state, '.')
	tampered := []string{
		state + "-TAMPERED",
		"x" + state,
		state[:dot] + ".AAAA",
		"garbage",
	}
	for _, bad := range tampered {
		if _, code := retry(t, c, "ask", bad, accept); code != sake.CodeInvalidParams {
			t.Errorf("tampered state %q: code %d", bad, code)
		}
	}
	// A state for another tool, or minted by another server, is refused.
	if _, code := retry(t, c, "confirm", state, accept); code != sake.CodeInvalidParams {
		t.Errorf("state for another tool: %d", code)
	}
	other := saketest.Connect(t, interview{}, saketest.ServerOptions(sake.Secret([]byte("s2"))))
	if _, code := retry(t, other, "ask", state, accept); code != sake.CodeInvalidParams {
		t.Errorf("state from another server: %d", code)
	}
	// Malformed answers are asked again, never completed.
	res, code := retry(t, c, "ask", state, map[string]any{"who": 12345})
	if code != 0 || !strings.Contains(string(res), `"input_required"`) {
		t.Errorf("malformed answer: %s %d", res, code)
	}
	res, code = retry(t, c, "ask", state, map[string]any{"wrong_key": map[string]any{"action": "accept"}})
	if code != 0 || !strings.Contains(string(res), `"input_required"`) {
		t.Errorf("wrong key: %s %d", res, code)
	}
	if _, code := retry(t, c, "ask", state, nil); code != 0 {
		t.Errorf("null inputResponses: %d", code)
	}
}

func TestRequestStateExpires(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	c := saketest.Connect(t, interview{}, saketest.ServerOptions(sake.WithLimits(sake.Limits{RequestStateTTL: time.Minute}), sake.Clock(clock)))
	state := firstRound(t, c, "ask")
	mu.Lock()
	now = now.Add(2 * time.Minute)
	mu.Unlock()
	accept := map[string]any{"who": map[string]any{"action": "accept", "content": map[string]any{"name": "Rui"}}}
	if _, code := retry(t, c, "ask", state, accept); code != sake.CodeInvalidParams {
		t.Errorf("expired state: code %d", code)
	}
}

type reporter struct{}

func (reporter) Work(ctx *sake.Context) (string, error) {
	for i := 1; i <= 3; i++ {
		ctx.Progress(float64(i), 3, fmt.Sprintf("step %d", i))
	}
	ctx.Log(sake.LevelDebug, "work", "details")
	ctx.Log(sake.LevelWarning, "work", "careful")
	ctx.Slog().Info("via slog", "n", 1)
	return "done", nil
}

func TestProgressAndLogs(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, era saketest.Option) {
		c := saketest.Connect(t, reporter{}, era, saketest.LogLevel(sake.LevelInfo))
		if _, err := c.CallTool("work", nil); err != nil {
			t.Fatal(err)
		}
		var progress []float64
		for _, n := range c.Notifications() {
			if n.Method == "notifications/progress" {
				var p struct{ Progress float64 }
				_ = json.Unmarshal(n.Params, &p)
				progress = append(progress, p.Progress)
			}
		}
		if fmt.Sprint(progress) != "[1 2 3]" {
			t.Errorf("progress = %v", progress)
		}
		saketest.AssertNotification(t, c, "notifications/progress", map[string]any{"progress": 3, "total": 3, "message": "step 3"})
		saketest.AssertNotification(t, c, "notifications/message", map[string]any{"level": "warning", "data": "careful"})
		saketest.AssertNotification(t, c, "notifications/message", map[string]any{"level": "info", "data": map[string]any{"message": "via slog", "n": 1}})
		saketest.RefuteNotification(t, c, "notifications/message", map[string]any{"level": "debug"})

		quiet := saketest.Connect(t, reporter{}, era)
		if _, err := quiet.CallTool("work", nil); err != nil {
			t.Fatal(err)
		}
		saketest.RefuteNotification(t, quiet, "notifications/message", nil)
	})
}

type dynamic struct{}

func (dynamic) Grow(ctx *sake.Context) (string, error) {
	srv := ctx.Server()
	err := srv.AddTool(sake.NewTool("grown", func(ctx *sake.Context) (string, error) { return "new", nil }).Description("Added at run time."))
	return "grew", err
}

func (dynamic) Touch(ctx *sake.Context) (string, error) {
	ctx.Server().ResourceUpdated("mem://state")
	return "touched", nil
}

func TestListenIsolation(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, era saketest.Option) {
		a := saketest.Connect(t, dynamic{}, era)
		b := saketest.Connect(t, dynamic{}, era)
		la, lb := saketest.Listen(t, a), saketest.Listen(t, b)
		if _, err := a.CallTool("grow", nil); err != nil {
			t.Fatal(err)
		}
		if _, err := a.CallTool("touch", nil); err != nil {
			t.Fatal(err)
		}
		saketest.AssertListChanged(t, la, sake.ListTools)
		saketest.AssertResourceUpdated(t, la, "mem://state")
		saketest.RefuteListChanged(t, la, sake.ListPrompts)
		saketest.RefuteListChanged(t, lb, sake.ListTools)
		saketest.RefuteResourceUpdated(t, lb, "")
		res, err := a.CallTool("grown", nil)
		if err != nil || res.Text() != "new" {
			t.Errorf("grown = %v, %v", res, err)
		}
	})
}

func TestAssertionsReportWhatWasRecorded(t *testing.T) {
	t.Parallel()
	c := saketest.Connect(t, reporter{})
	if _, err := c.CallTool("work", nil); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{TB: t}
	saketest.AssertNotification(rec, c, "notifications/progress", map[string]any{"progress": 99})
	if !strings.Contains(rec.msg, `"progress":3`) || !strings.Contains(rec.msg, "notifications/progress") {
		t.Errorf("failure message does not show what was recorded:\n%s", rec.msg)
	}
	if !saketest.Match(map[string]any{"a": []any{1, map[string]any{"b": "c"}}}, json.RawMessage(`{"a":[1,{"b":"c","d":2}],"e":3}`)) {
		t.Error("partial match failed")
	}
	if saketest.Match(map[string]any{"a": []any{1}}, json.RawMessage(`{"a":[1,2]}`)) {
		t.Error("arrays of different lengths matched")
	}
}

type recorder struct {
	testing.TB
	msg string
}

func (r *recorder) Errorf(format string, args ...any) { r.msg = fmt.Sprintf(format, args...) }
func (r *recorder) Helper()                           {}

type waiter struct {
	started chan struct{}
	stopped chan error
}

func (w *waiter) Wait(ctx *sake.Context) (string, error) {
	close(w.started)
	<-ctx.Done()
	w.stopped <- ctx.Err()
	return "too late", nil
}

func TestCancellationReachesTheTool(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, era saketest.Option) {
		w := &waiter{started: make(chan struct{}), stopped: make(chan error, 1)}
		c := saketest.Connect(t, w, era)
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			<-w.started
			cancel()
		}()
		res, err := c.WithContext(ctx).CallTool("wait", nil)
		if !errors.Is(err, context.Canceled) || res != nil {
			t.Fatalf("cancelled call = %v, %v; want the late result dropped", res, err)
		}
		if err := <-w.stopped; !errors.Is(err, context.Canceled) {
			t.Errorf("the tool saw %v", err)
		}
		// The client goes on working after a cancelled call.
		if err := c.Ping(); err != nil {
			t.Error(err)
		}
	})
}

func TestOnNotification(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, era saketest.Option) {
		var got []string
		c := saketest.Connect(t, reporter{}, era, saketest.OnNotification(func(n protocol.Notification) {
			got = append(got, n.Method)
		}))
		if _, err := c.CallTool("work", nil); err != nil {
			t.Fatal(err)
		}
		if len(got) != 3 || got[0] != "notifications/progress" {
			t.Errorf("seen %v", got)
		}
	})
}
