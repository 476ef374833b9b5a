package interop

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/sakemcp/sake-go/sake/client"
)

func init() {
	everythingChecks = append(everythingChecks,
		everythingCheck{"concurrent", func(t *testing.T, ctx context.Context, c *client.Client, _ everythingEnv, _ *notes) {
			concurrent(t, ctx, c, func(i int) (string, any, string) {
				return "echo", map[string]any{"message": fmt.Sprint("m", i)}, fmt.Sprint("Echo: m", i)
			})
		}},
		everythingCheck{"large", func(t *testing.T, ctx context.Context, c *client.Client, env everythingEnv, _ *notes) {
			big := strings.Repeat("sake ", 200_000) // 1 MB each way
			wantText(t, ctx, c, "echo", map[string]any{"message": big}, "Echo: "+big)
			// A client that reads at most 64 KiB refuses the answer and
			// says which limit to raise.
			small := env.connect(t, client.MaxMessageBytes(64<<10))
			_, err := small.CallTool(ctx, "echo", map[string]any{"message": big})
			if err == nil || !strings.Contains(err.Error(), "exceeds 65536 bytes (raise MaxMessageBytes)") {
				t.Fatalf("a 1 MB answer to a client bounded at 64 KiB: %v", err)
			}
		}},
	)
	gosdkChecks = append(gosdkChecks,
		gosdkCheck{name: "concurrent", run: func(t *testing.T, ctx context.Context, c *client.Client, _ interopEnv, _ *notes) {
			concurrent(t, ctx, c, func(i int) (string, any, string) {
				return "test_x_mcp_header", map[string]any{"region": fmt.Sprint("r", i)}, fmt.Sprint("region=r", i)
			})
		}},
		gosdkCheck{name: "large", run: func(t *testing.T, ctx context.Context, c *client.Client, env interopEnv, _ *notes) {
			// The tool answers with the arguments it got, as JSON.
			big := strings.Repeat("sake ", 200_000)
			res, err := c.CallTool(ctx, "json_schema_2020_12_tool", map[string]any{"name": big, "email": "a@b.c"})
			if err != nil {
				t.Fatal(err)
			}
			if text := res.Text(); len(text) < len(big) || !strings.Contains(text, `"name":"`+big+`"`) {
				t.Fatalf("answer of %d bytes does not hold the 1 MB argument", len(text))
			}
		}},
	)
}

// concurrent makes 32 calls at once on one client; each must get its own
// answer.
func concurrent(t *testing.T, ctx context.Context, c *client.Client, call func(i int) (tool string, args any, want string)) {
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for i := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tool, args, want := call(i)
			res, err := c.CallTool(ctx, tool, args)
			switch {
			case err != nil:
				errs <- fmt.Errorf("call %d: %w", i, err)
			case res.Text() != want:
				errs <- fmt.Errorf("call %d = %q, want %q", i, res.Text(), want)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
