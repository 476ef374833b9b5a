package sake_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/tasks"
	"github.com/sakemcp/sake-go/sake/transport"
)

type slowTask struct{ release chan struct{} }

func (s *slowTask) Declare(d *sake.Declarations) { d.Tool("Work").Task(sake.TaskRequired) }

func (s *slowTask) Work(ctx *sake.Context) (string, error) {
	select {
	case <-s.release:
		return "worked", nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

const taskMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`

func TestListenForTaskNotifications(t *testing.T) {
	t.Parallel()
	m := tasks.New()
	t.Cleanup(func() { _ = m.Shutdown(context.Background()) })
	work := &slowTask{release: make(chan struct{})}
	s := sake.MustNew(work, sake.Tasks(m))
	r := s.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"work",`+taskMeta+`}}`), nil)
	var created struct {
		Result struct {
			ResultType string `json:"resultType"`
			TaskID     string `json:"taskId"`
		} `json:"result"`
	}
	if err := json.Unmarshal(r.Body, &created); err != nil || created.Result.ResultType != "task" {
		t.Fatalf("create: %s", r.Body)
	}
	msgs := make(chan string, 8)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.Handle(ctx, []byte(`{"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{"notifications":{"taskIds":["`+created.Result.TaskID+`"]},`+taskMeta+`}}`),
			&sake.Inbound{Stream: transport.StreamFunc(func(m []byte) { msgs <- string(m) })})
	}()
	if ack := <-msgs; !strings.Contains(ack, `"taskIds":["`+created.Result.TaskID+`"]`) {
		t.Fatalf("ack = %s", ack)
	}
	close(work.release)
	for {
		m := <-msgs
		if !strings.Contains(m, `"method":"notifications/tasks"`) || !strings.Contains(m, `subscriptionId":"L"`) {
			t.Fatalf("notification = %s", m)
		}
		if strings.Contains(m, `"status":"completed"`) {
			if !strings.Contains(m, `"text":"worked"`) {
				t.Errorf("the final notification lacks the result: %s", m)
			}
			break
		}
	}
	cancel()
	<-done

	// Without the extension, asking for task notifications is refused.
	r = s.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":2,"method":"subscriptions/listen","params":{"notifications":{"taskIds":["x"]},`+modernMeta+`}}`),
		&sake.Inbound{Stream: transport.StreamFunc(func([]byte) {})})
	if r.ErrorCode != sake.CodeMissingRequiredClientCapability {
		t.Errorf("taskIds without the extension: %s", r.Body)
	}
}
