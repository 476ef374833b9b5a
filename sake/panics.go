package sake

import (
	"context"

	"github.com/sakemcp/sake-go/sake/internal/bridge"
)

// panicHandler returns the function transport.WithPanicHandler gave ctx,
// or nil.
func panicHandler(ctx context.Context) func(any, []byte) {
	if ctx == nil {
		return nil
	}
	fn, _ := ctx.Value(bridge.PanicKey{}).(func(any, []byte))
	return fn
}
