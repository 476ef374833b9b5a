package middleware_test

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/middleware"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/stdio"
)

// stdioPeer is a client of srv over stdio, in one era, one line at a time.
type stdioPeer struct {
	t    *testing.T
	in   *io.PipeWriter
	out  *bufio.Scanner
	meta string // the modern _meta member and a comma, or ""
	id   int
}

// newStdioPeer serves srv over pipes as the caller id (nil: anonymous),
// in era; the handshake era's session is opened first.
func newStdioPeer(t *testing.T, srv *sake.Server, era string, id *sake.Identity) *stdioPeer {
	return newStdioPeerN(t, srv, era, id, 1)
}

// newStdioPeerN is newStdioPeer serving n requests at once.
func newStdioPeerN(t *testing.T, srv *sake.Server, era string, id *sake.Identity, n int) *stdioPeer {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- stdio.Serve(context.Background(), srv, inR, outW, stdio.MaxConcurrent(n), stdio.Identity(id), stdio.Logger(quiet))
		outW.Close()
	}()
	t.Cleanup(func() {
		inW.Close()
		if err := <-done; err != nil {
			t.Errorf("stdio.Serve: %v", err)
		}
	})
	p := &stdioPeer{t: t, in: inW, out: bufio.NewScanner(outR), meta: modernMeta + ","}
	if era != protocol.ModernVersion {
		p.meta = ""
		p.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + era + `","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
		if l := p.recv(); !strings.Contains(l, `"protocolVersion"`) {
			t.Fatalf("initialize: %s", l)
		}
		p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	}
	return p
}

func (p *stdioPeer) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		p.t.Fatal(err)
	}
}

func (p *stdioPeer) recv() string {
	p.t.Helper()
	if !p.out.Scan() {
		p.t.Fatalf("no answer: %v", p.out.Err())
	}
	return p.out.Text()
}

// call sends a tools/call and returns its answer.
func (p *stdioPeer) call(tool, args string) string {
	p.t.Helper()
	p.id++
	p.send(`{"jsonrpc":"2.0","id":` + strconv.Itoa(p.id) + `,"method":"tools/call","params":{` + p.meta + `"name":"` + tool + `","arguments":` + args + `}}`)
	return p.recv()
}

// Over stdio, in both eras: the 11th call of a 10/s limit is the JSON-RPC
// error with the delay, the 12th after the refill goes through, and
// another caller of the same server is unaffected.
func TestRateLimitOverStdioBothEras(t *testing.T) {
	t.Parallel()
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			t.Parallel()
			clk := newClock()
			srv := limited(t, clk)
			alice := newStdioPeer(t, srv, era, &sake.Identity{Subject: "alice"})
			bob := newStdioPeer(t, srv, era, &sake.Identity{Subject: "bob"})
			for i := range 10 {
				if a := alice.call("echo", `{"text":"x"}`); rpcOf(t, []byte(a)) != nil {
					t.Fatalf("call %d: %s", i+1, a)
				}
			}
			a := alice.call("echo", `{"text":"x"}`)
			if e := rpcOf(t, []byte(a)); e == nil || e.Code != sake.CodeRateLimited || retryMs(t, e) != 100 || !strings.Contains(a, `"id":11`) {
				t.Fatalf("11th: %s", a)
			}
			if b := bob.call("echo", `{"text":"x"}`); rpcOf(t, []byte(b)) != nil {
				t.Errorf("another caller: %s", b)
			}
			clk.Advance(100 * time.Millisecond)
			if a := alice.call("echo", `{"text":"x"}`); rpcOf(t, []byte(a)) != nil {
				t.Errorf("12th after the refill: %s", a)
			}
		})
	}
}

// Over stdio and HTTP, in both eras: a timed-out call, an oversized
// result and a masked error are the same results as in memory.
func TestToolMiddlewareOverTransports(t *testing.T) {
	t.Parallel()
	type server struct {
		*blocking
		big
		secretive
	}
	newServer := func(t *testing.T) *sake.Server {
		limits, err := middleware.ToolLimits(middleware.ToolLimit{Tools: []string{"wait"}, Timeout: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		return sake.MustNew(server{blocking: newBlocking()},
			sake.Use(middleware.MaskErrors(quiet), limits, middleware.ResultCap{MaxBytes: 100}.Middleware()), sake.Logger(quiet))
	}
	cases := []struct{ tool, args, want string }{
		{"wait", `{"text":"x"}`, "did not finish within 1ms"},
		{"text", `{"n":1000}`, "over this server's limit of 100 bytes"},
		{"broken", `{"text":"x"}`, "Tool broken failed. The error was logged with reference"},
	}
	check := func(t *testing.T, i int, answer string) {
		t.Helper()
		c := cases[i]
		if !strings.Contains(answer, c.want) || !strings.Contains(answer, `"isError":true`) || strings.Contains(answer, "password") {
			t.Errorf("%s: %s, want %q", c.tool, answer, c.want)
		}
	}
	for _, era := range eras {
		t.Run("stdio/"+era, func(t *testing.T) {
			t.Parallel()
			p := newStdioPeer(t, newServer(t), era, nil)
			for i, c := range cases {
				check(t, i, p.call(c.tool, c.args))
			}
		})
		t.Run("http/"+era, func(t *testing.T) {
			t.Parallel()
			c := newHTTPCaller(t, endpoint(t, newServer(t)), era, "192.0.2.1", "alice")
			for i, tc := range cases {
				r := c.post("tools/call", tc.tool, `{"name":"`+tc.tool+`","arguments":`+tc.args+`}`)
				if r.Code != http.StatusOK {
					t.Errorf("%s: %d %s", tc.tool, r.Code, r.Body)
				}
				check(t, i, r.Body.String())
			}
		})
	}
}

// Over stdio, in the handshake era too, the access log has one record per
// message, with the transport and the era.
func TestAccessLogOverStdioBothEras(t *testing.T) {
	t.Parallel()
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			t.Parallel()
			var logs logBuffer
			sink := middleware.NewJSONSink(&logs, &middleware.JSONSinkOptions{Interval: time.Hour})
			srv := sake.MustNew(secretive{}, middleware.AccessLog{Logger: slog.New(sink)}.Option(), sake.Logger(quiet))
			p := newStdioPeer(t, srv, era, &sake.Identity{Subject: "alice"})
			if a := p.call("lookup", `{"text":"secret"}`); rpcOf(t, []byte(a)) != nil {
				t.Fatal(a)
			}
			p.in.Close()
			_ = sink.Flush()
			var calls int
			for _, r := range logs.records(t) {
				if r["transport"] != "stdio" {
					t.Errorf("record: %v", r)
				}
				if r["method"] == "tools/call" {
					calls++
					if r["subject"] != "sub:alice" || r["outcome"] != "ok" || (era == protocol.ModernVersion) != (r["era"] == "modern") {
						t.Errorf("record: %v", r)
					}
				}
			}
			if calls != 1 || strings.Contains(logs.String(), "secret") {
				t.Errorf("records: %s", logs.String())
			}
		})
	}
}

// Over stdio, in both eras: a call beyond a tool's concurrency cap is
// refused at once with CodeServerBusy, one beyond the caller's cap with
// CodeRateLimited, each with the delay in its data; the running call then
// finishes.
func TestToolConcurrencyOverStdio(t *testing.T) {
	t.Parallel()
	for _, era := range eras {
		for _, c := range []struct {
			name  string
			limit middleware.ToolLimit
			code  int
		}{
			{"tool", middleware.ToolLimit{MaxConcurrent: 1}, sake.CodeServerBusy},
			{"subject", middleware.ToolLimit{MaxPerSubject: 1}, sake.CodeRateLimited},
		} {
			t.Run(era+"/"+c.name, func(t *testing.T) {
				t.Parallel()
				b := newBlocking()
				p := newStdioPeerN(t, toolLimited(t, b, c.limit), era, &sake.Identity{Subject: "alice"}, 4)
				p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + p.meta + `"name":"wait","arguments":{"text":"x"}}}`)
				<-b.started
				p.id = 1
				refused := p.call("wait", `{"text":"y"}`)
				if e := rpcOf(t, []byte(refused)); e == nil || e.Code != c.code || retryMs(t, e) != 1000 || !strings.Contains(refused, `"id":2`) {
					t.Errorf("second call: %s", refused)
				}
				b.release <- struct{}{}
				if first := p.recv(); !strings.Contains(first, "released x") || !strings.Contains(first, `"id":1`) {
					t.Errorf("first call: %s", first)
				}
			})
		}
	}
}
