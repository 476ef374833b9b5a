package proxy_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/client/memory"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/proxy"
)

// A stdio server's log messages that belong to no call reach the
// 2025-11-25 sessions of a server the proxy is mounted into (a gateway),
// each whose level admits it, and no other session.
func TestProxyPassesLogsOutsideCalls(t *testing.T) {
	t.Parallel()
	up, tr := newStdioServer(t)
	remote, err := client.Connect(t.Context(), tr, client.ForwardQuestions())
	if err != nil {
		t.Fatal(err)
	}
	defer remote.Close()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	p, err := proxy.New(ctx, remote, proxy.ServerOptions(sake.Name("handmade", "1")))
	if err != nil {
		t.Fatal(err)
	}
	gateway := sake.MustNew(nil)
	if err := gateway.Mount("up", p); err != nil {
		t.Fatal(err)
	}
	session := func(level protocol.LogLevel) (*client.Client, chan string) {
		logs := make(chan string, 8)
		c, err := client.Connect(t.Context(), memory.Transport(gateway), client.ProtocolVersion(protocol.LegacyVersion),
			client.OnNotification(func(n protocol.Notification) {
				if n.Method == "notifications/message" {
					logs <- string(n.Params)
				}
			}))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		if level != "" {
			if err := c.SetLogLevel(t.Context(), level); err != nil {
				t.Fatal(err)
			}
		}
		return c, logs
	}
	_, infoLogs := session(protocol.LevelInfo)
	_, errorLogs := session(protocol.LevelError)
	_, noLevel := session("")

	select {
	case <-up.initialized:
	case <-time.After(waitFor):
		t.Fatal("the server was never initialized")
	}
	up.write(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"warning","logger":"handmade","data":"disk nearly full"}}`)
	up.write(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"error","logger":"handmade","data":"disk full"}}`)
	for _, want := range []string{"disk nearly full", "disk full"} {
		select {
		case got := <-infoLogs:
			if !strings.Contains(got, want) || !strings.Contains(got, `"logger":"handmade"`) {
				t.Errorf("the info session got %s, want %q", got, want)
			}
		case <-time.After(waitFor):
			t.Fatalf("the info session never got %q", want)
		}
	}
	select {
	case got := <-errorLogs:
		if !strings.Contains(got, `"data":"disk full"`) {
			t.Errorf("the error session got %s, want the error only", got)
		}
	case <-time.After(waitFor):
		t.Fatal("the error session never got the error")
	}
	// Each message went to every session before the next: the warning
	// has passed the error session and the one without a level by now.
	select {
	case got := <-errorLogs:
		t.Errorf("the error session also got %s", got)
	case got := <-noLevel:
		t.Errorf("a session that set no level got %s", got)
	default:
	}
}

// Over stdio a log message that comes while one forwarded call is in
// flight is that call's: its caller gets it (one that set no level too,
// as directly), and the other sessions do not.
func TestProxyGivesAStdioLogToTheOneCallInFlight(t *testing.T) {
	t.Parallel()
	up, tr := newStdioServer(t)
	remote, err := client.Connect(t.Context(), tr, client.ForwardQuestions())
	if err != nil {
		t.Fatal(err)
	}
	defer remote.Close()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	p, err := proxy.New(ctx, remote)
	if err != nil {
		t.Fatal(err)
	}
	connect := func(level protocol.LogLevel) (*client.Client, chan string) {
		logs := make(chan string, 8)
		c, err := client.Connect(t.Context(), memory.Transport(p), client.ProtocolVersion(protocol.LegacyVersion),
			client.OnNotification(func(n protocol.Notification) {
				if n.Method == "notifications/message" {
					logs <- string(n.Params)
				}
			}))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		if level != "" {
			if err := c.SetLogLevel(t.Context(), level); err != nil {
				t.Fatal(err)
			}
		}
		return c, logs
	}
	caller, callerLogs := connect("")
	_, otherLogs := connect(protocol.LevelDebug)
	done := make(chan error, 1)
	go func() {
		_, err := caller.CallTool(t.Context(), "work", nil)
		done <- err
	}()
	var id []byte
	select {
	case id = <-up.calls:
	case <-time.After(waitFor):
		t.Fatal("the call did not reach the server")
	}
	up.write(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"working on it"}}`)
	up.finish(id, "done")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-callerLogs:
		if !strings.Contains(got, "working on it") {
			t.Errorf("the caller got %s", got)
		}
	default:
		t.Error("the caller did not get its call's log message before the result")
	}
	// A message outside any call goes to the sessions whose level admits
	// it: the other session gets this one, and not the call's before it.
	up.write(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"idle"}}`)
	select {
	case got := <-otherLogs:
		if !strings.Contains(got, "idle") {
			t.Errorf("another session got %s, want only the message outside any call", got)
		}
	case <-time.After(waitFor):
		t.Fatal("the message outside any call did not come")
	}
}
