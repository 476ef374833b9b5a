package stdio

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
)

type handoffTools struct{}

type handoffArgs struct {
	Text string `json:"text"`
}

// Echo yields a few times, so that the watchdog often finds it running.
func (handoffTools) Echo(_ context.Context, a handoffArgs) (string, error) {
	for range 3 {
		runtime.Gosched()
	}
	return a.Text, nil
}

// TestEveryRequestAnsweredAcrossHandoffs runs bursts of requests from
// several writers while the watchdog hands the reading on at almost every
// tick: each request is answered once, with its own text, whatever
// goroutine read it, ran it or flushed its answer.
func TestEveryRequestAnsweredAcrossHandoffs(t *testing.T) {
	saved := handoffAfter
	handoffAfter = time.Microsecond
	t.Cleanup(func() { handoffAfter = saved })

	for _, workers := range []int{1, 2, 64} {
		t.Run(fmt.Sprint("workers=", workers), func(t *testing.T) {
			srv, err := sake.New(handoffTools{}, sake.Logger(slog.New(slog.DiscardHandler)))
			if err != nil {
				t.Fatal(err)
			}
			const writers, each = 8, 150
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			done := make(chan error, 1)
			go func() {
				done <- Serve(context.Background(), srv, inR, outW, MaxConcurrent(workers), Logger(slog.New(slog.DiscardHandler)))
				outW.Close()
			}()
			// At most 64 requests in flight, well within sake.Limits.MaxInFlight.
			credit := make(chan struct{}, 64)
			for range cap(credit) {
				credit <- struct{}{}
			}
			var wmu sync.Mutex
			var wg sync.WaitGroup
			for w := range writers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range each {
						<-credit
						id := w*each + i
						line := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"t%d"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`+"\n", id, id)
						wmu.Lock()
						_, err := io.WriteString(inW, line)
						wmu.Unlock()
						if err != nil {
							t.Error(err)
							return
						}
					}
				}()
			}
			seen := make(map[int]bool)
			br := bufio.NewReader(outR)
			for len(seen) < writers*each {
				line, err := br.ReadBytes('\n')
				if err != nil {
					t.Fatalf("after %d answers: %v", len(seen), err)
				}
				var m struct {
					ID     int `json:"id"`
					Result struct {
						Content []struct {
							Text string `json:"text"`
						} `json:"content"`
					} `json:"result"`
				}
				if err := json.Unmarshal(line, &m); err != nil || len(m.Result.Content) != 1 {
					t.Fatalf("bad answer %s (%v)", line, err)
				}
				if want := fmt.Sprint("t", m.ID); m.Result.Content[0].Text != want || seen[m.ID] {
					t.Fatalf("answer %s: want %s once", strings.TrimSpace(string(line)), want)
				}
				seen[m.ID] = true
				credit <- struct{}{}
			}
			wg.Wait()
			inW.Close()
			if err := <-done; err != nil {
				t.Errorf("Serve: %v", err)
			}
			if rest, _ := io.ReadAll(br); len(rest) != 0 {
				t.Errorf("written after the last answer: %s", rest)
			}
		})
	}
}
