package sake_test

import (
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// TestPassLog: a passed-on log message reaches a handshake-era session
// that set no level (a message of the server's own does not); a level
// that was set, and the 2026-07-28 era's opt-in, are respected.
func TestPassLog(t *testing.T) {
	t.Parallel()
	srv := sake.MustNew(nil)
	if err := srv.AddTool(sake.NewTool("relay", func(c *sake.Context) (string, error) {
		c.Log(sake.LevelInfo, "own", "the server's own")
		c.PassLog(sake.LevelInfo, "remote", "passed on")
		return "ok", nil
	})); err != nil {
		t.Fatal(err)
	}
	got := func(c *saketest.Client) (own, passed int) {
		for _, n := range c.Notifications() {
			switch {
			case n.Method != "notifications/message":
			case strings.Contains(string(n.Params), "the server's own"):
				own++
			case strings.Contains(string(n.Params), "passed on"):
				passed++
			}
		}
		return
	}
	for _, tc := range []struct {
		name        string
		opts        []saketest.Option
		level       sake.LogLevel
		own, passed int
	}{
		{"legacy, no level", []saketest.Option{saketest.Legacy()}, "", 0, 1},
		{"legacy, level error", []saketest.Option{saketest.Legacy()}, sake.LevelError, 0, 0},
		{"legacy, level debug", []saketest.Option{saketest.Legacy()}, sake.LevelDebug, 1, 1},
		{"modern, no level", nil, "", 0, 0},
		{"modern, level info", []saketest.Option{saketest.LogLevel(sake.LevelInfo)}, "", 1, 1},
	} {
		c := saketest.Connect(t, srv, tc.opts...)
		if tc.level != "" {
			if err := c.SetLogLevel(tc.level); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := c.CallTool("relay", nil); err != nil {
			t.Fatal(err)
		}
		if own, passed := got(c); own != tc.own || passed != tc.passed {
			t.Errorf("%s: %d own and %d passed-on messages; want %d and %d", tc.name, own, passed, tc.own, tc.passed)
		}
	}
}
