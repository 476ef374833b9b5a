package middleware

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"

	"github.com/sakemcp/sake-go/sake"
)

// MaskErrors returns middleware that keeps the text of errors from tool
// code away from clients: a tool result made from an error the tool
// returned (sake.ToolResult.Cause), other than a *sake.ToolError, becomes
// "Tool X failed. …" with a reference, and the error itself is logged to
// logger (slog.Default() when nil) with the same reference. Results the
// tool built itself, invalid-argument results and *sake.Error protocol
// errors pass unchanged; panics are masked by the server already. The
// final result of a call that runs as a task is masked the same way
// before it is stored (sake.WithTaskResult), so tasks/get and
// tasks/result never carry the error's text either.
func MaskErrors(logger *slog.Logger) sake.Middleware {
	if logger == nil {
		logger = slog.Default()
	}
	mask := func(ctx context.Context, req *sake.Request, r *sake.ToolResult) *sake.ToolResult {
		if r == nil || r.Cause() == nil {
			return r
		}
		var te *sake.ToolError
		if errors.As(r.Cause(), &te) {
			return r
		}
		ref := reference()
		name := cutRunes(req.Params.Name, maxLoggedName)
		logger.ErrorContext(ctx, "middleware: tool failed", "tool", name, "reference", ref, "err", r.Cause())
		return sake.ErrorResult("Tool %s failed. The error was logged with reference %s; its details are not shown.", name, ref)
	}
	return func(next sake.Handler) sake.Handler {
		return func(ctx context.Context, req *sake.Request) (any, error) {
			if req.MayBecomeTask() {
				ctx = sake.WithTaskResult(ctx, mask)
			}
			res, err := next(ctx, req)
			r, ok := res.(*sake.ToolResult)
			if err != nil || !ok || r == nil || r.Cause() == nil {
				return res, err
			}
			return mask(ctx, req, r), nil
		}
	}
}

// reference is a random id that ties a masked error to its log record.
func reference() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
