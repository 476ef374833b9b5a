package plug

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/sakemcp/sake-go/sake"
)

// postExchange is one POST's state: the dispatcher's inbound, the MCP
// headers and the response writer.
type postExchange struct {
	in  sake.Inbound
	hdr sake.Headers
	out postWriter
	ctx postContext // the context of a request without a session
}

// postWriter is the response to one POST. It writes JSON, unless a
// notification comes before the reply: then it switches to SSE, sends the
// notifications as they come and the reply last. A known legacy session
// makes the stream resumable (event ids, a priming event, replay).
type postWriter struct {
	h       *Handler
	w       http.ResponseWriter
	e       *entry       // the legacy session, or nil
	chunked bool         // the response body is chunked (HTTP/1.1)
	jsonOK  bool         // Accept allows application/json
	sseOK   bool         // Accept allows text/event-stream
	ctx     *postContext // the request's own context; nil in a session, which cancels its requests

	// abandoned is closed when the client left the stream and did not
	// resume it within the grace period (legacy sessions only). It is
	// made under mu when first needed: most requests never ask.
	abandoned chan struct{}
	lostOnce  sync.Once

	mu        sync.Mutex
	streaming bool
	done      bool
	tracked   bool
	sse       sseWriter
	st        *stream // resumable stream, legacy only
	buf       []byte
}

// cancelRequest cancels the request's context (a session's requests are
// cancelled by closing the session).
func (p *postWriter) cancelRequest() {
	if p.ctx != nil {
		p.ctx.cancel()
	}
}

func (p *postWriter) started() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.streaming || p.done
}

// Send is the request's stream (sake.Stream): one message of the running
// request.
func (p *postWriter) Send(msg []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done || !p.sseOK {
		return // over, or the client takes JSON only: notifications are optional
	}
	if !p.streaming {
		p.startStream()
	}
	p.event(msg, false)
}

// startStream sends the SSE headers and, for a legacy session, opens a
// resumable stream and its priming event.
func (p *postWriter) startStream() {
	p.streaming = true
	p.h.track(p)
	startSSE(p.w)
	p.sse = newSSEWriter(p.w)
	if p.e != nil {
		p.st = p.e.newStream(false)
		_, prime, _, _, _ := p.st.attach(p, false, 0)
		p.sse.send(appendPriming(p.buf[:0], prime))
	}
}

// event sends one message on the stream; final marks the reply.
func (p *postWriter) event(msg []byte, final bool) {
	if p.st != nil {
		_ = p.st.emit(msg, final)
		return
	}
	if msg != nil {
		p.buf = appendEvent(p.buf[:0], nil, msg)
		p.sse.send(p.buf)
	}
}

// CloseStream (transport.ResumableStream) starts the resumable stream if
// needed (priming event with retry), then closes the connection; the
// rest of the stream waits in its replay buffer for the client's GET with
// Last-Event-ID. Only a legacy session's stream over HTTP/1.x can.
func (p *postWriter) CloseStream() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done || p.e == nil || !p.sseOK || (p.streaming && p.sse.failed) {
		return false
	}
	announced := false
	if !p.streaming {
		// Say the connection ends with the response, so that a client
		// pooling connections does not send its next request on it.
		p.w.Header().Set("Connection", "close")
		announced = true
		p.startStream()
	}
	if !p.sse.flush() {
		return false
	}
	conn, rw, err := p.sse.rc.Hijack()
	if err != nil {
		return false // HTTP/2 and others: the stream stays open
	}
	if p.chunked && announced {
		// End the chunked body properly, so the client sees the stream
		// finish rather than a broken connection. Without Connection:
		// close already sent, the body stays unfinished instead, so no
		// client reuses a connection about to close.
		_, _ = rw.WriteString("0\r\n\r\n")
		_ = rw.Flush()
	}
	_ = conn.Close()
	p.sse.failed = true
	if p.st != nil {
		p.st.detach(p)
	}
	go p.lost()
	return true
}

// Abandoned (transport.ResumableStream) is closed when the client left the
// stream and did not resume it within plug.ResumeGrace.
func (p *postWriter) Abandoned() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.abandonedLocked()
}

// abandonedLocked returns the abandoned channel, made if need be; p.mu is
// held.
func (p *postWriter) abandonedLocked() chan struct{} {
	if p.abandoned == nil {
		p.abandoned = make(chan struct{})
	}
	return p.abandoned
}

