package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// runStdio measures one stdio configuration: one server process whose
// stdin and stdout all o.conc clients share. Legacy: one initialize and
// notifications/initialized first. A reader goroutine hands each response
// to the client whose id it carries.
func runStdio(ctx context.Context, c config, o options, extra []string, r *runResult) error {
	p, err := startProc(binPath(o.binDir, c.srv.binary()), append(c.srv.args(c.path, ""), extra...), true)
	if err != nil {
		return fmt.Errorf("start: %v", err)
	}
	defer p.stop(2 * time.Second)
	mx := newStdioMux(p.stdin, o.conc+1)
	go mx.readLoop(p.stdout)

	// The probe uses the extra slot o.conc: the legacy handshake, then one
	// verified call. Five seconds at most.
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	probe := mx.client(o.conc, c.path.modern)
	if !c.path.modern {
		if err := probe.initialize(pctx); err != nil {
			return fmt.Errorf("probe: %v%s", err, p.exitNote())
		}
	}
	if _, err := probe.call(pctx); err != nil {
		return fmt.Errorf("probe: %v%s", err, p.exitNote())
	}

	callers := make([]caller, o.conc)
	for i := range callers {
		callers[i] = mx.client(i, c.path.modern)
	}
	r.tally = newErrTally()
	measureCPU(ctx, p, callers, o.dur, r)
	if r.rssKiB, err = p.peakRSS(); err != nil {
		r.tally.add(fmt.Errorf("peak RSS: %v", err))
	}
	return nil
}

// stdioMux multiplexes many clients over one server's stdin and stdout.
// Client i uses ids (i+1)<<32 | seq, so the reader routes a response by
// its id alone.
type stdioMux struct {
	wmu   sync.Mutex
	w     *bufio.Writer
	slots []chan *response // per client; buffered, stale replies dropped

	dead    chan struct{} // closed when the reader stops
	deadErr error
}

func newStdioMux(w io.Writer, n int) *stdioMux {
	m := &stdioMux{w: bufio.NewWriterSize(w, 8<<10), slots: make([]chan *response, n), dead: make(chan struct{})}
	for i := range m.slots {
		m.slots[i] = make(chan *response, 4)
	}
	return m
}

// send writes one message as a line and flushes it.
func (m *stdioMux) send(msg []byte) error {
	m.wmu.Lock()
	defer m.wmu.Unlock()
	m.w.Write(msg)
	m.w.WriteByte('\n')
	return m.w.Flush()
}

// readLoop reads the server's output line by line until it ends, handing
// every response to the client its id names. Notifications, server
// requests and unknown ids are ignored.
func (m *stdioMux) readLoop(r io.Reader) {
	br := bufio.NewReaderSize(r, 64<<10)
	var long []byte
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long, line...)
			continue
		}
		if long != nil {
			line = append(long, line...)
			long = nil
		}
		if len(line) > 1 {
			var msg response
			if json.Unmarshal(line, &msg) == nil && msg.isResponse() {
				if id, ok := msg.idOf(); ok {
					if slot := int(id>>32) - 1; slot >= 0 && slot < len(m.slots) {
						select {
						case m.slots[slot] <- &msg:
						default:
						}
					}
				}
			}
		}
		if err != nil {
			if err == io.EOF {
				err = errors.New("server closed its stdout")
			}
			m.deadErr = err
			close(m.dead)
			return
		}
	}
}

// stdioClient is one client on a stdioMux; its calls are sequential.
type stdioClient struct {
	mx     *stdioMux
	idx    int
	modern bool
	seq    int
	body   []byte
}

func (m *stdioMux) client(idx int, modern bool) *stdioClient {
	return &stdioClient{mx: m, idx: idx, modern: modern, body: make([]byte, 0, 512)}
}

func (c *stdioClient) nextID() int64 {
	c.seq++
	return int64(c.idx+1)<<32 | int64(c.seq)
}

// wait returns the response to id, or an error when ctx ends or the server
// stops first.
func (c *stdioClient) wait(ctx context.Context, id int64) (*response, error) {
	for {
		select {
		case msg := <-c.mx.slots[c.idx]:
			if got, _ := msg.idOf(); got == id {
				return msg, nil
			}
		case <-c.mx.dead:
			return nil, stopErr(c.mx.deadErr)
		case <-ctx.Done():
			return nil, fmt.Errorf("no response to id %d: %v", id, ctx.Err())
		}
	}
}

// initialize runs the legacy handshake for the whole connection.
func (c *stdioClient) initialize(ctx context.Context) error {
	id := c.nextID()
	if err := c.mx.send(initializeBody(id)); err != nil {
		return fmt.Errorf("initialize: %v", err)
	}
	msg, err := c.wait(ctx, id)
	if err != nil {
		return fmt.Errorf("initialize: %v", err)
	}
	if err := msg.checkInitialize(); err != nil {
		return err
	}
	if err := c.mx.send(initializedBody); err != nil {
		return fmt.Errorf("notifications/initialized: %v", err)
	}
	return nil
}

// call sends one tools/call echo and verifies the answer. The latency runs
// from writing the request to the reader handing over its response.
func (c *stdioClient) call(ctx context.Context) (time.Duration, error) {
	id := c.nextID()
	var ts, te int
	c.body, ts, te = appendCall(c.body[:0], id, c.idx, c.seq, c.modern)
	t0 := time.Now()
	if err := c.mx.send(c.body); err != nil {
		return 0, stopErr(fmt.Errorf("write: %v", err))
	}
	msg, err := c.wait(ctx, id)
	d := time.Since(t0)
	if err != nil {
		return 0, err
	}
	if err := msg.check(c.body[ts:te]); err != nil {
		return 0, err
	}
	return d, nil
}
