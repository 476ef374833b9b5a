package plug

import (
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/transport"
)

// maxRetired is how many finished streams a session keeps for clients
// that reconnect with Last-Event-ID after the response was complete.
const maxRetired = 16

// errStreamEnded is returned when a message is sent on a stream whose
// final event has gone.
var errStreamEnded = errors.New("plug: the stream has ended")

// entry is what the handler keeps for a legacy session the server owns:
// its resumable SSE streams, keyed by the session.
type entry struct {
	sess   *sake.Session
	closed chan struct{} // closed when the session ends
	once   sync.Once
	busy   atomic.Int32 // requests running and GET streams open: not idle

	mu         sync.Mutex
	nextStream uint64
	streams    map[uint64]*stream
	retired    []uint64 // finished streams, oldest first
	standalone *stream
	replay     int

	// Replay bytes: see replay.go.
	budget         *replayBudget
	maxReplayBytes int64
	replayBytes    atomic.Int64
	rmu            sync.Mutex
	kept           fifo
}

// close ends the session; the handler then forgets the entry (see add).
func (e *entry) close() {
	e.sess.Close()
	e.ended()
}

// leave ends this replica's copy of the session, as the handler stops: a
// session shared with other replicas goes on there.
func (e *entry) leave() {
	transport.CloseHere(e.sess)
	e.ended()
}

// ended wakes every GET stream waiting on the session and drops its
// replay events, once the session has ended.
func (e *entry) ended() {
	e.once.Do(func() {
		close(e.closed)
		e.dropReplay()
	})
}

// newStream opens a stream of the session. A standalone stream carries
// the messages that belong to no request (the GET stream); the others
// carry one POST request's notifications and response.
func (e *entry) newStream(standalone bool) *stream {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.nextStream++
	s := &stream{e: e, n: e.nextStream, standalone: standalone, done: make(chan struct{}), replay: e.replay}
	if standalone {
		s.sendFn = s.send
	}
	if e.streams == nil {
		e.streams = make(map[uint64]*stream)
	}
	e.streams[s.n] = s
	return s
}

// standaloneStream returns the session's GET stream, opening it the first
// time.
func (e *entry) standaloneStream() *stream {
	e.mu.Lock()
	s := e.standalone
	e.mu.Unlock()
	if s != nil {
		return s
	}
	s = e.newStream(true)
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.standalone != nil { // another GET won the race
		delete(e.streams, s.n)
		return e.standalone
	}
	e.standalone = s
	return s
}

// stream returns stream n, or nil when the session never had it or has
// forgotten it; issued says the session did open it.
func (e *entry) stream(n uint64) (s *stream, issued bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.streams[n], n >= 1 && n <= e.nextStream
}

// retire records that stream s finished, forgetting the oldest finished
// streams beyond maxRetired.
func (e *entry) retire(s *stream) {
	var forgotten []*stream
	e.mu.Lock()
	e.retired = append(e.retired, s.n)
	for len(e.retired) > maxRetired {
		if old := e.streams[e.retired[0]]; old != nil {
			forgotten = append(forgotten, old)
		}
		delete(e.streams, e.retired[0])
		e.retired = e.retired[1:]
	}
	e.mu.Unlock()
	for _, old := range forgotten {
		old.dropReplay()
	}
}

// sink is where a stream's live events go: the response of the POST that
// opened it, or a GET that resumed it.
type sink interface {
	// deliver takes one framed event; false means the sink can take no
	// more and the stream detaches it. It must not block.
	deliver(frame []byte) bool
	// evict tells the sink the stream no longer writes to it.
	evict()
}

// stream is one resumable SSE stream of a legacy session. Every event gets
// an id "<n>-<seq>" and is kept in a bounded ring for replay.
type stream struct {
	e          *entry
	n          uint64
	standalone bool
	done       chan struct{} // closed with the final event
	replay     int
	sendFn     func([]byte) error

	mu    sync.Mutex
	seq   uint64
	ring  []*kept // at most replay events; oldest at start once full
	start int
	final bool
	sink  sink
}

// send is the session's sender while this standalone stream has a sink.
func (s *stream) send(msg []byte) error { return s.emit(msg, false) }

