package sake

import "context"

// panicKey carries the function ContextWithPanicHandler gave a context.
type panicKey struct{}

// ContextWithPanicHandler returns a copy of ctx that carries fn: when user
// code panics while handling a request made with that context (or a task
// such a request starts), the server calls fn with the recovered value and
// the stack, besides logging it and calling Hooks.Panic and
// Inbound.OnPanic. It serves an in-process client that reaches the server
// through a host's HTTP stack (sake/saketest's Handler) and wants the
// panics its calls cause: a transport that hands the request's context on
// delivers it, as sake/plug does; a context does not cross a network.
func ContextWithPanicHandler(ctx context.Context, fn func(recovered any, stack []byte)) context.Context {
	return context.WithValue(ctx, panicKey{}, fn)
}

// panicHandler returns the function ContextWithPanicHandler gave ctx, or
// nil.
func panicHandler(ctx context.Context) func(any, []byte) {
	if ctx == nil {
		return nil
	}
	fn, _ := ctx.Value(panicKey{}).(func(any, []byte))
	return fn
}
