package sake

import (
	"encoding/json"
	"time"

	"github.com/sakemcp/sake-go/sake/internal/bridge"
)

// The functions package sake/transport reaches through the bridge: what
// only transports use, kept out of this package's documentation.
func init() {
	bridge.Set(&bridge.Funcs{
		Connect: func(srv any, transport string, identity, out any) any {
			id, _ := identity.(*Identity)
			st, _ := out.(Stream)
			return srv.(*Server).connect(transport, id, st)
		},
		Decode: func(srv any, msg []byte, in any) any {
			inb, _ := in.(*Inbound)
			return srv.(*Server).decodeNew(msg, inb)
		},
		FindSession: func(srv any, id string, who any) (any, error) {
			w, _ := who.(*Identity)
			sess, err := srv.(*Server).lookupSession(id, w.Owner())
			if sess == nil {
				return nil, err
			}
			return sess, err
		},
		SetSender:  func(sess any, send func([]byte) error) { sess.(*Session).setSender(send) },
		Hold:       func(sess any) { sess.(*Session).hold() },
		Unhold:     func(sess any) { sess.(*Session).unhold() },
		CloseIdle:  func(sess any, timeout time.Duration) { sess.(*Session).closeIdle(timeout) },
		CloseHere:  func(sess any) { sess.(*Session).closeHere() },
		Shared:     func(sess any) bool { return sess.(*Session).shared },
		LastUsed:   func(sess any) time.Time { return sess.(*Session).lastUsedAt() },
		Idle:       func(sess any) bool { return sess.(*Session).idle() },
		AfterClose: func(sess any, f func()) { sess.(*Session).afterClosed(f) },
		Send:       func(sess any, msg []byte) error { return sess.(*Session).sendMessage(msg) },
		AfterBurst: func(c any) func(func()) bool {
			ctx := c.(*Context)
			if ctx.req == nil || ctx.req.in == nil {
				return nil
			}
			if b, ok := ctx.req.in.Stream.(burstReader); ok {
				return b.AfterBurst
			}
			return nil
		},
		ForwardTool: func(def, start any) {
			def.(*ToolDef).forward = start.(func(*Context, json.RawMessage, func(*ToolResult, error, func(func()) bool)) bool)
		},
	})
}
