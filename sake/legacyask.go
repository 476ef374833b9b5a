package sake

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"time"

	"github.com/sakemcp/sake-go/sake/protocol"
)

// outgoing is a request the server sent a legacy client, awaiting its
// answer.
type outgoing struct {
	result json.RawMessage
	err    *Error
}

// newOutgoing reserves an id for a server-initiated request.
func (s *Session) newOutgoing() (string, chan outgoing) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextOut++
	id := `"sake-` + s.srv.replicaTag + "-" + strconv.FormatInt(s.nextOut, 10) + `"`
	ch := make(chan outgoing, 1)
	if s.pending == nil {
		s.pending = map[string]chan outgoing{}
	}
	s.pending[id] = ch
	return id, ch
}

func (s *Session) dropOutgoing(id string) {
	s.mu.Lock()
	delete(s.pending, id)
	s.mu.Unlock()
}

// deliver hands the client's answer to the request waiting for it, and
// reports whether one was.
func (s *Session) deliver(id json.RawMessage, result json.RawMessage, errRaw json.RawMessage) bool {
	s.mu.Lock()
	ch := s.pending[string(id)]
	delete(s.pending, string(id))
	s.mu.Unlock()
	if ch == nil {
		return false
	}
	var out outgoing
	// The message's buffer is reused once Handle returns: keep copies.
	result = append(json.RawMessage(nil), result...)
	errRaw = append(json.RawMessage(nil), errRaw...)
	if len(errRaw) > 0 {
		var e Error
		if json.Unmarshal(errRaw, &e) != nil {
			e = Error{Code: CodeInternalError, Message: "the client answered with a malformed error"}
		}
		out.err = &e
	} else {
		out.result = result
	}
	ch <- out
	return true
}

// askSession sends a request to a legacy client and waits for its answer:
// on the stream of the request being handled when it has one, else on the
// session's own stream.
func (c *Context) askSession(key, method string, params any) (json.RawMessage, error) {
	sess := c.req.Session
	if sess == nil {
		return nil, &Error{Code: CodeInvalidRequest, Message: "cannot ask the client: the request belongs to no session (initialize first)"}
	}
	p, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	if fl := c.req.fl; fl != nil {
		if !fl.ask() {
			// The client can send nothing more: no answer can come.
			fl.stop()
			return nil, context.Canceled
		}
		defer fl.doneAsking()
	}
	id, ch := sess.newOutgoing()
	defer sess.dropOutgoing(id)
	if h := c.srv.opts.hooks; h != nil && h.Input != nil {
		if done := h.Input(c.Context, Question{Method: method, Key: key, RequestID: id}); done != nil {
			res, err := c.sendAndWait(sess, id, ch, method, p)
			done(err)
			return res, err
		}
	}
	return c.sendAndWait(sess, id, ch, method, p)
}

// sendAndWait sends a request to the client and waits for its answer.
func (c *Context) sendAndWait(sess *Session, id string, ch chan outgoing, method string, p []byte) (json.RawMessage, error) {
	msg := protocol.AppendRequest(nil, []byte(id), method, p)
	if in := c.req.in; in != nil && in.streams() {
		in.send(msg)
	} else if err := sess.sendMessage(msg); err != nil {
		return nil, &Error{Code: CodeInternalError, Message: "cannot ask the client: " + err.Error()}
	}
	var abandoned <-chan struct{}
	if in := c.req.in; in != nil {
		if rs, ok := in.Stream.(resumableStream); ok {
			abandoned = rs.Abandoned()
		}
		if aw, ok := in.Stream.(answerAwaiter); ok {
			aw.AwaitingAnswer()
		}
	}
	timer := time.NewTimer(orDefault(c.srv.opts.limits.AskTimeout, defaultAskTimeout))
	defer timer.Stop()
	select {
	case out := <-ch:
		if out.err != nil {
			return nil, out.err
		}
		return out.result, nil
	case <-c.Done():
		return nil, c.Err()
	case <-abandoned:
		return nil, errors.New("sake: the client left the stream of the request and did not resume it, so it cannot answer " + method)
	case <-timer.C:
		return nil, errors.New("sake: the client did not answer " + method + " in time")
	}
}
