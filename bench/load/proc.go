package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// proc is a server process started for one run.
type proc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser // stdio paths only
	stdout io.ReadCloser  // stdio paths only
	stderr *headBuffer
	exited chan struct{} // closed when the process has been waited for
	err    error         // the wait error, set before exited is closed
}

// startProc starts bin with args. With pipes, its stdin and stdout are
// connected to the returned proc; otherwise they are /dev/null. The child
// is killed if this process dies (Pdeathsig).
func startProc(bin string, args []string, pipes bool) (*proc, error) {
	cmd := exec.Command(bin, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	p := &proc{cmd: cmd, stderr: &headBuffer{max: 8 << 10}, exited: make(chan struct{})}
	cmd.Stderr = p.stderr
	if pipes {
		var err error
		if p.stdin, err = cmd.StdinPipe(); err != nil {
			return nil, err
		}
		if p.stdout, err = cmd.StdoutPipe(); err != nil {
			return nil, err
		}
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// peakRSS returns the process's peak resident set size (VmHWM) in KiB.
func (p *proc) peakRSS() (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
		}
	}
	return 0, fmt.Errorf("no VmHWM in /proc/%d/status", p.cmd.Process.Pid)
}

// cpuTime returns the CPU time (user and system) the process has used so
// far, from /proc/<pid>/stat, at the clock tick's resolution (10 ms).
func (p *proc) cpuTime() (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	// The command name may hold spaces: the fields follow its closing ')'.
	i := bytes.LastIndexByte(b, ')')
	f := strings.Fields(string(b[i+1:]))
	if i < 0 || len(f) < 13 {
		return 0, fmt.Errorf("cannot parse /proc/%d/stat", p.cmd.Process.Pid)
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64) // field 14 of the line
	stime, err2 := strconv.ParseInt(f[12], 10, 64) // field 15
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("cannot parse /proc/%d/stat", p.cmd.Process.Pid)
	}
	const tick = 10 * time.Millisecond // USER_HZ is 100 on Linux
	return time.Duration(utime+stime) * tick, nil
}

// measureCPU runs measure and sets r.cpuPerCall to the server's CPU time
// over the measured window divided by the verified results.
func measureCPU(ctx context.Context, p *proc, callers []caller, dur time.Duration, r *runResult) {
	before, err := p.cpuTime()
	measure(ctx, callers, dur, r)
	if after, err2 := p.cpuTime(); err == nil && err2 == nil && r.ok > 0 {
		r.cpuPerCall = (after - before) / time.Duration(r.ok)
	}
}

// stop ends the process: it closes stdin (the stdio way to ask a server to
// exit), sends SIGTERM, and after grace sends SIGKILL. It returns once the
// process has been waited for.
func (p *proc) stop(grace time.Duration) {
	if p.stdin != nil {
		_ = p.stdin.Close()
	}
	select {
	case <-p.exited:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(grace):
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
}

// exitNote says, when the process has exited (or does within half a
// second: a failure is often seen on its pipes before it is reaped), how it
// ended and what it wrote to stderr; otherwise it returns "".
func (p *proc) exitNote() string {
	select {
	case <-p.exited:
		return fmt.Sprintf(" (server exited: %v)%s", p.err, p.stderrTail())
	case <-time.After(500 * time.Millisecond):
		return p.stderrTail()
	}
}

// stderrTail returns what the process wrote to stderr (its first 8 KiB),
// shortened for a one-line report.
func (p *proc) stderrTail() string {
	s := strings.TrimSpace(p.stderr.String())
	if s == "" {
		return ""
	}
	return " (stderr: " + short(s, 300) + ")"
}

// headBuffer keeps the first max bytes written to it and drops the rest.
type headBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
	max int
}

func (h *headBuffer) Write(b []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if room := h.max - h.buf.Len(); room > 0 {
		h.buf.Write(b[:min(room, len(b))])
	}
	return len(b), nil
}

func (h *headBuffer) String() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.buf.String()
}

// short returns s on one line, cut to at most n bytes.
func short(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}
