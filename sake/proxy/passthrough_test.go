package proxy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/client/memory"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/proxy"
)

// relayed is a tool result as a remote server wrote it: an escape that
// encoding it again would write as the letter itself, and a member this
// library does not know.
const relayed = `{"content":[{"type":"text","text":"caf\u00e9"}],"x-extra":1,"isError":true}`

// TestProxyPassesResultsOnAsWritten: a remote tool's result reaches the
// proxy's caller as the remote wrote it, in both eras, and still reads
// as a result (a tool error here).
func TestProxyPassesResultsOnAsWritten(t *testing.T) {
	remoteSrv := sake.MustNew(nil)
	_ = remoteSrv.AddTool(sake.NewTool("relay", func(*sake.Context, json.RawMessage) (*sake.ToolResult, error) {
		return protocol.ToolResultFromWire([]byte(relayed))
	}))
	remote, err := client.Connect(t.Context(), memory.Transport(remoteSrv), client.ForwardQuestions())
	if err != nil {
		t.Fatal(err)
	}
	defer remote.Close()
	p, err := proxy.New(t.Context(), remote)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range eras {
		t.Run(e.Name, func(t *testing.T) {
			var mu sync.Mutex
			var got []byte
			tap := client.OnMessage(func(sent bool, msg []byte) {
				if !sent && bytes.Contains(msg, []byte(`"x-extra"`)) {
					mu.Lock()
					got = bytes.Clone(msg)
					mu.Unlock()
				}
			})
			c, err := client.Connect(t.Context(), memory.Transport(p), append(e.Opts, tap)...)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			res, err := c.CallTool(context.Background(), "relay", nil)
			var te *protocol.ToolError
			if !errors.As(err, &te) || res.Text() != "café" {
				t.Fatalf("%v, %v", res, err)
			}
			mu.Lock()
			defer mu.Unlock()
			if !bytes.Contains(got, []byte(`"text":"caf\u00e9"`)) || !bytes.Contains(got, []byte(`"x-extra":1`)) {
				t.Fatalf("the caller got %s", got)
			}
		})
	}
}