// watchDisconnect starts the grace period when the client's connection
// goes while the request still runs. The returned function ends the
// watch: net/http cancels the request's context once the handler
// returns, which must not cost a goroutine per request.
func (p *postWriter) watchDisconnect(r *http.Request) (stop func() bool) {
	return context.AfterFunc(r.Context(), func() {
		p.mu.Lock()
		done := p.done
		if !done {
			// Nothing more reaches this client: the stream waits in its
			// replay buffer for a resumption.
			p.sse.failed = true
			if p.st != nil {
				p.st.detach(p)
			}
		}
		p.mu.Unlock()
		if !done {
			p.lost()
		}
	})
}

// lost waits the grace period, then marks the stream abandoned unless a
// client resumed it meanwhile; while one is attached it checks again
// every period.
func (p *postWriter) lost() {
	p.lostOnce.Do(func() {
		var check func()
		check = func() {
			p.mu.Lock()
			done, st := p.done, p.st
			p.mu.Unlock()
			if done {
				return
			}
			if st != nil && st.attached() {
				time.AfterFunc(p.h.cfg.resumeGrace, check)
				return
			}
			p.mu.Lock()
			close(p.abandonedLocked())
			p.mu.Unlock()
		}
		time.AfterFunc(p.h.cfg.resumeGrace, check)
	})
}

// deliver and evict make the POST response the sink of its own stream;
// they run under p.mu, from notify and finish.
func (p *postWriter) deliver(frame []byte) bool { return p.sse.send(frame) }
func (p *postWriter) evict()                    {}

// finish writes the dispatcher's reply.
func (p *postWriter) finish(r *http.Request, reply *sake.Reply, in *sake.Inbound) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done = true
	if p.tracked {
		p.h.untrack(p)
	}
	if p.streaming {
		if reply.Session != nil { // cannot announce its id any more
			reply.Session.Close()
		}
		p.event(reply.Body, true)
		return
	}
	h, w := p.h, p.w
	if reply.Cause != nil && reply.Body != nil {
		// Refused for a reason outside the message (no room for a
		// session, the session store down, the server stopping): the
		// server's error says which, and the client retries later.
		h.unavailable(w, r, reply.Cause, reply.Body)
		return
	}
	if reply.Body == nil {
		if in.SessionNotFound && reply.Era == sake.EraLegacy {
			h.refuse(w, r, http.StatusNotFound, bodySessionNotFound)
			return
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if reply.Busy && reply.Method == "initialize" {
		h.unavailable(w, r, nil, reply.Body)
		return
	}
	if s := reply.Session; s != nil {
		if _, err := h.add(s); err != nil {
			s.Close()
			if err == errTooMany {
				h.cfg.logger.Warn("plug: initialize refused: too many sessions; raise plug.MaxSessions", "max", h.cfg.maxSessions)
				w.Header().Set("Retry-After", retryAfter(nil))
				h.refuse(w, r, http.StatusServiceUnavailable, bodyTooMany)
			} else {
				h.refuse(w, r, http.StatusServiceUnavailable, bodyShutdown)
			}
			return
		}
		w.Header()["Mcp-Session-Id"] = []string{s.ID()}
	}
	if writeRetry(w, reply) {
		return
	}
	if reply.Auth != nil {
		// A refusal is a status and a challenge, whatever the client
		// accepts: an SSE stream would hide it behind a 200.
		status, challenge := h.authFailureChallenge(r, reply.Auth)
		w.Header().Set("WWW-Authenticate", challenge)
		writeJSON(w, status, reply.Body)
		return
	}
	if !p.jsonOK { // the client takes SSE only
		startSSE(w)
		p.sse = newSSEWriter(w)
		p.buf = appendEvent(p.buf[:0], nil, reply.Body)
		p.sse.send(p.buf)
		return
	}
	writeJSON(w, statusFor(reply), reply.Body)
}

// track registers a streaming POST so that Close can cancel it.
func (h *Handler) track(p *postWriter) {
	h.amu.Lock()
	if h.active == nil { // closed
		h.amu.Unlock()
		p.cancelRequest()
		return
	}
	h.active[p] = struct{}{}
	h.amu.Unlock()
	p.tracked = true
}

func (h *Handler) untrack(p *postWriter) {
	h.amu.Lock()
	delete(h.active, p)
	h.amu.Unlock()
}
