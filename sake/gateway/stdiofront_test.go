package gateway_test

import (
	"context"
	"fmt"
	"io"
	"sync"
	"testing"

	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/stdio"
)

// A gateway served over stdio forwards its calls to a stdio child without
// a goroutine waiting for each: many calls from one caller at once, in
// both eras, are all answered, and each counts once for its entry.
func TestGatewayOverStdioForwardsToItsStdioChild(t *testing.T) {
	g := startGateway(t, fmt.Sprintf(`{"mcpServers": {"qs": %s}}`, stdioEntry()))
	for _, e := range []struct {
		name string
		opts []client.Option
	}{{"negotiated", nil}, {"2025-11-25", []client.Option{client.ProtocolVersion("2025-11-25")}}} {
		t.Run(e.name, func(t *testing.T) {
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			served := make(chan error, 1)
			go func() {
				served <- stdio.Serve(context.Background(), g.Server(), inR, outW)
				outW.Close()
			}()
			c, err := client.Connect(t.Context(), client.Stream(outR, inW), e.opts...)
			if err != nil {
				t.Fatal(err)
			}
			before := g.Status()[0].Calls
			const n = 64
			var wg sync.WaitGroup
			errs := make(chan error, n)
			for range n {
				wg.Go(func() {
					res, err := c.CallTool(t.Context(), "qs_greet", nil)
					if err == nil && res.Text() != "hello from stdio" {
						err = fmt.Errorf("qs_greet = %q", res.Text())
					}
					errs <- err
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Fatal(err)
				}
			}
			if got := g.Status()[0].Calls - before; got != n {
				t.Errorf("the entry counted %d calls, want %d", got, n)
			}
			c.Close()
			inW.Close()
			if err := <-served; err != nil {
				t.Fatalf("Serve: %v", err)
			}
		})
	}
}
