package client_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/stdio"
)

// TestMain doubles as a stdio server process for the command tests.
func TestMain(m *testing.M) {
	if os.Getenv("SAKE_CLIENT_TEST_SERVER") == "1" {
		fmt.Fprintln(os.Stderr, "kit server starting")
		srv := sake.MustNew(newKit())
		if err := stdio.ServeStdio(srv); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	// The tests' clients use http.DefaultClient (client.HTTP with a nil
	// client). Every httptest.Server.Close closes the idle connections of
	// http.DefaultTransport, which breaks a POST of a parallel test that has
	// just picked one ("CloseIdleConnections called"): give DefaultClient a
	// transport of its own.
	http.DefaultClient.Transport = http.DefaultTransport.(*http.Transport).Clone()
	os.Exit(m.Run())
}

// lines is a slog handler that keeps the messages' line attributes.
type lines struct {
	mu  sync.Mutex
	got []string
}

func (l *lines) Enabled(context.Context, slog.Level) bool { return true }
func (l *lines) Handle(_ context.Context, r slog.Record) error {
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "line" {
			l.mu.Lock()
			l.got = append(l.got, a.Value.String())
			l.mu.Unlock()
		}
		return true
	})
	return nil
}
func (l *lines) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *lines) WithGroup(string) slog.Handler      { return l }

func TestCommand(t *testing.T) {
	for _, e := range eras {
		t.Run(e.Name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "SAKE_CLIENT_TEST_SERVER=1")
			logs := &lines{}
			c, err := client.Connect(t.Context(), client.Command(cmd), append(e.Opts, client.Logger(slog.New(logs)))...)
			if err != nil {
				t.Fatal(err)
			}
			if c.Era() != e.Want {
				t.Fatalf("era = %v", c.Era())
			}
			res, err := c.CallTool(t.Context(), "echo", map[string]string{"text": "from a process"})
			if err != nil || res.Text() != "from a process" {
				t.Fatalf("echo = %v, %v", res, err)
			}
			if err := c.Close(); err != nil {
				t.Fatalf("close: %v", err)
			}
			if cmd.ProcessState == nil || !cmd.ProcessState.Exited() {
				t.Fatalf("the process is still running: %v", cmd.ProcessState)
			}
			logs.mu.Lock()
			defer logs.mu.Unlock()
			if !strings.Contains(strings.Join(logs.got, "\n"), "kit server starting") {
				t.Fatalf("stderr lines = %q", logs.got)
			}
		})
	}
}

func TestCommandThatFailsToStart(t *testing.T) {
	t.Parallel()
	_, err := client.Connect(t.Context(), client.Command(exec.Command("/nonexistent/server")))
	if err == nil || !strings.Contains(err.Error(), "starting the server") {
		t.Fatalf("err = %v", err)
	}
}

func TestCommandThatExits(t *testing.T) {
	t.Parallel()
	_, err := client.Connect(t.Context(), client.Command(exec.Command("true")))
	if err == nil || !(strings.Contains(err.Error(), "closed its output") || strings.Contains(err.Error(), "writing to the server")) {
		t.Fatalf("err = %v", err)
	}
}
