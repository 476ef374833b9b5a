//go:build !windows

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"syscall"
	"testing"
)

// TestGatewayCommandReloadsOnSIGHUP: without -watch, SIGHUP reloads the
// file: an entry set "disabled" leaves, with no restart of the process.
func TestGatewayCommandReloadsOnSIGHUP(t *testing.T) {
	cmd := fixtureCommand(t)
	config := gatewayConfig(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	base, _, exited, logs := startGatewayCommandLogs(t, ctx, "-config", config, "-http", "127.0.0.1:0", "-log-format", "json", "-watch=false")
	servers := func() []string {
		t.Helper()
		resp, err := http.Get(base + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body struct{ Servers []struct{ Key string } }
		if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, s := range body.Servers {
			keys = append(keys, s.Key)
		}
		return keys
	}
	if got := servers(); len(got) != 1 {
		t.Fatalf("servers before = %v", got)
	}
	both := fmt.Sprintf(`{"mcpServers": {"fixture": {"command": %q, "args": [%q], "env": {%q: "1"}, "required": true},
		"again": {"command": %q, "args": [%q], "env": {%q: "1"}}}}`, cmd[0], cmd[1], serveEnv, cmd[0], cmd[1], serveEnv)
	if err := os.WriteFile(config, []byte(both), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	for msg := range logs {
		if msg == "gateway: configuration applied" {
			break
		}
		if msg == "gateway: configuration refused; the gateway serves the previous one" {
			t.Fatal(msg)
		}
	}
	if got := servers(); len(got) != 2 || got[0] != "again" {
		t.Fatalf("servers after SIGHUP = %v", got)
	}
	cancel()
	if code := <-exited; code != exitOK {
		t.Errorf("exit code %d", code)
	}
}
