package proxy_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/plug"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/proxy"
)

// waitFor bounds a wait on something that never comes when the code is
// wrong: the test fails instead of hanging.
const waitFor = 20 * time.Second

// serveProxyOf serves the proxy of remote over HTTP and returns its URL.
func serveProxyOf(t *testing.T, remote *client.Client) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := proxy.New(ctx, remote)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	ph := plug.New(srv)
	ts := httptest.NewServer(ph)
	t.Cleanup(func() { ts.Close(); ph.Close(); cancel() })
	return ts.URL
}

// pyRemote connects a forwarding client to srv behind w.
func pyRemote(t *testing.T, w *pyWire, srv *sake.Server) *client.Client {
	t.Helper()
	remote, err := client.Connect(t.Context(), w.Transport(t, srv), client.ForwardQuestions())
	if err != nil {
		t.Fatalf("connect to the upstream server: %v", err)
	}
	t.Cleanup(func() { remote.Close() })
	return remote
}

// A proxy with ForwardQuestions fronts a server that answers as the
// Python SDK 1.x does: no logging capability, logging/setLevel unknown.
func TestProxyFrontsAServerWithoutLogging(t *testing.T) {
	t.Parallel()
	srv, _ := newKitServer(t)
	w := &pyWire{}
	remote := pyRemote(t, w, srv)
	if info := remote.Info(); info.Era != sake.EraLegacy || info.ProtocolVersion != "2025-06-18" {
		t.Fatalf("upstream info = %+v", info)
	}
	url := serveProxyOf(t, remote)
	for _, e := range eras {
		t.Run(e.Name, func(t *testing.T) {
			local, err := client.Connect(t.Context(), client.HTTP(url, nil), e.Opts...)
			if err != nil {
				t.Fatal(err)
			}
			defer local.Close()
			if res, err := local.CallTool(t.Context(), "echo", map[string]string{"text": "through"}); err != nil || res.Text() != "through" {
				t.Fatalf("echo = %v, %v", res, err)
			}
			if contents, err := local.ReadResource(t.Context(), "kit://readme"); err != nil || contents[0].Text != "read me" {
				t.Fatalf("read = %+v, %v", contents, err)
			}
			if p, err := local.GetPrompt(t.Context(), "greet", map[string]string{"who": "Lin"}); err != nil || p.Text() != "Hello, Lin" {
				t.Fatalf("prompt = %+v, %v", p, err)
			}
		})
	}
	if n := w.Sent("logging/setLevel"); n != 0 {
		t.Errorf("logging/setLevel sent %d times to a server without logging", n)
	}
}

// Over stdio a handshake-era server's request names no call: with one
// forwarded call in flight it is that call's, and its caller is asked,
// except for roots/list, which is the shared session's and refused.
func TestProxyQuestionsOfAStdioSession(t *testing.T) {
	t.Parallel()
	srv, _ := newKitServer(t)
	url := serveProxyOf(t, pyRemote(t, &pyWire{}, srv))
	for _, e := range eras {
		t.Run(e.Name, func(t *testing.T) {
			var mu sync.Mutex
			var asked []string
			local, err := client.Connect(t.Context(), client.HTTP(url, nil), append(e.Opts, askOptions(&asked, &mu)...)...)
			if err != nil {
				t.Fatal(err)
			}
			defer local.Close()
			if _, err := local.CallTool(t.Context(), "ask", nil); err == nil || !strings.Contains(err.Error(), "roots/list") {
				t.Fatalf("ask through the proxy = %v, want its roots question refused", err)
			}
			mu.Lock()
			defer mu.Unlock()
			if !slices.Contains(asked, "elicit form Your name?") || !slices.Contains(asked, "sample") {
				t.Fatalf("the caller was asked %v", asked)
			}
		})
	}
}

