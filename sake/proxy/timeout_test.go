package proxy_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/client/memory"
	"github.com/sakemcp/sake-go/sake/proxy"
)

// TestCallTimeoutEndsEveryCallPastIt: calls in flight past CallTimeout
// each end with the timeout's error, while the proxy's other calls are
// answered, and a call after them goes through.
func TestCallTimeoutEndsEveryCallPastIt(t *testing.T) {
	t.Parallel()
	srv := sake.MustNew(nil, sake.Name("remote", "1.0.0"))
	type echoArgs struct {
		Text string `json:"text"`
	}
	_ = srv.AddTool(sake.NewTool("echo", func(_ *sake.Context, a echoArgs) (string, error) { return a.Text, nil }))
	_ = srv.AddTool(sake.NewTool("hold", func(ctx *sake.Context) (string, error) {
		<-ctx.Done()
		return "", ctx.Err()
	}))
	remote, err := client.Connect(t.Context(), memory.Transport(srv), client.ForwardQuestions())
	if err != nil {
		t.Fatal(err)
	}
	defer remote.Close()
	proxySrv, err := proxy.New(t.Context(), remote, proxy.CallTimeout(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	local, err := client.Connect(t.Context(), memory.Transport(proxySrv))
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()

	const held = 6
	var wg sync.WaitGroup
	errs := make(chan error, held)
	for range held {
		wg.Go(func() {
			_, err := local.CallTool(t.Context(), "hold", nil)
			errs <- err
		})
	}
	if res, err := local.CallTool(t.Context(), "echo", map[string]string{"text": "beside"}); err != nil || res.Text() != "beside" {
		t.Errorf("a call beside the held ones = %v, %v", res, err)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err == nil || !strings.Contains(err.Error(), "did not answer within 50ms") {
			t.Errorf("a held call returned %v; want the timeout's error", err)
		}
	}
	if res, err := local.CallTool(t.Context(), "echo", map[string]string{"text": "after"}); err != nil || res.Text() != "after" {
		t.Errorf("a call after the timeouts = %v, %v", res, err)
	}
}
