package stdio_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"testing"
	"testing/synctest"

	"github.com/sakemcp/sake-go/sake/stdio"
)

// TestNoGoroutineLeft runs a connection in a synctest bubble, which fails
// the test if a goroutine of the bubble is still blocked when it ends:
// every goroutine Serve started must have returned.
func TestNoGoroutineLeft(t *testing.T) {
	for _, how := range []string{"eof", "cancel"} {
		t.Run(how, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				tl := newTools()
				srv := newServer(t, tl)
				inR, inW := io.Pipe()
				outR, outW := io.Pipe()
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				done := make(chan error, 1)
				go func() {
					done <- stdio.Serve(ctx, srv, inR, outW, stdio.Logger(quiet))
					outW.Close()
				}()
				lines := make(chan string, 16)
				go func() {
					defer close(lines)
					br := bufio.NewReader(outR)
					for {
						l, err := br.ReadString('\n')
						if err != nil {
							return
						}
						lines <- l
					}
				}()
				io.WriteString(inW, call(1, "wait", "", "")+"\n"+initialize+"\n"+initialized+"\n"+call(2, "echo", `{"text":"x"}`, "")+"\n")
				<-tl.started
				<-lines // initialize
				<-lines // echo
				if how == "eof" {
					inW.Close()
					synctest.Wait()
					select {
					case <-done:
						t.Fatal("Serve returned with a request running")
					default:
					}
					close(tl.block)
					<-lines // wait's response
					if err := <-done; err != nil {
						t.Errorf("Serve = %v", err)
					}
					return
				}
				cancel()
				<-tl.stopped
				// Serve waits for its pending read of the pipe...
				synctest.Wait()
				select {
				case <-done:
					t.Fatal("Serve returned with its reading goroutine blocked")
				default:
				}
				// ...which ends when the client closes its side.
				inW.Close()
				if err := <-done; !errors.Is(err, context.Canceled) {
					t.Errorf("Serve = %v", err)
				}
				if l, ok := <-lines; ok {
					t.Errorf("written after the cancellation: %s", l)
				}
			})
		})
	}
}