// emit frames data as the stream's next event, keeps it for replay and
// hands it to the sink. final marks the last event (the response); nil
// data with final ends the stream without an event.
func (s *stream) emit(data []byte, final bool) error {
	var idb [41]byte
	s.mu.Lock()
	if s.final {
		s.mu.Unlock()
		return errStreamEnded
	}
	if data == nil && final { // end without an event
		s.final = true
		close(s.done)
		s.mu.Unlock()
		s.e.retire(s)
		return nil
	}
	if s.standalone && s.sink == nil {
		s.mu.Unlock()
		return transport.ErrNoStream
	}
	s.seq++
	frame := appendEvent(make([]byte, 0, len(data)+48), appendEventID(idb[:0], s.n, s.seq), data)
	s.keep(s.seq, frame)
	if s.sink != nil && !s.sink.deliver(frame) {
		s.detachLocked()
	}
	if final {
		s.final = true
		close(s.done)
	}
	s.mu.Unlock()
	if final {
		s.e.retire(s)
	}
	return nil
}

// keep adds an event to the ring, dropping the oldest when it is full,
// and charges it to the replay budgets.
func (s *stream) keep(seq uint64, frame []byte) {
	if s.replay <= 0 {
		return
	}
	k := &kept{seq: seq, size: int64(len(frame)), e: s.e}
	k.frame.Store(&frame)
	if len(s.ring) < s.replay {
		s.ring = append(s.ring, k)
	} else {
		s.ring[s.start].drop()
		s.ring[s.start] = k
		s.start = (s.start + 1) % len(s.ring)
	}
	s.e.account(k)
}

// attach makes sk the stream's sink, evicting the previous one. With
// resume it returns the kept events after seq after; lost says some of
// them are no longer kept, and then sk is not attached. prime is the id of
// the stream's latest event, for a priming event. final says the stream
// has ended: sk was not attached and the replay is all there is. ok is
// false when after is an id the stream never issued.
func (s *stream) attach(sk sink, resume bool, after uint64) (replay [][]byte, prime []byte, final, lost, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if resume {
		if after > s.seq {
			return nil, nil, false, false, false
		}
		next := after + 1 // the seq the replay needs next
		for i := range s.ring {
			k := s.ring[(s.start+i)%len(s.ring)]
			f := k.frame.Load()
			if f == nil || k.seq <= after {
				continue
			}
			if k.seq != next {
				lost = true
			}
			replay = append(replay, *f)
			next = k.seq + 1
		}
		if next != s.seq+1 {
			lost = true
		}
		if lost {
			return nil, nil, false, true, true
		}
	}
	prime = appendEventID(nil, s.n, s.seq)
	if s.final {
		return replay, prime, true, lost, true
	}
	if s.sink != nil {
		s.sink.evict()
	}
	s.sink = sk
	if s.standalone {
		transport.SetSender(s.e.sess, s.sendFn)
	}
	return replay, prime, false, lost, true
}

// attached reports whether a sink receives the stream's events.
func (s *stream) attached() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sink != nil
}

// detach removes sk if it is still the stream's sink.
func (s *stream) detach(sk sink) {
	s.mu.Lock()
	if s.sink == sk {
		s.detachLocked()
	}
	s.mu.Unlock()
}

func (s *stream) detachLocked() {
	s.sink.evict()
	s.sink = nil
	if s.standalone {
		transport.SetSender(s.e.sess, nil)
	}
}

// getSink is a GET response waiting for a stream's events: they queue in
// out, and the GET's goroutine writes them. A sink that falls behind is
// evicted; its client reconnects with Last-Event-ID and the ring fills the
// gap.
type getSink struct {
	out  chan []byte
	stop chan struct{}
	once sync.Once
}

func newGetSink() *getSink {
	return &getSink{out: make(chan []byte, 64), stop: make(chan struct{})}
}

func (g *getSink) deliver(frame []byte) bool {
	select {
	case g.out <- frame:
		return true
	default:
		return false
	}
}

func (g *getSink) evict() { g.once.Do(func() { close(g.stop) }) }

// lookup returns the streams of the live session with that id, when the
// caller owns it, or nil; err says the server could not tell (its session
// store failed).
func (h *Handler) lookup(id string, who *sake.Identity) (*entry, error) {
	sess, err := transport.FindSession(h.srv, id, who)
	if sess == nil {
		return nil, err
	}
	return h.entryOf(sess), nil
}

// entryOf returns the handler's entry of a live session, or nil when the
// session did not start on this handler or has ended.
func (h *Handler) entryOf(sess *sake.Session) *entry {
	h.mu.RLock()
	e := h.sessions[sess.ID()]
	h.mu.RUnlock()
	if e != nil && e.sess != sess && e.sess.Closed() {
		h.remove(e) // an earlier copy of a shared session
		e = nil
	}
	if e == nil && transport.Shared(sess) && !sess.Closed() {
		// A session another replica created: its streams from here are
		// kept here.
		e, _ = h.add(sess)
	}
	if e == nil || e.sess != sess {
		return nil
	}
	if sess.Closed() { // closed behind our back (eviction, Server.Shutdown)
		h.remove(e)
		return nil
	}
	return e
}

