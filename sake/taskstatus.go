package sake

import (
	"context"
	"sync"

	"github.com/sakemcp/sake-go/sake/backend"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// watchLegacyTask sends notifications/tasks/status (params: the task, in
// the 2025-11-25 shape) on the session's stream each time the task the
// session asked for changes, until it ends. The notifications are
// optional in that revision, and requestors must not rely on them; they
// let a requestor stop polling early. One subscription per task the
// session started, so bounded by the task manager's running limits; it
// ends with the task, the session or the server.
func (s *Server) watchLegacyTask(sess *Session, owner, id string, taskCtx context.Context) {
	m := s.opts.tasks
	var mu sync.Mutex
	final := false
	ended := make(chan struct{})
	send := func(t *backend.Task) {
		mu.Lock()
		defer mu.Unlock()
		if final {
			return
		}
		if t.Terminal() {
			final = true
			close(ended)
		}
		msg := make([]byte, 0, 256)
		msg = protocol.AppendNotificationHead(msg, "notifications/tasks/status")
		msg = append(msg, '{')
		msg = appendTaskFields(msg, t, false)
		msg = append(msg, "}}"...)
		if err := sess.sendMessage(msg); err != nil && err != errNoStream {
			s.logger.Debug("sake: cannot send a task status to the session", "session", sess.id, "err", err)
		}
	}
	stop := m.Subscribe(owner, func(t *backend.Task) {
		if t.ID == id {
			send(t)
		}
	})
	go func() {
		defer stop()
		select {
		case <-ended:
		case <-sess.Done():
		case <-s.done:
		case <-taskCtx.Done():
			// The task's work is over and its final state stored; the
			// subscription may not have passed it on yet.
			if t, err := m.Get(context.WithoutCancel(taskCtx), owner, id); err == nil && t.Terminal() {
				send(t)
			}
		}
	}()
}
