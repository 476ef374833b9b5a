package pgstore_test

import (
	"context"
	"encoding/json"
	"net/url"
	"sync/atomic"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/backend"
	"github.com/sakemcp/sake-go/sake/internal/pgtest"
	"github.com/sakemcp/sake-go/sake/tasks"
	"github.com/sakemcp/sake-go/sake/tasks/pgstore"
)

// An answer given on one replica is seen on another as soon as it is
// accepted, however late that replica hears of it: here B's listener is
// held (on an unrelated notice) until A's answer has begun waiting for B,
// so an answer accepted on its own echo alone is caught every time. B
// then shows the task still awaiting only the key left. The two replicas
// listen on connections of their own (127.0.0.1 and localhost), as
// separate processes do.
func TestAnswerIsSeenOnAnotherReplicaOnceAccepted(t *testing.T) {
	t.Parallel()
	base, schema, _ := pgtest.Schema(t)
	ctx := context.Background()
	var gate atomic.Pointer[chan struct{}]
	holding := make(chan struct{}, 1)
	awaiting := make(chan struct{}, 1)
	var ms []*tasks.Manager
	for i, host := range []string{"127.0.0.1", "localhost"} {
		u, err := url.Parse(base)
		if err != nil {
			t.Fatal(err)
		}
		u.Host = host + ":" + u.Port()
		s, err := pgstore.New(ctx, pgtest.Pool(t, u.String(), schema), string(rune('A'+i)))
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			pgstore.OnTakenAwaiting(s, func() { awaiting <- struct{}{} })
		} else {
			pgstore.OnHeard(s, func(_, kind string) {
				if g := gate.Swap(nil); g != nil {
					holding <- struct{}{}
					<-*g
				}
			})
		}
		m := tasks.New(tasks.WithStore(s))
		t.Cleanup(func() {
			// A task a failed check left waiting is failed at once.
			sctx, cancel := context.WithCancel(ctx)
			cancel()
			_ = m.Shutdown(sctx)
		})
		ms = append(ms, m)
	}
	a, b := ms[0], ms[1]
	const owner = "sub:alice"
	questions := map[string]json.RawMessage{
		"first":  json.RawMessage(`{"method":"elicitation/create"}`),
		"second": json.RawMessage(`{"method":"elicitation/create"}`),
	}
	for i := range 20 {
		task, ctl, err := a.Create(ctx, owner, backend.TaskOptions{Tool: "deploy"})
		if err != nil {
			t.Fatal(err)
		}
		worked := make(chan error, 1)
		go func() {
			_, err := ctl.NeedInput(questions)
			ctl.Complete(json.RawMessage(`{"content":[]}`), false)
			worked <- err
		}()
		if _, err := b.Wait(ctx, owner, task.ID, func(t *backend.Task) bool { return t.Status == sake.TaskInputRequired }); err != nil {
			t.Fatal(err)
		}
		// Hold B's listener on the next notice it hears: another task's.
		g := make(chan struct{})
		gate.Store(&g)
		_, other, err := a.Create(ctx, "sub:bob", backend.TaskOptions{Tool: "other"})
		if err != nil {
			close(g)
			t.Fatal(err)
		}
		<-holding
		answered := make(chan error, 1)
		go func() {
			answered <- a.Answer(ctx, owner, task.ID, map[string]json.RawMessage{"first": json.RawMessage(`{"action":"accept"}`)})
		}()
		select {
		case <-awaiting:
			close(g)
		case err := <-answered:
			close(g)
			t.Fatalf("task %d: the answer was accepted (%v) while B had not heard of it", i, err)
		}
		if err := <-answered; err != nil {
			t.Fatal(err)
		}
		got, err := b.Get(ctx, owner, task.ID)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := got.InputRequests["first"]; ok || got.Status != sake.TaskInputRequired || len(got.InputRequests) != 1 {
			t.Fatalf("task %d on B once the answer was accepted: %s awaiting %v; want input_required awaiting only second",
				i, got.Status, got.InputRequests)
		}
		if err := a.Answer(ctx, owner, task.ID, map[string]json.RawMessage{"second": json.RawMessage(`{"action":"accept"}`)}); err != nil {
			t.Fatal(err)
		}
		<-awaiting // B confirms this one at once
		if err := <-worked; err != nil {
			t.Fatal(err)
		}
		other.Complete(json.RawMessage(`{"content":[]}`), false)
	}
}