// add keeps the streams of a session initialize created. At the
// handler's session limit the least recently used idle session makes room
// (the server's rule, see makeRoom); it fails when none is idle or the
// handler is closed, and the caller then closes the session. The entry
// lives as long as the session: whoever ends it (the client's DELETE, the
// janitor, the server evicting it to make room, another replica), the
// handler forgets it at once.
func (h *Handler) add(sess *sake.Session) (*entry, error) {
	for {
		h.mu.Lock()
		if h.closed {
			h.mu.Unlock()
			return nil, errClosed
		}
		if e := h.sessions[sess.ID()]; e != nil && e.sess == sess {
			h.mu.Unlock()
			return e, nil
		}
		if h.cfg.maxSessions > 0 && len(h.sessions) >= h.cfg.maxSessions {
			victim, ended := h.makeRoom()
			full := len(h.sessions) >= h.cfg.maxSessions
			h.mu.Unlock()
			for _, e := range ended {
				e.ended()
			}
			if !full {
				continue
			}
			if victim == nil {
				return nil, errTooMany
			}
			h.cfg.logger.Debug("plug: closing the least recently used idle session to make room")
			h.evict(victim)
			continue
		}
		e := &entry{sess: sess, closed: make(chan struct{}), replay: h.cfg.replay,
			budget: &h.replay, maxReplayBytes: h.cfg.replaySessionBytes}
		h.sessions[sess.ID()] = e
		if !h.janitorOn && h.cfg.idleTimeout > 0 {
			h.janitorOn = true
			h.wg.Add(1)
			go h.janitor()
		}
		h.mu.Unlock()
		transport.AfterClose(sess, func() { h.forget(e) })
		return e, nil
	}
}

// makeRoom is add's work at the session limit, with h.mu held: it drops
// the entries of sessions already ended (the server evicts a session and
// admits the next initialize before the session's AfterClose reaches the
// handler), returned for their ended call, and picks the least recently
// used idle session to evict should the handler still be full. The scan
// is linear, at the limit only, as the server's own.
func (h *Handler) makeRoom() (victim *entry, ended []*entry) {
	for id, e := range h.sessions {
		if e.sess.Closed() {
			delete(h.sessions, id)
			ended = append(ended, e)
		}
	}
	if len(h.sessions) < h.cfg.maxSessions {
		return nil, ended
	}
	var oldest time.Time
	for _, e := range h.sessions {
		if e.busy.Load() != 0 || !transport.Idle(e.sess) {
			continue
		}
		if used := transport.LastUsed(e.sess); victim == nil || used.Before(oldest) {
			victim, oldest = e, used
		}
	}
	return victim, ended
}

// evict ends a session to make room for another: a session of this
// handler ends; a copy of a session shared with other replicas is only
// dropped here, and the session lives on in its store.
func (h *Handler) evict(e *entry) {
	if transport.Shared(e.sess) {
		transport.CloseHere(e.sess)
	} else {
		e.sess.Close()
	}
	h.forget(e)
}

var (
	errClosed  = errors.New("plug: the handler is closed")
	errTooMany = errors.New("plug: too many sessions")
)

// remove closes a session; its entry goes with it.
func (h *Handler) remove(e *entry) {
	e.close()
	h.forget(e)
}

// forget drops the entry of a session that has ended.
func (h *Handler) forget(e *entry) {
	h.mu.Lock()
	if h.sessions[e.sess.ID()] == e {
		delete(h.sessions, e.sess.ID())
	}
	h.mu.Unlock()
	e.ended()
}

// janitor closes idle sessions until the handler closes.
func (h *Handler) janitor() {
	defer h.wg.Done()
	every := min(max(h.cfg.idleTimeout/4, time.Second), time.Minute)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-h.done:
			return
		case now := <-t.C:
			h.sweep(now)
		}
	}
}

// sweep closes the sessions idle since before now minus the timeout.
func (h *Handler) sweep(now time.Time) {
	var idle []*entry
	h.mu.RLock()
	for _, e := range h.sessions {
		if e.busy.Load() == 0 && now.Sub(transport.LastUsed(e.sess)) > h.cfg.idleTimeout {
			idle = append(idle, e)
		}
	}
	h.mu.RUnlock()
	for _, e := range idle {
		h.cfg.logger.Debug("plug: closing an idle session", "idle", now.Sub(transport.LastUsed(e.sess)).Round(time.Second))
		transport.CloseIdle(e.sess, h.cfg.idleTimeout)
		h.remove(e)
	}
}
