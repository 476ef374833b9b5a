package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// runHTTP measures one Streamable HTTP configuration: it starts the server
// on a free loopback port, probes it with one client, sets up o.conc
// clients (legacy: one session each) and measures them.
func runHTTP(ctx context.Context, c config, o options, extra []string, r *runResult) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	p, err := startProc(binPath(o.binDir, c.srv.binary()), append(c.srv.args(c.path, addr), extra...), false)
	if err != nil {
		return fmt.Errorf("start: %v", err)
	}
	defer p.stop(2 * time.Second)
	if err := waitListening(ctx, addr, p); err != nil {
		return err
	}

	tr := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 2 * time.Second}).DialContext,
		MaxIdleConns:        2*o.conc + 8,
		MaxIdleConnsPerHost: 2*o.conc + 8,
		IdleConnTimeout:     30 * time.Second,
		DisableCompression:  true,
	}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}
	url := "http://" + addr + "/mcp"

	// The probe: one client's setup and one verified call.
	probe := newHTTPClient(hc, url, o.conc, c.path)
	if err := probe.setup(ctx); err != nil {
		return fmt.Errorf("probe: %v%s", err, p.exitNote())
	}
	if _, err := probe.call(ctx); err != nil {
		return fmt.Errorf("probe: %v%s", err, p.exitNote())
	}

	r.tally = newErrTally()
	clients := make([]*httpClient, o.conc)
	setupErr := make([]error, o.conc)
	var wg sync.WaitGroup
	for i := range clients {
		clients[i] = newHTTPClient(hc, url, i, c.path)
		wg.Add(1)
		go func() {
			defer wg.Done()
			setupErr[i] = clients[i].setup(ctx)
		}()
	}
	wg.Wait()
	var callers []caller
	for i, cl := range clients {
		if setupErr[i] != nil {
			r.errs++
			r.tally.add(setupErr[i])
			continue
		}
		callers = append(callers, cl)
	}
	if len(callers) == 0 {
		return fmt.Errorf("no client could set up: %v", setupErr[0])
	}
	o.pg.around(c, r, func() { measureCPU(ctx, p, callers, o.dur, r) })
	for _, cl := range clients {
		r.polls += cl.polls
	}
	if r.rssKiB, err = p.peakRSS(); err != nil {
		r.tally.add(fmt.Errorf("peak RSS: %v", err))
	}
	return nil
}

// freePort returns a loopback TCP port that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// waitListening waits until addr accepts TCP connections, for at most 5
// seconds, failing early when the process exits.
func waitListening(ctx context.Context, addr string, p *proc) error {
	deadline := time.Now().Add(5 * time.Second)
	for {
		conn, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			conn.Close()
			return nil
		}
		select {
		case <-p.exited:
			return fmt.Errorf("server exited before listening: %v%s", p.err, p.stderrTail())
		case <-ctx.Done():
			return fmt.Errorf("server not listening: %v", ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("server not listening on %s after 5s%s", addr, p.stderrTail())
		}
	}
}

// httpClient is one benchmark client on Streamable HTTP. Its calls are
// sequential; its buffers are reused from call to call.
type httpClient struct {
	hc     *http.Client
	url    string
	idx    int
	modern bool
	tasks  bool
	hdr    http.Header // the headers of every tools/call POST
	getHdr http.Header // the headers of tasks/get and tasks/result (tasks workload)
	polls  int64       // tasks/get requests sent (tasks workload)
	seq    int
	body   []byte
	resp   bytes.Buffer
}

func newHTTPClient(hc *http.Client, url string, idx int, p pathSpec) *httpClient {
	modern := p.modern
	hdr := http.Header{}
	hdr.Set("Content-Type", "application/json")
	hdr.Set("Accept", "application/json, text/event-stream")
	if modern {
		hdr.Set("MCP-Protocol-Version", modernVersion)
		hdr.Set("Mcp-Method", "tools/call")
		hdr.Set("Mcp-Name", toolName(p.tasks))
	}
	return &httpClient{hc: hc, url: url, idx: idx, modern: modern, tasks: p.tasks, hdr: hdr, getHdr: hdr.Clone(), body: make([]byte, 0, 512)}
}

// setup runs the legacy handshake: initialize (keeping the session id the
// server issues, if any) and notifications/initialized. Modern clients
// have nothing to set up.
func (c *httpClient) setup(ctx context.Context) error {
	if c.modern {
		return nil
	}
	init := http.Header{}
	init.Set("Content-Type", "application/json")
	init.Set("Accept", "application/json, text/event-stream")
	resp, body, err := c.post(ctx, initializeBody(1), init)
	if err != nil {
		return fmt.Errorf("initialize: %v", err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("initialize: HTTP %d: %s", resp.StatusCode, short(string(body), 300))
	}
	m, err := findResponse(body, isSSE(resp), 1)
	if err != nil {
		return fmt.Errorf("initialize: %v", err)
	}
	if err := m.checkInitialize(); err != nil {
		return err
	}
	c.hdr.Set("MCP-Protocol-Version", legacyVersion)
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		c.hdr.Set("Mcp-Session-Id", sid)
	}
	c.getHdr = c.hdr.Clone()
	resp, body, err = c.post(ctx, initializedBody, c.hdr)
	if err != nil {
		return fmt.Errorf("notifications/initialized: %v", err)
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("notifications/initialized: HTTP %d: %s", resp.StatusCode, short(string(body), 300))
	}
	c.seq = 1 // ids 1.. were used by the handshake
	return nil
}

// call sends one tools/call echo and verifies the answer. The latency runs
// from sending the request to having read the whole response body.
func (c *httpClient) call(ctx context.Context) (time.Duration, error) {
	if c.tasks {
		return c.callTask(ctx)
	}
	c.seq++
	id := int64(c.seq)
	var ts, te int
	c.body, ts, te = appendCall(c.body[:0], id, c.idx, c.seq, c.modern)
	t0 := time.Now()
	resp, body, err := c.post(ctx, c.body, c.hdr)
	d := time.Since(t0)
	if err != nil {
		return 0, err
	}
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("HTTP %d (%s): %s", resp.StatusCode, resp.Header.Get("Content-Type"), short(string(body), 300))
	}
	if err := verifyBody(body, isSSE(resp), id, c.body[ts:te]); err != nil {
		return 0, err
	}
	return d, nil
}

// post sends body with headers hdr and reads the whole response into the
// client's buffer, which the returned slice aliases until the next post.
func (c *httpClient) post(ctx context.Context, body []byte, hdr http.Header) (*http.Response, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	req.Header = hdr // read-only for the transport; reused by this client only
	resp, err := c.hc.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, nil, errors.New("request still running at the run's deadline")
		}
		return nil, nil, stopErr(err)
	}
	defer resp.Body.Close()
	c.resp.Reset()
	if _, err := c.resp.ReadFrom(resp.Body); err != nil {
		return nil, nil, fmt.Errorf("reading body: %v", err)
	}
	return resp, c.resp.Bytes(), nil
}

func isSSE(resp *http.Response) bool {
	return strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream")
}
