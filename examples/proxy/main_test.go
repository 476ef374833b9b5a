package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/auth"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/plug"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/stdio"
	"github.com/sakemcp/sake-go/sake/tasks"
)

// upstream is the server behind the proxy in these tests.
type upstream struct {
	jobs    chan string // the task id of every Job that starts
	stopped chan error  // a Job's context ended before it was released
	release chan struct{}
}

func newUpstream() *upstream {
	return &upstream{jobs: make(chan string, 8), stopped: make(chan error, 8), release: make(chan struct{}, 8)}
}

func (u *upstream) Declare(d *sake.Declarations) {
	d.Tool("Echo").Description("Echoes the text.")
	d.Tool("Draft").Description("Asks the model for a draft.")
	d.Tool("Chatty").Description("Logs at two levels.")
	d.Tool("Job").Description("Runs as a task until released.").Task(sake.TaskRequired)
	d.Tool("Confirm").Description("A task that asks the user.").Task(sake.TaskRequired)
}

func (u *upstream) Job(ctx *sake.Context) (string, error) {
	u.jobs <- ctx.TaskID()
	select {
	case <-u.release:
		return "job done", nil
	case <-ctx.Done():
		u.stopped <- ctx.Err()
		return "", ctx.Err()
	}
}

type confirmForm struct {
	OK bool `json:"ok"`
}

func (u *upstream) Confirm(ctx *sake.Context) (string, error) {
	var f confirmForm
	action, err := ctx.Elicit("confirm", "Go on?", &f)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s %v", action, f.OK), nil
}

type echoArgs struct {
	Text string `json:"text"`
}

func (u *upstream) Echo(_ *sake.Context, a echoArgs) (string, error) { return a.Text, nil }

func (u *upstream) Draft(ctx *sake.Context) (string, error) {
	res, err := ctx.Sample("draft", sake.SamplingRequest{MaxTokens: 10,
		Messages: []sake.SamplingMessage{{Role: sake.RoleUser, Content: sake.Text("Write a draft.")}}})
	if err != nil {
		return "", err
	}
	return "draft: " + res.Text(), nil
}

func (u *upstream) Chatty(ctx *sake.Context) (string, error) {
	ctx.Log(sake.LevelDebug, "chatty", "a detail")
	ctx.Log(sake.LevelWarning, "chatty", "a warning")
	return "said it", nil
}

// tokens is a Verifier for fixed bearer tokens.
type tokens map[string]*sake.Identity

func (t tokens) Verify(_ context.Context, r *auth.TokenRequest) (*sake.Identity, error) {
	if id, ok := t[r.Token]; ok {
		return id, nil
	}
	return nil, auth.InvalidToken(errors.New("unknown token"))
}

var callers = tokens{
	"alice-secret-token": {Subject: "alice", ClientID: "app", FromToken: true},
	"bob-secret-token":   {Subject: "bob", ClientID: "app", FromToken: true},
}

// recorder keeps every byte written through it.
type recorder struct {
	w  io.Writer
	mu sync.Mutex
	b  bytes.Buffer
}

func (r *recorder) Write(p []byte) (int, error) {
	r.mu.Lock()
	r.b.Write(p)
	r.mu.Unlock()
	return r.w.Write(p)
}

func (r *recorder) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.b.String()
}

// fixture is the proxy, in process, in front of an upstream server.
type fixture struct {
	up   *upstream
	url  string
	sent func() string // every byte the proxy sent upstream
}

var quiet = slog.New(slog.DiscardHandler)

// startStdio runs the upstream over a pair of pipes, as the proxy's
// command would, and the proxy in front of it over HTTP.
func startStdio(t *testing.T) *fixture {
	t.Helper()
	up := newUpstream()
	srv, err := sake.New(up, sake.Tasks(tasks.New()), sake.Skills(skillFiles))
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- stdio.Serve(context.Background(), srv, inR, outW, stdio.Logger(quiet))
		outW.Close()
	}()
	rec := &recorder{w: inW}
	remote, err := client.Connect(t.Context(), client.Stream(outR, writeCloser{rec, inW}), client.ForwardQuestions())
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{up: up, sent: rec.String}
	f.url = serveProxy(t, remote)
	t.Cleanup(func() {
		remote.Close()
		if err := <-served; err != nil {
			t.Errorf("upstream: %v", err)
		}
	})
	return f
}

