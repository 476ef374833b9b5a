package proxy_test

import (
	"context"
	"errors"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/proxy"
	"github.com/sakemcp/sake-go/sake/saketest"
	"github.com/sakemcp/sake-go/sake/tasks"
)

// A remote mount is a mount of the proxy's server: the remote's
// components are the parent's, under the namespace, with the proxy's
// requirements, and the remote's tasks are the parent's, owned by their
// caller.
func TestRemoteMount(t *testing.T) {
	t.Parallel()
	for _, remoteEra := range eras {
		t.Run("remote "+remoteEra.Name, func(t *testing.T) {
			t.Parallel()
			remoteSrv, k := newKitServer(t)
			remote := connect(t, transports[1], remoteSrv, append(remoteEra.Opts, client.ForwardQuestions())...)
			ctx, cancel := context.WithCancel(context.Background())
			t.Cleanup(cancel)
			kitSrv, err := proxy.New(ctx, remote, proxy.ServerOptions(sake.Name("kit", "1.0.0"), sake.RequireScopes("kit")))
			if err != nil {
				t.Fatal(err)
			}
			m := tasks.New()
			t.Cleanup(func() { _ = m.Shutdown(context.Background()) })
			parent := sake.MustNew(nil, sake.Name("parent", "1.0.0"), sake.Tasks(m))
			if err := parent.Mount("kit", kitSrv); err != nil {
				t.Fatal(err)
			}
			released := false
			saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
				ann := saketest.Connect(t, parent, append(opts, saketest.Scopes("kit"), saketest.Subject("ann"))...)
				if res, err := ann.CallTool("kit_echo", map[string]string{"text": "through"}); err != nil || res.Text() != "through" {
					t.Fatalf("kit_echo = %v, %v", res, err)
				}
				contents, err := ann.ReadResource("kit+kit://items/3")
				if err != nil || len(contents) != 1 || contents[0].URI != "kit+kit://items/3" {
					t.Fatalf("item = %+v, %v", contents, err)
				}
				if contents, err := ann.ReadResource("kit+kit://readme"); err != nil || contents[0].Text != "read me" {
					t.Fatalf("readme = %+v, %v", contents, err)
				}
				var scopeErr *protocol.InsufficientScopeError
				outsider := saketest.Connect(t, parent, append(opts, saketest.Scopes("other"))...)
				if _, err := outsider.CallTool("kit_echo", map[string]string{"text": "x"}); !errors.As(err, &scopeErr) {
					t.Fatalf("kit_echo without the proxy's scope = %v", err)
				}
				if remoteEra.Want != sake.EraModern || len(opts) > 0 {
					return // the remote's tasks: one era of callers is enough
				}
				_, task, err := ann.CallToolAsync("kit_job", nil)
				if err != nil || task == nil {
					t.Fatalf("kit_job = %v, %v", task, err)
				}
				bob := saketest.Connect(t, parent, append(opts, saketest.Scopes("kit"), saketest.Subject("bob"))...)
				if _, err := bob.GetTask(task.ID); err == nil {
					t.Fatal("another caller read the task")
				}
				if !released {
					released = true
					close(k.Release)
				}
				if res, err := ann.TaskResult(task.ID); err != nil || res.Text() != "job done" {
					t.Fatalf("kit_job's result = %v, %v", res, err)
				}
			})
		})
	}
}
