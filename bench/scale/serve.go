package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Each library's servers run in a process of their own (this binary
// started with -serve NAME), so that what is measured is the server's CPU
// time alone: the load generator, its HTTP client and its checks run in
// the parent process and are not counted. The parent talks to a server
// process over its stdin and stdout, one line per command:
//
//	cpu      -> the process's CPU time so far, in nanoseconds
//	gc       -> runs the garbage collector; "ok"
//	reg N    -> builds servers with N tools (the registration row), one
//	            after the other for at least 20 ms, and answers how many
//
// On start the process writes one line of JSON: the URL of every handler
// (one loopback listener each, per tool count and era). It exits when its
// stdin ends, writing its CPU profile if asked for one.

// served is where one server (one tool count) answers in each era.
type served struct {
	Legacy string `json:"legacy"`
	Modern string `json:"modern"`
}

// serve is the server process's main: it builds peer's servers for every
// count, serves them and answers commands until stdin ends.
func serve(name string, counts []int, cpuprofile string) error {
	var p *peer
	for i := range peers {
		if peers[i].name == name {
			p = &peers[i]
		}
	}
	if p == nil {
		return fmt.Errorf("no server named %q", name)
	}
	if cpuprofile != "" {
		f, err := os.Create(cpuprofile)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer func() {
			pprof.StopCPUProfile()
			_ = f.Close()
		}()
	}
	urls := map[int]served{}
	for _, n := range counts {
		l, m := p.build(n)
		lu, err := listen(l)
		if err != nil {
			return err
		}
		mu, err := listen(m)
		if err != nil {
			return err
		}
		urls[n] = served{lu, mu}
	}
	out := bufio.NewWriter(os.Stdout)
	hello, err := json.Marshal(urls)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%s\n", hello)
	if err := out.Flush(); err != nil {
		return err
	}
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		cmd, arg, _ := strings.Cut(in.Text(), " ")
		switch cmd {
		case "cpu":
			fmt.Fprintf(out, "%d\n", cpuTime().Nanoseconds())
		case "gc":
			runtime.GC()
			fmt.Fprintln(out, "ok")
		case "reg":
			n, err := strconv.Atoi(arg)
			if err != nil {
				return fmt.Errorf("reg: %v", err)
			}
			k := 0
			for start := time.Now(); k == 0 || time.Since(start) < 20*time.Millisecond; k++ {
				p.register(n)
			}
			fmt.Fprintln(out, k)
		default:
			return fmt.Errorf("unknown command %q", in.Text())
		}
		if err := out.Flush(); err != nil {
			return err
		}
	}
	return in.Err()
}

// listen serves h on a new loopback listener and returns its URL.
func listen(h http.Handler) (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	return "http://" + ln.Addr().String(), nil
}

// cpuTime is the CPU time (user and system) this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// server is a server process seen from the load generator.
type server struct {
	name string
	urls map[int]served
	cmd  *os.Process
	in   io.WriteCloser
	out  *bufio.Reader
}

// startServer starts this binary as the server process of peer name.
func startServer(name string, counts, cpuprofile string, procs int) (*server, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	args := []string{"-serve", name, "-counts", counts}
	if cpuprofile != "" {
		args = append(args, "-cpuprofile", cpuprofile+"."+name)
	}
	pr, pw, err := os.Pipe() // the server's stdout
	if err != nil {
		return nil, err
	}
	ir, iw, err := os.Pipe() // the server's stdin
	if err != nil {
		return nil, err
	}
	env := os.Environ()
	if procs > 0 {
		env = append(env, "GOMAXPROCS="+strconv.Itoa(procs))
	}
	proc, err := os.StartProcess(self, append([]string{self}, args...), &os.ProcAttr{
		Env:   env,
		Files: []*os.File{ir, pw, os.Stderr},
		Sys:   &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL},
	})
	_ = ir.Close()
	_ = pw.Close()
	if err != nil {
		_ = pr.Close()
		_ = iw.Close()
		return nil, err
	}
	s := &server{name: name, cmd: proc, in: iw, out: bufio.NewReader(pr)}
	line, err := s.out.ReadBytes('\n')
	if err == nil {
		err = json.Unmarshal(line, &s.urls)
	}
	if err != nil {
		s.stop()
		return nil, fmt.Errorf("server %s did not start: %v", name, err)
	}
	return s, nil
}

// ask sends one command and returns the answer line.
func (s *server) ask(cmd string) (string, error) {
	if _, err := io.WriteString(s.in, cmd+"\n"); err != nil {
		return "", fmt.Errorf("server %s: %v", s.name, err)
	}
	line, err := s.out.ReadString('\n')
	if err != nil {
		return "", fmt.Errorf("server %s: %s: %v", s.name, cmd, err)
	}
	return strings.TrimSpace(line), nil
}

// cpu is the server process's CPU time so far.
func (s *server) cpu() (time.Duration, error) {
	a, err := s.ask("cpu")
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(a, 10, 64)
	return time.Duration(n), err
}

// stop ends the server process (it exits when its stdin ends, after
// writing its profile) and waits for it.
func (s *server) stop() {
	_ = s.in.Close()
	done := make(chan struct{})
	go func() {
		_, _ = s.cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Kill()
		<-done
	}
}