type writeCloser struct {
	io.Writer
	io.Closer
}

// serveProxy serves the proxy of remote over HTTP with the callers'
// tokens checked.
func serveProxy(t *testing.T, remote *client.Client) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ts := httptest.NewUnstartedServer(nil)
	resource := "http://" + ts.Listener.Addr().String() + "/mcp"
	h, closeProxy, err := newProxy(ctx, remote, config{verifier: callers, resource: resource, issuer: "https://as.example.com", logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	ts.Config.Handler = h
	ts.Start()
	t.Cleanup(func() { closeProxy(); ts.Close(); cancel() })
	return resource
}

var eras = []struct {
	name string
	opts []client.Option
}{
	{"2026-07-28", []client.Option{client.ProtocolVersion(protocol.ModernVersion)}},
	{"2025-11-25", []client.Option{client.ProtocolVersion("2025-11-25")}},
}

func connect(t *testing.T, url, token string, opts ...client.Option) *client.Client {
	t.Helper()
	c, err := client.Connect(t.Context(), client.HTTP(url, nil, client.BearerToken(token)), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestForwarding(t *testing.T) {
	f := startStdio(t)
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			c := connect(t, f.url, "alice-secret-token", era.opts...)
			res, err := c.CallTool(t.Context(), "echo", map[string]string{"text": "through the proxy"})
			if err != nil || res.Text() != "through the proxy" {
				t.Fatalf("echo = %v, %v", res, err)
			}
			if _, err := c.CallTool(t.Context(), "nope", nil); err == nil {
				t.Error("an unknown tool answered")
			}
		})
	}
	if strings.Contains(f.sent(), "secret-token") {
		t.Error("a caller's token reached the upstream server")
	}
}

func TestUnauthorizedCaller(t *testing.T) {
	f := startStdio(t)
	_, err := client.Connect(t.Context(), client.HTTP(f.url, nil, client.BearerToken("forged")), client.ProtocolVersion(protocol.ModernVersion))
	var he *client.HTTPError
	if !errors.As(err, &he) || he.Status != http.StatusUnauthorized {
		t.Fatalf("a forged token: %v", err)
	}
}

func TestCapabilitiesPassThrough(t *testing.T) {
	f := startStdio(t)
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			// A caller without sampling: the upstream request declares none
			// either, and the upstream server's refusal reaches the caller.
			c := connect(t, f.url, "alice-secret-token", era.opts...)
			_, err := c.CallTool(t.Context(), "draft", nil)
			var e *sake.Error
			if !errors.As(err, &e) || e.Code != sake.CodeMissingRequiredClientCapability {
				t.Fatalf("draft without sampling = %v, want code %d", err, sake.CodeMissingRequiredClientCapability)
			}
			if data, _ := json.Marshal(e.Data); !strings.Contains(string(data), `"sampling"`) {
				t.Errorf("error data = %s, want the sampling capability named", data)
			}
			// A caller with sampling is asked, and its answer goes back up.
			c = connect(t, f.url, "alice-secret-token", append(era.opts, client.OnSample(func(context.Context, *sake.SamplingRequest) (*sake.SamplingResult, error) {
				return &sake.SamplingResult{Role: sake.RoleAssistant, Content: sake.Text("hello"), Model: "m"}, nil
			}))...)
			res, err := c.CallTool(t.Context(), "draft", nil)
			if err != nil || res.Text() != "draft: hello" {
				t.Fatalf("draft with sampling = %v, %v", res, err)
			}
		})
	}
}

