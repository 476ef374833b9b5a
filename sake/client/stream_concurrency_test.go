package client_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/stdio"
)

// streamServer serves a server with an echo tool and a hold tool (which
// reports its start on started and returns once release is closed or its
// call ends) over a pair of pipes, and connects a client to it. closeOut
// ends the server's output, as a server that exits does.
func streamServer(t *testing.T) (c *client.Client, started chan struct{}, closeOut func()) {
	t.Helper()
	srv := sake.MustNew(nil, sake.Name("stream", "1.0.0"))
	type echoArgs struct {
		Text string `json:"text"`
	}
	started, release := make(chan struct{}, 256), make(chan struct{})
	_ = srv.AddTool(sake.NewTool("echo", func(_ *sake.Context, a echoArgs) (string, error) { return a.Text, nil }))
	_ = srv.AddTool(sake.NewTool("hold", func(ctx *sake.Context) (string, error) {
		started <- struct{}{}
		select {
		case <-release:
		case <-ctx.Done():
		}
		return "released", nil
	}))
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = stdio.Serve(ctx, srv, inR, outW)
	}()
	t.Cleanup(func() {
		close(release)
		cancel()
		_ = inR.Close()
		_ = outW.Close()
		<-served
	})
	c, err := client.Connect(t.Context(), client.Stream(outR, inW))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c, started, func() { _ = outW.CloseWithError(io.EOF) }
}

// TestStreamManyConcurrentCallers: calls made at once share the stdio
// connection's writes, and each caller gets its own answer.
func TestStreamManyConcurrentCallers(t *testing.T) {
	t.Parallel()
	c, _, _ := streamServer(t)
	const callers, calls = 32, 40
	var wg sync.WaitGroup
	errs := make(chan error, callers)
	for i := range callers {
		wg.Go(func() {
			for j := range calls {
				want := fmt.Sprintf("caller %d call %d", i, j)
				res, err := c.CallTool(t.Context(), "echo", map[string]string{"text": want})
				if err != nil {
					errs <- err
					return
				}
				if res.Text() != want {
					errs <- fmt.Errorf("caller %d got %q, want %q", i, res.Text(), want)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestStreamCallerCancelledAmongOthers: a caller that gives up gets its
// context's error at once, and the calls waiting beside it still get
// their answers.
func TestStreamCallerCancelledAmongOthers(t *testing.T) {
	t.Parallel()
	c, started, _ := streamServer(t)
	ctx, cancel := context.WithCancel(t.Context())
	gaveUp := make(chan error, 1)
	go func() {
		_, err := c.CallTool(ctx, "hold", nil)
		gaveUp <- err
	}()
	<-started
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Go(func() {
			want := fmt.Sprintf("beside %d", i)
			res, err := c.CallTool(t.Context(), "echo", map[string]string{"text": want})
			if err == nil && res.Text() != want {
				err = fmt.Errorf("got %q, want %q", res.Text(), want)
			}
			if err != nil {
				errs <- err
			}
		})
	}
	cancel()
	if err := <-gaveUp; !errors.Is(err, context.Canceled) {
		t.Errorf("the cancelled call returned %v; want context.Canceled", err)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if res, err := c.CallTool(t.Context(), "echo", map[string]string{"text": "after"}); err != nil || res.Text() != "after" {
		t.Errorf("a call after the cancelled one = %v, %v", res, err)
	}
}

// TestStreamEndWhileCallersWait: when the server's output ends while
// many calls wait for their answers, every one of them returns an error;
// none is left waiting.
func TestStreamEndWhileCallersWait(t *testing.T) {
	t.Parallel()
	c, started, closeOut := streamServer(t)
	const waiting = 16
	results := make(chan error, waiting)
	for range waiting {
		go func() {
			_, err := c.CallTool(t.Context(), "hold", nil)
			results <- err
		}()
	}
	for range waiting {
		<-started
	}
	closeOut()
	for range waiting {
		select {
		case err := <-results:
			if err == nil {
				t.Error("a call returned no error after the server's output ended")
			}
		case <-time.After(20 * time.Second):
			t.Fatal("a call still waits after the server's output ended")
		}
	}
	select {
	case <-c.Lost():
	default:
		t.Error("Lost is not closed after the server's output ended")
	}
}
