package sake

import "context"

// panicKey carries the function ContextWithPanicHandler gave a context.
type panicKey struct{}

// panicHandler returns the function ContextWithPanicHandler gave ctx, or
// nil.
func panicHandler(ctx context.Context) func(any, []byte) {
	if ctx == nil {
		return nil
	}
	fn, _ := ctx.Value(panicKey{}).(func(any, []byte))
	return fn
}
