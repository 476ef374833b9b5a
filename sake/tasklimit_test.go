package sake_test

import (
	"context"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/tasks"
)

// One subject holding its task limit does not stop another: alice's next
// call is refused with a busy error saying what to do, bob's runs.
func TestTaskLimitPerOwner(t *testing.T) {
	t.Parallel()
	m := tasks.New(tasks.MaxRunningPerOwner(2))
	work := &slowTask{release: make(chan struct{})}
	t.Cleanup(func() { close(work.release); _ = m.Shutdown(context.Background()) })
	s := sake.MustNew(work, sake.Tasks(m))
	call := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"work",` + taskMeta + `}}`)
	alice := &sake.Inbound{Identity: &sake.Identity{Subject: "alice"}, Transport: "memory"}
	bob := &sake.Inbound{Identity: &sake.Identity{Subject: "bob"}, Transport: "memory"}
	for range 2 {
		if r := s.Handle(context.Background(), call, alice); r.ErrorCode != 0 || !strings.Contains(string(r.Body), `"resultType":"task"`) {
			t.Fatalf("alice's task: %s", r.Body)
		}
	}
	r := s.Handle(context.Background(), call, alice)
	if r.ErrorCode != sake.CodeServerBusy || !strings.Contains(string(r.Body), "cancel one") || !strings.Contains(string(r.Body), `"tasks_per_owner"`) {
		t.Fatalf("alice over her limit: %s", r.Body)
	}
	if r := s.Handle(context.Background(), call, bob); r.ErrorCode != 0 {
		t.Fatalf("bob while alice is at her limit: %s", r.Body)
	}
}
