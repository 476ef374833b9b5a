package stdio_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/stdio"
)

// holdTools has a tool that reports progress, then runs until cancelled.
type holdTools struct{}

func (holdTools) Hold(ctx *sake.Context) (string, error) {
	ctx.Progress(1, 0, "holding")
	<-ctx.Done()
	return "", ctx.Err()
}

func (holdTools) Echo(ctx *sake.Context, a echoArgs) (string, error) { return a.Text, nil }

// Exit codes of the helper process.
const (
	exitNil   = 7
	exitError = 8
)

// TestHelperServeStdio is the server process the TestServeStdio tests
// start: the test binary itself, running ServeStdio.
func TestHelperServeStdio(t *testing.T) {
	if os.Getenv("SAKE_STDIO_HELPER") != "1" {
		t.Skip("the server process of TestServeStdio")
	}
	err := stdio.ServeStdio(newServer(t, holdTools{}))
	fmt.Fprintf(os.Stderr, "ServeStdio: %v\n", err)
	if err != nil {
		os.Exit(exitError)
	}
	os.Exit(exitNil)
}

type process struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	outR   io.ReadCloser
	out    *bufio.Reader
	stderr strings.Builder
}

func startProcess(t *testing.T) *process {
	t.Helper()
	if runtime.GOOS == "windows" || runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		t.Skip("needs processes and signals")
	}
	p := &process{cmd: exec.Command(os.Args[0], "-test.run=^TestHelperServeStdio$")}
	p.cmd.Env = append(os.Environ(), "SAKE_STDIO_HELPER=1")
	p.cmd.Stderr = &p.stderr
	var err error
	if p.in, err = p.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if p.outR, err = p.cmd.StdoutPipe(); err != nil {
		t.Fatal(err)
	}
	p.out = bufio.NewReader(p.outR)
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	kill := time.AfterFunc(30*time.Second, func() { p.cmd.Process.Kill() })
	t.Cleanup(func() { kill.Stop() })
	return p
}

func (p *process) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		t.Fatal(err)
	}
}

func (p *process) recv(t *testing.T) message {
	t.Helper()
	l, err := p.out.ReadString('\n')
	if err != nil {
		t.Fatalf("reading the server's output: %v (stderr: %s)", err, p.stderr.String())
	}
	var m message
	if err := json.Unmarshal([]byte(l), &m); err != nil {
		t.Fatalf("not JSON on stdout: %q", l)
	}
	m.raw = l
	return m
}

// wait returns the exit code, and the rest of stdout.
func (p *process) wait(t *testing.T) (int, string) {
	t.Helper()
	rest, _ := io.ReadAll(p.out)
	err := p.cmd.Wait()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return p.cmd.ProcessState.ExitCode(), string(rest)
}

func TestServeStdio(t *testing.T) {
	t.Run("eof", func(t *testing.T) {
		p := startProcess(t)
		p.send(t, call(1, "echo", `{"text":"hi"}`, ""))
		if got := p.recv(t).text(t); got != "hi" {
			t.Errorf("text = %q", got)
		}
		p.in.Close()
		if code, rest := p.wait(t); code != exitNil || rest != "" {
			t.Errorf("exit %d, stdout %q, stderr %s", code, rest, p.stderr.String())
		}
	})
	t.Run("sigterm", func(t *testing.T) {
		p := startProcess(t)
		p.send(t, call(1, "hold", "", `"progressToken":1`))
		if m := p.recv(t); m.Method != "notifications/progress" {
			t.Fatalf("want progress, got %s", m.raw)
		}
		// The tool is running; stdin stays open.
		if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if code, rest := p.wait(t); code != exitNil || rest != "" {
			t.Errorf("exit %d, stdout %q, stderr %s", code, rest, p.stderr.String())
		}
	})
	t.Run("stdout closed", func(t *testing.T) {
		p := startProcess(t)
		p.send(t, call(1, "echo", `{"text":"hi"}`, ""))
		p.recv(t)
		p.outR.Close()
		p.send(t, call(2, "echo", `{"text":"nobody reads this"}`, ""))
		code, _ := p.wait(t)
		if code != exitError || !strings.Contains(p.stderr.String(), "broken pipe") {
			t.Errorf("exit %d, stderr %s", code, p.stderr.String())
		}
	})
}
