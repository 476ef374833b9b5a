package main

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
)

// The relay is the ceiling of any stdio hop: it knows nothing of MCP
// beyond the "id" it must keep apart between callers. Over stdio it copies
// lines both ways, batching writes while more input is buffered; over HTTP
// it gives each POST a fresh id, writes it to the child (the requests of
// concurrent POSTs share their writes) and answers with the child's line
// once it comes back, with the caller's id put back.

// startChild starts the echo server as a stdio child.
func startChild(bin string) (*exec.Cmd, io.WriteCloser, io.ReadCloser) {
	cmd := exec.Command(bin)
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	in, err := cmd.StdinPipe()
	if err != nil {
		fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		fatal(err)
	}
	if err := cmd.Start(); err != nil {
		fatal(err)
	}
	return cmd, in, out
}

// copyLines copies whole lines from r to w, flushing when no more input is
// buffered.
func copyLines(w io.Writer, r io.Reader) {
	br := bufio.NewReaderSize(r, 64<<10)
	bw := bufio.NewWriterSize(w, 64<<10)
	for {
		line, err := br.ReadSlice('\n')
		if len(line) > 0 {
			_, _ = bw.Write(line)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if br.Buffered() == 0 || err != nil {
			if bw.Flush() != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// relayStdio relays the gateway's stdin and stdout to a stdio child.
func relayStdio(bin string) {
	cmd, in, out := startChild(bin)
	done := make(chan struct{})
	go func() {
		copyLines(os.Stdout, out)
		close(done)
	}()
	copyLines(in, os.Stdin)
	_ = in.Close()
	<-done
	_ = cmd.Wait()
}

// httpRelay serves POSTs by relaying them to a stdio child, ids rewritten.
type httpRelay struct {
	in io.Writer

	mu           sync.Mutex
	queue, spare []byte // what goes to the child, written by one caller at a time for all
	writing      bool
	next         int64
	waiting      map[int64]chan []byte
}

func newHTTPRelay(bin string) *httpRelay {
	_, in, out := startChild(bin)
	h := &httpRelay{in: in, waiting: map[int64]chan []byte{}}
	go h.readAnswers(out)
	return h
}

var idKey = []byte(`"id":`)

// idSpan finds the value of the first "id" member in a line (the echo
// server and the load generator write it before any nested object).
func idSpan(b []byte) (int, int) {
	i := bytes.Index(b, idKey)
	if i < 0 {
		return -1, -1
	}
	start := i + len(idKey)
	end := start
	for end < len(b) && b[end] != ',' && b[end] != '}' {
		end++
	}
	return start, end
}

func (h *httpRelay) readAnswers(r io.Reader) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if err != nil {
			return
		}
		s, e := idSpan(line)
		if s < 0 {
			continue
		}
		id, err := strconv.ParseInt(string(line[s:e]), 10, 64)
		if err != nil {
			continue
		}
		h.mu.Lock()
		ch := h.waiting[id]
		delete(h.waiting, id)
		h.mu.Unlock()
		if ch != nil {
			ch <- line
		}
	}
}

func (h *httpRelay) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	s, e := idSpan(body)
	if s < 0 { // a notification
		h.mu.Lock()
		h.queue = append(append(h.queue, bytes.TrimSpace(body)...), '\n')
		if !h.writing {
			_, _ = h.in.Write(h.queue)
			h.queue = h.queue[:0]
		}
		h.mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
		return
	}
	callerID := append([]byte(nil), body[s:e]...)
	ch := make(chan []byte, 1)
	h.mu.Lock()
	h.next++
	id := h.next
	h.waiting[id] = ch
	h.queue = append(h.queue, body[:s]...)
	h.queue = strconv.AppendInt(h.queue, id, 10)
	h.queue = append(h.queue, bytes.TrimSpace(body[e:])...)
	h.queue = append(h.queue, '\n')
	if !h.writing {
		// Group commit: the writer writes what the others queue
		// meanwhile, in one system call each time.
		h.writing = true
		for len(h.queue) > 0 {
			buf := h.queue
			h.queue, h.spare = h.spare[:0], nil
			h.mu.Unlock()
			_, _ = h.in.Write(buf)
			h.mu.Lock()
			h.spare = buf
		}
		h.writing = false
	}
	h.mu.Unlock()
	line := <-ch
	s, e = idSpan(line)
	w.Header().Set("Content-Type", "application/json")
	if sid := r.Header.Get("Mcp-Session-Id"); sid != "" {
		w.Header().Set("Mcp-Session-Id", sid)
	} else if bytes.Contains(body, []byte(`"initialize"`)) {
		w.Header().Set("Mcp-Session-Id", "relay")
	}
	_, _ = w.Write(line[:s])
	_, _ = w.Write(callerID)
	_, _ = w.Write(line[e:])
}