func TestLogsReachTheirCaller(t *testing.T) {
	f := startStdio(t)
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			for _, tc := range []struct {
				level sake.LogLevel
				want  string
			}{
				{"", ""},
				{sake.LevelWarning, "a warning"},
				{sake.LevelDebug, "a detail|a warning"},
			} {
				var mu sync.Mutex
				var got []string
				opts := append([]client.Option{}, era.opts...)
				opts = append(opts, client.OnNotification(func(n protocol.Notification) {
					if n.Method != "notifications/message" {
						return
					}
					var m struct {
						Data string `json:"data"`
					}
					_ = json.Unmarshal(n.Params, &m)
					mu.Lock()
					got = append(got, m.Data)
					mu.Unlock()
				}))
				if tc.level != "" {
					opts = append(opts, client.LogLevel(tc.level))
				}
				c := connect(t, f.url, "alice-secret-token", opts...)
				if res, err := c.CallTool(t.Context(), "chatty", nil); err != nil || res.Text() != "said it" {
					t.Fatalf("chatty = %v, %v", res, err)
				}
				mu.Lock()
				if s := strings.Join(got, "|"); s != tc.want {
					t.Errorf("level %q: log messages %q, want %q", tc.level, s, tc.want)
				}
				mu.Unlock()
			}
		})
	}
}

// TestTokenStaysWithTheProxy puts the proxy in front of an HTTP upstream
// and checks every request the upstream received carried the proxy's own
// credential.
func TestTokenStaysWithTheProxy(t *testing.T) {
	srv, err := sake.New(newUpstream())
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	seen := map[string]int{}
	ph := plug.New(srv)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.Header.Get("Authorization")]++
		mu.Unlock()
		ph.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { ph.Close(); up.Close() })
	remote, err := client.Connect(t.Context(), client.HTTP(up.URL, nil, client.BearerToken("proxy-own-credential")), client.ForwardQuestions())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { remote.Close() })
	url := serveProxy(t, remote)
	for _, era := range eras {
		c := connect(t, url, "alice-secret-token", era.opts...)
		if res, err := c.CallTool(t.Context(), "echo", map[string]string{"text": "x"}); err != nil || res.Text() != "x" {
			t.Fatalf("%s: echo = %v, %v", era.name, res, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 1 || seen["Bearer proxy-own-credential"] == 0 {
		t.Errorf("the upstream saw Authorization headers %v, want only the proxy's own", seen)
	}
}

func isCode(err error, code int) bool {
	var e *sake.Error
	return errors.As(err, &e) && e.Code == code
}

// TestTasks: a remote task becomes a task of the proxy's, owned by its
// caller; another caller can neither see, answer nor cancel it, and its
// owner's cancellation reaches the remote task.
func TestTasks(t *testing.T) {
	f := startStdio(t)
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			alice := connect(t, f.url, "alice-secret-token", era.opts...)
			bob := connect(t, f.url, "bob-secret-token", era.opts...)

			task := startJob(t, alice)
			if up := <-f.up.jobs; up == task.ID {
				t.Errorf("the caller sees the upstream task id %s", up)
			}
			if _, err := bob.GetTask(t.Context(), task.ID); !isCode(err, sake.CodeInvalidParams) {
				t.Errorf("another subject's tasks/get = %v, want %d", err, sake.CodeInvalidParams)
			}
			if err := bob.CancelTask(t.Context(), task.ID); !isCode(err, sake.CodeInvalidParams) {
				t.Errorf("another subject's tasks/cancel = %v, want %d", err, sake.CodeInvalidParams)
			}
			if era.name == protocol.ModernVersion {
				if err := bob.UpdateTask(t.Context(), task.ID, map[string]any{}); !isCode(err, sake.CodeInvalidParams) {
					t.Errorf("another subject's tasks/update = %v, want %d", err, sake.CodeInvalidParams)
				}
			}
			got, err := alice.GetTask(t.Context(), task.ID)
			if err != nil || got.Status != sake.TaskWorking {
				t.Fatalf("the owner's tasks/get = %+v, %v", got, err)
			}
			if err := alice.CancelTask(t.Context(), task.ID); err != nil {
				t.Fatalf("the owner's tasks/cancel: %v", err)
			}
			if err := <-f.up.stopped; err == nil {
				t.Error("the upstream task did not stop")
			}
			if got, err := alice.GetTask(t.Context(), task.ID); err != nil || got.Status != sake.TaskCancelled {
				t.Errorf("after cancel: %+v, %v", got, err)
			}

			// A task that runs to its end.
			task = startJob(t, alice)
			<-f.up.jobs
			f.up.release <- struct{}{}
			got, err = alice.AwaitTask(t.Context(), task.ID)
			if err != nil || got.Status != sake.TaskCompleted || got.Result == nil || got.Result.Text() != "job done" {
				t.Fatalf("awaited = %+v, %v", got, err)
			}
		})
	}
}

