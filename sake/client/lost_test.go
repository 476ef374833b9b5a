package client_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake/client"
)

// TestCommandLostOnExit: the exit of a command's server is known at once
// (Lost), with its exit status, not at the next request.
func TestCommandLostOnExit(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "SAKE_CLIENT_TEST_SERVER=1")
	c, err := client.Connect(t.Context(), client.Command(cmd))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	select {
	case <-c.Lost():
		t.Fatal("Lost is closed while the server runs")
	default:
	}
	if err := c.LostErr(); err != nil {
		t.Fatalf("LostErr while the server runs = %v", err)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.Lost():
	case <-time.After(20 * time.Second):
		t.Fatal("the server's exit was not noticed")
	}
	if err := c.LostErr(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Errorf("LostErr = %v; want the exit status", err)
	}
	if _, err := c.ListTools(t.Context()); err == nil {
		t.Error("a request to a server that exited succeeded")
	}
}
