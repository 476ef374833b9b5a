package plug

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"
)

// appendEvent frames one SSE event: an optional id line, then data lines.
// A line break inside data starts a new data line, so any bytes survive
// the framing.
func appendEvent(b []byte, id []byte, data []byte) []byte {
	if len(id) > 0 {
		b = append(b, "id: "...)
		b = append(b, id...)
		b = append(b, '\n')
	}
	for {
		i := bytes.IndexAny(data, "\r\n")
		if i < 0 {
			break
		}
		b = append(b, "data: "...)
		b = append(b, data[:i]...)
		b = append(b, '\n')
		if data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			i++
		}
		data = data[i+1:]
	}
	b = append(b, "data: "...)
	b = append(b, data...)
	return append(b, "\n\n"...)
}

// appendPriming frames the event that opens a resumable stream: an id the
// client can reconnect with, the reconnection delay, and empty data.
func appendPriming(b []byte, id []byte) []byte {
	b = append(b, "id: "...)
	b = append(b, id...)
	return append(b, "\nretry: 1000\ndata: \n\n"...)
}

// keepAliveFrame is an SSE comment: clients ignore it, proxies see traffic.
var keepAliveFrame = []byte(": keepalive\n\n")

// appendEventID renders the id of event seq of stream n: "<n>-<seq>".
// Stream numbers are unique within a session, so ids are too, and each id
// names its stream.
func appendEventID(b []byte, n, seq uint64) []byte {
	b = strconv.AppendUint(b, n, 10)
	b = append(b, '-')
	return strconv.AppendUint(b, seq, 10)
}

// parseEventID reverses appendEventID.
func parseEventID(s string) (n, seq uint64, ok bool) {
	i := strings.IndexByte(s, '-')
	if i <= 0 {
		return 0, 0, false
	}
	n, err1 := strconv.ParseUint(s[:i], 10, 64)
	seq, err2 := strconv.ParseUint(s[i+1:], 10, 64)
	return n, seq, err1 == nil && err2 == nil
}

// startSSE sends the headers of an SSE response.
func startSSE(w http.ResponseWriter) {
	h := w.Header()
	h["Content-Type"] = hdrSSE
	h["Cache-Control"] = hdrNoCache
	h["X-Accel-Buffering"] = hdrNoBuffer
	delete(h, "Content-Length")
	w.WriteHeader(http.StatusOK)
}

// sseWriter writes frames to one response and flushes them. It is used by
// one goroutine at a time; it remembers the first failure and writes
// nothing after it.
type sseWriter struct {
	w      http.ResponseWriter
	rc     *http.ResponseController
	failed bool
}

func newSSEWriter(w http.ResponseWriter) sseWriter {
	return sseWriter{w: w, rc: http.NewResponseController(w)}
}

// write writes one or more frames without flushing.
func (s *sseWriter) write(frame []byte) bool {
	if s.failed {
		return false
	}
	if _, err := s.w.Write(frame); err != nil {
		s.failed = true
	}
	return !s.failed
}

// flush pushes what was written to the client.
func (s *sseWriter) flush() bool {
	if s.failed {
		return false
	}
	if err := s.rc.Flush(); err != nil {
		s.failed = true
	}
	return !s.failed
}

// send writes a frame and flushes it.
func (s *sseWriter) send(frame []byte) bool { return s.write(frame) && s.flush() }
