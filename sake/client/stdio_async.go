package client

import "context"

// asyncCall is a call whose answer is handed to fn on the reading
// goroutine instead of being awaited: a proxy forwarding over stdio holds
// no goroutine per call (see sake/proxy).
type asyncCall struct {
	fn   func(body []byte, err error, afterBurst func(func()) bool)
	stop func() bool // stops the context's AfterFunc
}

// roundTripAsync writes m and calls fn once with its answer, or with the
// error that ended the wait: the context's, or the one that stopped the
// reading. fn runs on another goroutine, or on this one before
// roundTripAsync returns when ctx has ended already. It returns false,
// having written nothing and with fn not called, when the transport is
// closed or no longer reads: the caller then takes the usual path, which
// reports why.
//
// afterBurst, when not nil, is the caller's transport's
// (sake/transport.BurstReader): the request may wait in the queue until
// the burst of requests the caller is reading ends, so that they are
// written together.
//
// fn is given, when not nil, the reading goroutine's afterAnswers, which
// it may call before it returns (not later): what it writes for the
// answer may wait for the other answers read together.
func (t *streamTransport) roundTripAsync(ctx context.Context, m *message, fn func([]byte, error, func(func()) bool), afterBurst func(func()) bool) bool {
	id := m.id
	ac := &asyncCall{fn: fn}
	ac.stop = context.AfterFunc(ctx, func() {
		if t.takeAsync(id) {
			// Both eras cancel over stdio with notifications/cancelled.
			_ = t.write(cancelled(id, "the caller cancelled the call"))
			fn(nil, ctx.Err(), nil)
		}
	})
	t.mu.Lock()
	if t.closed || t.stopped {
		t.mu.Unlock()
		ac.stop()
		return false
	}
	t.async[id] = ac
	if forwardOf(ctx) != nil {
		t.forwarded[id] = ctx
	}
	t.mu.Unlock()
	if ctx.Err() != nil {
		// The AfterFunc may have run before the call was registered.
		if t.takeAsync(id) {
			ac.stop()
			fn(nil, ctx.Err(), nil)
		}
		return true
	}
	if err := t.writeLater(m.body, afterBurst); err != nil && t.takeAsync(id) {
		ac.stop()
		return false
	}
	return true
}

// takeAsync removes the asynchronous call id and reports whether it was
// still waiting: whoever takes it calls its function.
func (t *streamTransport) takeAsync(id int64) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.async[id] == nil {
		return false
	}
	delete(t.async, id)
	delete(t.forwarded, id)
	return true
}

// writeLater is write, except that with afterBurst the message may stay
// queued until the burst of the caller ends (flushCorked), unless another
// write goes first: the last request of a burst writes them all.
func (t *streamTransport) writeLater(b []byte, afterBurst func(func()) bool) error {
	if afterBurst == nil {
		return t.write(b)
	}
	if err := t.enqueue(b); err != nil {
		return err
	}
	if t.writing || t.corked {
		t.wmu.Unlock()
		return nil
	}
	if afterBurst(t.flushCorked) {
		t.corked = true
		t.wmu.Unlock()
		return nil
	}
	t.writing = true
	err := t.writeQueue()
	t.wmu.Unlock()
	return err
}

// flushCorked writes what writeLater left queued, unless a write is
// under way (it writes the queue to its end).
func (t *streamTransport) flushCorked() {
	t.wmu.Lock()
	defer t.wmu.Unlock()
	t.corked = false
	if t.writing || t.writeErr != nil || len(t.queue) == 0 {
		return
	}
	t.writing = true
	_ = t.writeQueue() // a failed write fails every later one
}
