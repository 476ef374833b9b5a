package protocol

// Cause returns the error a tool returned that became this result (with
// isError set and the error's text as its content), or nil when the tool
// returned the result itself. Middleware that hides such errors from
// clients reads it.
func (r *ToolResult) Cause() error { return r.cause }