// With two forwarded calls in flight over stdio, a server's request could
// be either's: it is refused, and nobody is asked.
func TestProxyRefusesQuestionsOfSeveralStdioCalls(t *testing.T) {
	t.Parallel()
	srv, k := newKitServer(t)
	url := serveProxyOf(t, pyRemote(t, &pyWire{}, srv))
	var mu sync.Mutex
	var asked []string
	local, err := client.Connect(t.Context(), client.HTTP(url, nil), append([]client.Option{client.ProtocolVersion(protocol.LegacyVersion)}, askOptions(&asked, &mu)...)...)
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	slowCtx, stopSlow := context.WithCancel(t.Context())
	slowDone := make(chan error, 1)
	go func() {
		_, err := local.CallTool(slowCtx, "slow", nil)
		slowDone <- err
	}()
	select {
	case <-k.Started:
	case <-time.After(waitFor):
		t.Fatal("the slow call did not reach the upstream server")
	}
	_, err = local.CallTool(t.Context(), "ask", nil)
	stopSlow()
	<-slowDone
	if err == nil {
		t.Fatal("ask succeeded while another forwarded call ran")
	}
	if !strings.Contains(err.Error(), "outside any forwarded call") {
		t.Errorf("err = %v, want the refusal named", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 0 {
		t.Errorf("the caller was asked %v", asked)
	}
}

// A remote server without resources.subscribe is sent no
// resources/subscribe, and the proxy follows its list changes all the
// same.
func TestProxyFollowsListsWithoutResourceSubscriptions(t *testing.T) {
	t.Parallel()
	srv, _ := newKitServer(t)
	w := &pyWire{}
	url := serveProxyOf(t, pyRemote(t, w, srv))
	local, err := client.Connect(t.Context(), client.HTTP(url, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	waitToolGone(t, local, func() { srv.RemoveTool("echo") }, "echo")
	if n := w.Sent("resources/subscribe"); n != 0 {
		t.Errorf("resources/subscribe sent %d times to a server without resources.subscribe", n)
	}
}

// A refused resource subscription ends neither the others nor the
// following of the lists.
func TestProxyOutlivesARefusedSubscription(t *testing.T) {
	t.Parallel()
	srv, _ := newKitServer(t)
	if err := srv.AddResource(sake.NewResource("kit://notes", func(*sake.Context) (string, error) { return "notes", nil }).Name("notes")); err != nil {
		t.Fatal(err)
	}
	w := &pyWire{Subscribe: true, Refuse: []string{"kit://readme"}}
	url := serveProxyOf(t, pyRemote(t, w, srv))
	local, err := client.Connect(t.Context(), client.HTTP(url, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	updated := make(chan string, 4)
	sub, err := local.Listen(t.Context(), client.Filter{Resources: []string{"kit://notes"}}, func(n protocol.Notification) {
		var u struct {
			URI string `json:"uri"`
		}
		if n.Method == "notifications/resources/updated" && json.Unmarshal(n.Params, &u) == nil {
			updated <- u.URI
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	srv.ResourceUpdated("kit://notes")
	select {
	case uri := <-updated:
		if uri != "kit://notes" {
			t.Fatalf("updated %q", uri)
		}
	case <-time.After(waitFor):
		t.Fatal("the update of a subscribed resource did not pass the proxy")
	}
	waitToolGone(t, local, func() { srv.RemoveTool("echo") }, "echo")
	if n := w.Sent("resources/subscribe"); n != 2 {
		t.Errorf("resources/subscribe sent %d times, want one per resource", n)
	}
}

// waitToolGone runs change and waits until the proxy's list, as local
// lists it, has none of names.
func waitToolGone(t *testing.T, local *client.Client, change func(), names ...string) {
	t.Helper()
	changed := make(chan struct{}, 1)
	sub, err := local.Listen(t.Context(), client.Filter{ToolsListChanged: true}, func(protocol.Notification) {
		select {
		case changed <- struct{}{}:
		default:
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	change()
	deadline := time.After(waitFor)
	for {
		select {
		case <-changed:
		case <-deadline:
			t.Fatal("the proxy did not follow the upstream tool list")
		}
		tools, err := local.ListTools(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(tools, func(ti protocol.ToolInfo) bool { return slices.Contains(names, ti.Name) }) {
			return
		}
	}
}

// The log messages of a forwarded call reach its caller, whatever era the
// remote server speaks, over every transport that tells a call's messages
// apart (over stdio, a session's log messages name no call).
func TestProxyForwardsLogsOfACall(t *testing.T) {
	t.Parallel()
	for _, tr := range transports {
		for _, re := range eras {
			if tr.Name == "stdio" && re.Want == sake.EraLegacy {
				continue
			}
			for _, le := range eras {
				t.Run(tr.Name+"/remote "+re.Name+"/local "+le.Name, func(t *testing.T) {
					t.Parallel()
					srv, _ := newKitServer(t)
					remote := connect(t, tr, srv, append(re.Opts, client.ForwardQuestions())...)
					url := serveProxyOf(t, remote)
					logs := make(chan string, 8)
					local, err := client.Connect(t.Context(), client.HTTP(url, nil), append(le.Opts, client.LogLevel(sake.LevelInfo),
						client.OnNotification(func(n protocol.Notification) {
							if n.Method == "notifications/message" {
								logs <- string(n.Params)
							}
						}))...)
					if err != nil {
						t.Fatal(err)
					}
					defer local.Close()
					if res, err := local.CallTool(t.Context(), "report", nil); err != nil || res.Text() != "reported" {
						t.Fatalf("report = %v, %v", res, err)
					}
					select {
					case m := <-logs:
						if !strings.Contains(m, `"reported"`) || !strings.Contains(m, `"info"`) {
							t.Errorf("log message %s", m)
						}
					default:
						t.Fatal("the call's log message did not reach its caller")
					}
				})
			}
		}
	}
}

// A session's update of a resource under two subscribed ones (kit://dir
// and kit://dir/file) reaches the proxy's callers once.
func TestProxyPassesAnUpdateOnce(t *testing.T) {
	t.Parallel()
	srv, _ := newKitServer(t)
	for _, uri := range []string{"kit://dir", "kit://dir/file", "kit://last"} {
		if err := srv.AddResource(sake.NewResource(uri, func(*sake.Context) (string, error) { return "x", nil }).Name(uri)); err != nil {
			t.Fatal(err)
		}
	}
	url := serveProxyOf(t, connect(t, transports[0], srv, client.ProtocolVersion(protocol.LegacyVersion), client.ForwardQuestions()))
	for _, e := range eras {
		t.Run(e.Name, func(t *testing.T) {
			local, err := client.Connect(t.Context(), client.HTTP(url, nil), e.Opts...)
			if err != nil {
				t.Fatal(err)
			}
			defer local.Close()
			updated := make(chan string, 8)
			sub, err := local.Listen(t.Context(), client.Filter{Resources: []string{"kit://dir/file", "kit://last"}}, func(n protocol.Notification) {
				var u struct {
					URI string `json:"uri"`
				}
				if n.Method == "notifications/resources/updated" && json.Unmarshal(n.Params, &u) == nil {
					updated <- u.URI
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			defer sub.Close()
			srv.ResourceUpdated("kit://dir/file")
			srv.ResourceUpdated("kit://last")
			var got []string
			for !slices.Contains(got, "kit://last") {
				select {
				case uri := <-updated:
					got = append(got, uri)
				case <-time.After(waitFor):
					t.Fatalf("updates %q, and none of kit://last", got)
				}
			}
			if !slices.Equal(got, []string{"kit://dir/file", "kit://last"}) {
				t.Errorf("updates %q, want each once", got)
			}
		})
	}
}