// startJob starts the job tool as a task. A caller of the handshake era
// asks for the task itself (params.task): the proxy does not list its
// tools as task tools in that era, since the remote server does not say
// which of its tools answer with a task.
func startJob(t *testing.T, c *client.Client) *client.Task {
	t.Helper()
	if c.Era() == sake.EraLegacy {
		raw, err := c.Request(t.Context(), "tools/call", map[string]any{"name": "job", "task": map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		var r struct {
			Task struct {
				TaskID string `json:"taskId"`
			} `json:"task"`
		}
		if err := json.Unmarshal(raw, &r); err != nil || r.Task.TaskID == "" {
			t.Fatalf("job = %s, %v; want a task", raw, err)
		}
		return &client.Task{ID: r.Task.TaskID}
	}
	_, task, err := c.StartTool(t.Context(), "job", nil)
	if err != nil || task == nil {
		t.Fatalf("job = %v, %v; want a task", task, err)
	}
	return task
}

// TestTaskQuestions: the remote task's question reaches the task's owner,
// whose answer goes back to the remote task.
func TestTaskQuestions(t *testing.T) {
	f := startStdio(t)
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			var asked []string
			var mu sync.Mutex
			alice := connect(t, f.url, "alice-secret-token", append(era.opts, client.OnElicit(func(_ context.Context, r *protocol.ElicitRequest) (*protocol.ElicitResult, error) {
				mu.Lock()
				asked = append(asked, r.Message)
				mu.Unlock()
				return client.Accept(map[string]any{"ok": true}), nil
			}))...)
			res, err := alice.CallTool(t.Context(), "confirm", nil)
			if err != nil || res.Text() != "accept true" {
				t.Fatalf("confirm = %v, %v", res, err)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(asked) != 1 || asked[0] != "Go on?" {
				t.Errorf("asked %q", asked)
			}
		})
	}
}

var skillFiles = fstest.MapFS{
	"greeting/SKILL.md":        {Data: []byte("---\nname: greeting\ndescription: Greets people.\n---\nSay hello.\n")},
	"greeting/scripts/wave.sh": {Data: []byte("echo wave\n")},
}

// TestSkills: the remote server's skills are served by the proxy, files
// included.
func TestSkills(t *testing.T) {
	f := startStdio(t)
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			c := connect(t, f.url, "alice-secret-token", era.opts...)
			if !c.Info().HasExtension(protocol.SkillsExtension) {
				t.Fatalf("the proxy does not declare %s: %s", protocol.SkillsExtension, c.Info().Capabilities)
			}
			raw, err := c.Request(t.Context(), "skills/list", nil)
			if err != nil {
				t.Fatal(err)
			}
			var l struct {
				Skills []protocol.SkillInfo `json:"skills"`
			}
			if err := json.Unmarshal(raw, &l); err != nil || len(l.Skills) != 1 || l.Skills[0].URI != "skill://greeting/SKILL.md" || len(l.Skills[0].Resources) != 2 {
				t.Fatalf("skills/list = %s, %v", raw, err)
			}
			contents, err := c.ReadResource(t.Context(), "skill://greeting/scripts/wave.sh")
			if err != nil || len(contents) != 1 || contents[0].Text != "echo wave\n" {
				t.Fatalf("read = %+v, %v", contents, err)
			}
			if _, err := c.Request(t.Context(), "skills/get", map[string]string{"uri": "skill://nope/SKILL.md"}); !isCode(err, sake.CodeInvalidParams) {
				t.Errorf("an unknown skill = %v, want %d", err, sake.CodeInvalidParams)
			}
		})
	}
}
