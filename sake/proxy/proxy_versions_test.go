package proxy_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/plug"
	"github.com/sakemcp/sake-go/sake/proxy"
	"github.com/sakemcp/sake-go/sake/saketest"
	"github.com/sakemcp/sake-go/sake/tasks"
)

type sumArgs struct {
	X int `json:"x"`
}

func sumTool(version string) *sake.ToolDef {
	return sake.NewTypedTool("sum", func(_ *sake.Context, a sumArgs) (string, error) {
		return fmt.Sprintf("v%s: %d", version, a.X), nil
	}).Version(version)
}

// listedSumVersion returns the version of the one tool c lists.
func listedSumVersion(t *testing.T, c *saketest.Client) string {
	t.Helper()
	tools, err := c.ListTools()
	if err != nil || len(tools) != 1 {
		t.Fatalf("tools/list = %+v, %v", tools, err)
	}
	v, _ := tools[0].Meta[sake.MetaComponentVersion].(string)
	return v
}

// listsOnly reports whether c lists one tool, of version v.
func listsOnly(c *saketest.Client, v string) bool {
	tools, err := c.ListTools()
	return err == nil && len(tools) == 1 && tools[0].Meta[sake.MetaComponentVersion] == v
}

// sumRemote serves remoteSrv over HTTP with versions 1.0 and 2.0 of sum,
// and returns a client connected to it, closed when the test ends.
func sumRemote(t *testing.T, remoteSrv *sake.Server) *client.Client {
	t.Helper()
	if err := remoteSrv.AddTool(sumTool("1.0"), sumTool("2.0")); err != nil {
		t.Fatal(err)
	}
	ph := plug.New(remoteSrv)
	ts := httptest.NewServer(ph)
	t.Cleanup(func() { ts.Close(); ph.Close() })
	remote, err := client.Connect(t.Context(), client.HTTP(ts.URL, nil))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { remote.Close() })
	return remote
}

func TestProxyKeepsTheRemoteVersion(t *testing.T) {
	t.Parallel()
	remoteSrv := sake.MustNew(nil)
	remote := sumRemote(t, remoteSrv)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	proxySrv, err := proxy.New(ctx, remote)
	if err != nil {
		t.Fatal(err)
	}
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		c := saketest.Connect(t, proxySrv, opts...)
		if v := listedSumVersion(t, c); v != "2.0" {
			t.Errorf("proxied sum version = %q, want the remote's 2.0", v)
		}
		if res, err := c.WithVersion("2.0").CallTool("sum", map[string]any{"x": 5}); err != nil || res.Text() != "v2.0: 5" {
			t.Errorf("sum 2.0 through the proxy = %v, %v", res, err)
		}
		// The proxy serves the version the remote lists, no other.
		_, err := c.WithVersion("1.0").CallTool("sum", map[string]any{"x": 5})
		var e *sake.Error
		if !errors.As(err, &e) || e.Code != sake.CodeInvalidParams || !strings.Contains(e.Message, "the versions served are 2.0") {
			t.Errorf("sum 1.0 through the proxy = %v, want -32602 naming 2.0", err)
		}
	})

	// A new version on the remote replaces the one proxied.
	changed := make(chan struct{}, 1)
	stop := proxySrv.Watch(func(sake.Broadcast) {
		select {
		case changed <- struct{}{}:
		default:
		}
	})
	defer stop()
	if err := remoteSrv.AddTool(sumTool("3.0")); err != nil {
		t.Fatal(err)
	}
	c := saketest.Connect(t, proxySrv)
	deadline := time.After(10 * time.Second)
	for !listsOnly(c, "3.0") {
		select {
		case <-changed:
		case <-deadline:
			t.Fatal("the proxy did not follow the remote's new version")
		}
	}
	_, err = c.WithVersion("2.0").CallTool("sum", map[string]any{"x": 1})
	var e *sake.Error
	if !errors.As(err, &e) || !strings.Contains(e.Message, "the versions served are 3.0") {
		t.Errorf("the proxy still serves 2.0 beside 3.0: %v", err)
	}
}

// A remote that runs tasks is asked, like any other, for the version of
// the tool the proxy lists: a version it adds meanwhile is not run in
// its place.
func TestProxyAsksATaskRemoteForTheListedVersion(t *testing.T) {
	t.Parallel()
	asked := make(chan string, 4)
	hook := sake.ObserveOutcome(sake.Hooks{Request: func(ctx context.Context, req *sake.Request) (context.Context, func(sake.RequestDone)) {
		if req.Method == "tools/call" {
			v := ""
			if m := req.Params.Meta; m != nil && m.ComponentVersion != nil {
				v = *m.ComponentVersion
			}
			asked <- v
		}
		return ctx, nil
	}})
	remote := sumRemote(t, sake.MustNew(nil, sake.Tasks(tasks.New()), hook))
	proxySrv, err := proxy.New(t.Context(), remote)
	if err != nil {
		t.Fatal(err)
	}
	c := saketest.Connect(t, proxySrv)
	if res, err := c.CallTool("sum", map[string]any{"x": 2}); err != nil || res.Text() != "v2.0: 2" {
		t.Fatalf("sum through the proxy = %v, %v", res, err)
	}
	if v := <-asked; v != "2.0" {
		t.Errorf("the remote was asked for version %q, want the listed 2.0", v)
	}
}
