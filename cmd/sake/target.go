package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// targetUsage explains CMD...|URL in every subcommand's usage.
const targetUsage = `The server is a command and its arguments, started and spoken to over
stdio (the command's standard error is shown with -v), or the URL of a
Streamable HTTP endpoint (http:// or https://). Both protocol eras are
spoken: by default the client asks the server with server/discover and uses
2026-07-28 when offered, else the initialize handshake; -era pins one.

` + signInUsage

// connFlags are the flags of the subcommands that connect to a server.
type connFlags struct {
	era     string
	headers headerList
	timeout time.Duration
	verbose bool
	signIn  signInFlags
	clock   *pausableTimeout
}

func (c *connFlags) register(fs *flag.FlagSet, timeout time.Duration) {
	fs.StringVar(&c.era, "era", "", "protocol revision: modern (2026-07-28), legacy (2025-11-25), or a revision down to 2024-11-05; empty negotiates")
	fs.Var(&c.headers, "header", "`Name: value` header sent with every HTTP request (repeatable)")
	fs.DurationVar(&c.timeout, "timeout", timeout, "give up after this long (0: never)")
	fs.BoolVar(&c.verbose, "v", false, "show the server command's standard error and every message exchanged")
	c.signIn.register(fs)
}

// eraOption turns -era into a client option (nil: negotiate).
func eraOption(era string) (client.Option, error) {
	switch strings.ToLower(era) {
	case "", "auto":
		return nil, nil
	case "modern", protocol.ModernVersion:
		return client.ProtocolVersion(protocol.ModernVersion), nil
	case "legacy", protocol.LegacyVersion:
		return client.ProtocolVersion(protocol.LegacyVersion), nil
	case "2025-06-18", "2025-03-26", "2024-11-05":
		return client.ProtocolVersion(era), nil
	}
	return nil, usagef("-era %q: want modern, legacy, 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26 or 2024-11-05", era)
}

// headerList gathers -header values.
type headerList [][2]string

func (h *headerList) String() string { return fmt.Sprint([][2]string(*h)) }

func (h *headerList) Set(v string) error {
	name, value, ok := strings.Cut(v, ":")
	name = strings.TrimSpace(name)
	if !ok || name == "" || strings.ContainsAny(name, " \t") {
		return fmt.Errorf("want Name: value, not %q", v)
	}
	*h = append(*h, [2]string{name, strings.TrimSpace(value)})
	return nil
}

// isURL reports whether a target is an HTTP endpoint rather than a command.
func isURL(s string) bool {
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")
}

// withTimeout bounds ctx by -timeout.
// A sign-in does not count: the timer stops while a person signs in.
func (c *connFlags) withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(ctx)
	c.clock = &pausableTimeout{d: c.timeout}
	if c.timeout > 0 {
		c.clock.timer = time.AfterFunc(c.timeout, func() { cancel(errTimedOut) })
	}
	return ctx, func() {
		c.clock.pause()
		cancel(context.Canceled)
	}
}

// pauseTimeout stops -timeout until the returned function is called.
func (c *connFlags) pauseTimeout() func() {
	if c.clock == nil {
		return func() {}
	}
	return c.clock.pause()
}

// connect connects to the server target names (a URL, or a command and
// its arguments).
func (c *connFlags) connect(ctx context.Context, e *env, target []string, extra ...client.Option) (*client.Client, error) {
	if len(target) == 0 {
		return nil, usagef("name the server: a command and its arguments, or an http(s):// URL")
	}
	opts := []client.Option{client.ClientInfo("sake", "1.0.0")}
	eo, err := eraOption(c.era)
	if err != nil {
		return nil, err
	}
	if eo != nil {
		opts = append(opts, eo)
	}
	stderr := &lockedWriter{w: e.stderr}
	if c.verbose {
		opts = append(opts, client.OnMessage(func(sent bool, msg []byte) {
			arrow := "<-"
			if sent {
				arrow = "->"
			}
			fmt.Fprintf(stderr, "%s %s\n", arrow, safeText(string(msg)))
		}))
	}
	opts = append(opts, extra...)
	var t client.Transport
	var tail *tailBuffer
	var signIn *signIn
	var hopts []client.HTTPOption
	if isURL(target[0]) {
		if len(target) > 1 {
			return nil, usagef("a URL takes no arguments after it (got %q)", target[1:])
		}
		authorization := false
		for _, h := range c.headers {
			hopts = append(hopts, client.Header(h[0], h[1]))
			authorization = authorization || strings.EqualFold(h[0], "Authorization")
		}
		if !authorization {
			s, err := newSignIn(e, &c.signIn, target[0], c.pauseTimeout)
			if err != nil {
				return nil, err
			}
			context.AfterFunc(ctx, s.Close)
			signIn = s
			hopts = append(hopts, client.WithAuthorizer(s))
		} else if c.signIn != (signInFlags{}) {
			return nil, usagef("-header Authorization and the sign-in flags (-client-id, -client-secret, -scope, -device) exclude each other")
		}
		t = client.HTTP(target[0], nil, hopts...)
	} else {
		if len(c.headers) > 0 {
			return nil, usagef("-header is for HTTP servers; %s is a command", target[0])
		}
		if c.signIn != (signInFlags{}) {
			return nil, usagef("the sign-in flags (-client-id, -client-secret, -scope, -device) are for HTTP servers; %s is a command", target[0])
		}
		path, err := e.lookPath(target[0])
		if err != nil {
			return nil, fmt.Errorf("cannot start the server %q: %v (give a command on PATH, a path to a binary, or an http(s):// URL)", target[0], err)
		}
		cmd := exec.Command(path, target[1:]...)
		if c.verbose {
			cmd.Stderr = safe(stderr)
		} else {
			tail = &tailBuffer{max: 4096}
			cmd.Stderr = tail
		}
		t = client.Command(cmd)
	}
	cl, err := client.Connect(ctx, t, opts...)
	if signIn != nil && errors.Is(err, errNeedSignIn) {
		// The sign-in, between two attempts: the probes of the first have
		// deadlines a person would not meet.
		if _, err := signIn.signInNow(ctx); err != nil {
			return nil, fmt.Errorf("cannot connect: %w", err)
		}
		cl, err = client.Connect(ctx, client.HTTP(target[0], nil, hopts...), opts...)
	} else if signIn != nil {
		_, _ = signIn.signInNow(ctx) // answer later challenges at once
	}
	if err != nil {
		if tail != nil {
			if s := strings.TrimSpace(tail.String()); s != "" {
				err = fmt.Errorf("%w\nthe server's standard error ended with:\n%s", err, s)
			}
		}
		if errors.Is(context.Cause(ctx), errTimedOut) || errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("%w (the server did not answer within -timeout %v)", err, c.timeout)
		}
		return nil, fmt.Errorf("cannot connect: %w", err)
	}
	return cl, nil
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

// lockedWriter serializes the writes of the goroutines that share a
// writer (the messages of -v and the server's standard error).
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
