package client_test

import (
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// A tool called before the client listed the tools: the server refuses
// the call for want of its Mcp-Param-* headers (-32020), the client learns
// them and calls once more.
func TestHeadersOfAToolCalledBeforeListing(t *testing.T) {
	t.Parallel()
	_, rec, url := httpKit(t)
	c, err := client.Connect(t.Context(), client.HTTP(url, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := c.CallTool(t.Context(), "region", map[string]string{"region": "eu-west"})
	if err != nil || res.Text() != "region eu-west" {
		t.Fatalf("region = %v, %v", res, err)
	}
	headers := rec.Headers()
	last := headers[len(headers)-1]
	if last.Get("Mcp-Param-Region") != "eu-west" {
		t.Fatalf("headers of the call = %v", last)
	}
	// Tools without such arguments are called once.
	calls := rec.Count("POST")
	if _, err := c.CallTool(t.Context(), "echo", map[string]string{"text": "x"}); err != nil {
		t.Fatal(err)
	}
	if n := rec.Count("POST") - calls; n != 1 {
		t.Fatalf("%d requests for one call of echo", n)
	}
}

// An event longer than MaxMessageBytes fails the call with an error that
// names the option; the stream is not resumed, which would only send the
// same event again.
func TestOversizedEventIsNotResumed(t *testing.T) {
	t.Parallel()
	srv, err := sake.New(bigKit{})
	if err != nil {
		t.Fatal(err)
	}
	_, rec, url := httpKitFor(t, srv)
	c, err := client.Connect(t.Context(), client.HTTP(url, nil), client.ProtocolVersion(protocol.LegacyVersion), client.MaxMessageBytes(4<<10))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := client.WithProgress(t.Context(), func(client.Progress) {})
	_, err = c.CallTool(ctx, "big", nil)
	if err == nil || !strings.Contains(err.Error(), "an event of the server's stream exceeds 4096 bytes (raise MaxMessageBytes)") {
		t.Fatalf("err = %v", err)
	}
	for _, h := range rec.Headers() {
		if h.Get("Last-Event-ID") != "" {
			t.Fatalf("the client resumed the stream: %v", h)
		}
	}
}

// bigKit's tool streams (a progress notification) and then answers with
// 16 KiB.
type bigKit struct{}

func (bigKit) Big(ctx *sake.Context) (string, error) {
	ctx.Progress(1, 2, "half")
	return strings.Repeat("x", 16<<10), nil
}
