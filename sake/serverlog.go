package sake

import (
	"sync"

	"github.com/sakemcp/sake-go/sake/protocol"
)

// Log sends a log message that belongs to no request (a server's own
// event, or one a proxy's remote server sent outside any call) to every
// handshake-era session held here whose level, set with
// logging/setLevel, admits it: a session that set no level gets none.
// The servers s is mounted into pass it on to their own sessions the same
// way. 2026-07-28 clients get no such messages: that revision sends log
// messages only with the request they belong to. A message reaches the
// sessions whose stream this replica holds; it does not travel to other
// replicas.
func (s *Server) Log(level LogLevel, logger string, data any) {
	if level.Severity() == 0 {
		s.logger.Warn("sake: a log message with an unknown level is dropped", "level", level)
		return
	}
	b, ok := s.logMessage(level, logger, data)
	if !ok {
		return
	}
	s.deliverLog(level.Severity(), b)
}

// deliverLog sends a rendered log message of the given severity to the
// sessions whose level admits it, and to the servers s is mounted into.
func (s *Server) deliverLog(severity int, msg []byte) {
	s.sessions.Range(func(_, v any) bool {
		sess := v.(*Session)
		if min := sess.logLevel.Load(); min == 0 || int32(severity) < min || !sess.initializedYet() {
			return true
		}
		if err := sess.sendLocal(msg); err != nil && err != errNoStream {
			s.logger.Debug("sake: cannot send to session", "session", sess.id, "err", err)
		}
		return true
	})
	s.logWatchers.send(severity, msg)
}

// logWatchers are the parents a server is mounted into, told of its log
// messages that belong to no request.
type logWatchers struct {
	mu   sync.Mutex
	next int
	fns  map[int]func(severity int, msg []byte)
}

func (l *logWatchers) add(fn func(severity int, msg []byte)) (stop func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fns == nil {
		l.fns = map[int]func(int, []byte){}
	}
	id := l.next
	l.next++
	l.fns[id] = fn
	return func() {
		l.mu.Lock()
		delete(l.fns, id)
		l.mu.Unlock()
	}
}

func (l *logWatchers) send(severity int, msg []byte) {
	l.mu.Lock()
	fns := make([]func(int, []byte), 0, len(l.fns))
	for _, fn := range l.fns {
		fns = append(fns, fn)
	}
	l.mu.Unlock()
	for _, fn := range fns {
		fn(severity, msg)
	}
}

// logMessage encodes a notifications/message; false (logged) when data
// is not JSON.
func (s *Server) logMessage(level LogLevel, logger string, data any) ([]byte, bool) {
	b := make([]byte, 0, 128)
	b = protocol.AppendNotificationHead(b, "notifications/message")
	b = append(b, `{"level":`...)
	b = protocol.AppendString(b, string(level))
	if logger != "" {
		b = append(b, `,"logger":`...)
		b = protocol.AppendString(b, logger)
	}
	b = append(b, `,"data":`...)
	var err error
	if b, err = protocol.AppendAny(b, data); err != nil {
		s.logger.Warn("sake: log data is not JSON", "err", err)
		return nil, false
	}
	return append(b, "}}"...), true
}
