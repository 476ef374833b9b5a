// Package forwardcall lets package sake/proxy start a tools/call of a
// client without waiting for its answer: a path package sake/client
// keeps out of its documented API, since only a proxy forwarding calls
// over stdio has a use for it.
package forwardcall

import (
	"context"

	"github.com/sakemcp/sake-go/sake/protocol"
)

// StartTool starts the call of tool name with args on *client.Client c
// and calls done once with its outcome, on any goroutine: the result left
// encoded (protocol.ToolResultFromWire), or the *client.Task the server
// answered with, or the error (a *protocol.ToolError for a result with
// isError). done is given, when not nil, a function like afterBurst for
// the burst of answers the client is reading, which it may call before it
// returns: the reply may then be flushed with the others. It returns false, having sent nothing and with done not
// called, when the call cannot go that way: the caller then calls
// StartToolEncoded. afterBurst, when not nil, is the caller's transport's
// (sake/transport.BurstReader.AfterBurst): the request may be written
// with the others of the burst being read. Package client sets it when it
// is initialised.
var StartTool func(c any, ctx context.Context, name string, args any, afterBurst func(func()) bool, done func(res *protocol.ToolResult, task any, err error, answered func(func()) bool)) bool
