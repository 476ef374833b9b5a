package bridge

import (
	"errors"
	"time"
)

// ErrNoStream is transport.ErrNoStream, here so that the server can return
// it without importing package transport.
var ErrNoStream = errors.New("sake: the session has no stream open for server messages")

// Funcs are the server's functions package transport calls. Values typed
// any are of the server's types, named on each field.
type Funcs struct {
	// Connect starts a connection of *sake.Server srv: identity is a
	// *sake.Identity (nil for anonymous), out a sake.Stream. It returns
	// the server's connection, which package transport wraps.
	Connect func(srv any, transport string, identity, out any) any
	// Decode decodes msg on *sake.Server srv with *sake.Inbound in (nil
	// for nothing known) and returns the server's message.
	Decode func(srv any, msg []byte, in any) any
	// FindSession looks up the legacy session id of *sake.Server srv for
	// *sake.Identity who: a *sake.Session, or nil.
	FindSession func(srv any, id string, who any) (any, error)
	// SetSender, Hold, Unhold, CloseIdle, Shared, LastUsed, Idle and
	// AfterClose act on a *sake.Session. Unhold ends one Hold.
	SetSender  func(sess any, send func(msg []byte) error)
	Hold       func(sess any)
	Unhold     func(sess any)
	CloseIdle  func(sess any, timeout time.Duration)
	CloseHere  func(sess any)
	Shared     func(sess any) bool
	LastUsed   func(sess any) time.Time
	Idle       func(sess any) bool
	AfterClose func(sess any, f func())
	Send       func(sess any, msg []byte) error
	// ForwardTool lets the calls of *sake.ToolDef def start without
	// waiting for their outcome: start is a
	// func(*sake.Context, json.RawMessage, func(*sake.ToolResult, error)) bool
	// (see sake's forwardFunc). Package sake/proxy sets it on the tools it
	// forwards.
	ForwardTool func(def, start any)
	// AfterBurst returns the AfterBurst method of the stream of the
	// request of *sake.Context c (transport.BurstReader), or nil.
	AfterBurst func(c any) func(func()) bool
}

// PanicKey is the context key under which transport.WithPanicHandler
// stores a func(recovered any, stack []byte) for the server to call.
type PanicKey struct{}

var root *Funcs

// Set records the server's functions. Package sake calls it once, when it
// is initialised; a second call panics.
func Set(f *Funcs) {
	if root != nil {
		panic("sake/internal/bridge: Set called twice")
	}
	root = f
}

// Root returns the server's functions. It panics when package sake has not
// set them, which cannot happen in a program that links package
// transport, since transport imports sake.
func Root() *Funcs {
	if root == nil {
		panic("sake/internal/bridge: package sake has not filled the bridge; import github.com/sakemcp/sake-go/sake")
	}
	return root
}
