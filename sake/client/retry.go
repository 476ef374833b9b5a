package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/sakemcp/sake-go/sake/protocol"
)

// The defaults of a RetryPolicy's zero fields.
const (
	// DefaultRetryAttempts bounds the tries of one request, the first
	// included.
	DefaultRetryAttempts = 3
	// DefaultRetryBaseDelay is the wait before the second try when the
	// server did not say how long to wait.
	DefaultRetryBaseDelay = 200 * time.Millisecond
	// DefaultRetryMaxDelay bounds one wait between tries.
	DefaultRetryMaxDelay = 10 * time.Second
)

// RetryPolicy says how a client given the Retry option tries a request
// again. Its zero fields take the defaults (DefaultRetryAttempts,
// DefaultRetryBaseDelay, DefaultRetryMaxDelay).
type RetryPolicy struct {
	// MaxAttempts bounds the tries of one request, the first included
	// (default DefaultRetryAttempts). 1 turns retrying off.
	MaxAttempts int
	// BaseDelay is the wait before the second try when the server did not
	// say how long to wait; it doubles before each further try, and each
	// wait is drawn at random between half of it and all of it (jitter).
	// Default DefaultRetryBaseDelay.
	BaseDelay time.Duration
	// MaxDelay bounds one wait (default DefaultRetryMaxDelay): the
	// doubling stops there, and a server that asks to wait longer
	// (Retry-After, data.retryAfterMs) gets its error returned at once
	// instead of a retry.
	MaxDelay time.Duration
	// Sleep waits d, or until ctx ends (then it returns ctx.Err()). The
	// default waits on a timer; tests give a function that records d and
	// returns at once.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock a Retry-After date and the request's deadline are
	// read against (default time.Now).
	Now func() time.Time
}

// Retry makes the client try a request again when it failed for a reason
// that may pass: a connection error of the HTTP transport, an HTTP 429 or
// 503 answer, or the JSON-RPC error -32029 (protocol.CodeRateLimited) on any
// transport. It waits as long as the server asks (the error's
// data.retryAfterMs, else the Retry-After header in seconds or as an HTTP
// date), else backs off exponentially with jitter; it never waits past
// the request's context deadline, and stops when the context ends.
//
// Only requests that may safely run twice are retried: lists, reads
// (resources/read, prompts/get, tasks/get), completions, server/discover
// and ping, and tools/call of a tool the client's last ListTools described
// as read-only or idempotent (annotations readOnlyHint, idempotentHint).
// AllowRetry lets the calls of a context be retried whatever they are;
// NoRetry stops them from being retried.
//
// Over stdio a server whose process has ended is not retried: the client
// does not restart the command, so its requests fail at once.
func Retry(p RetryPolicy) Option {
	return func(o *options) {
		if p.MaxAttempts <= 0 {
			p.MaxAttempts = DefaultRetryAttempts
		}
		if p.BaseDelay <= 0 {
			p.BaseDelay = DefaultRetryBaseDelay
		}
		if p.MaxDelay <= 0 {
			p.MaxDelay = DefaultRetryMaxDelay
		}
		if p.Sleep == nil {
			p.Sleep = sleep
		}
		if p.Now == nil {
			p.Now = time.Now
		}
		o.retry = &p
	}
}

type retryKey struct{}

// retryChoice is what a context says about retrying its calls.
type retryChoice int

const (
	retryAlways retryChoice = iota + 1
	retryNever
)

// AllowRetry returns a context whose calls a client with the Retry option
// retries even when they are not known to be idempotent (a tools/call of
// a tool not marked read-only or idempotent, tasks/update, ...): the
// caller takes on that the call may run more than once.
func AllowRetry(ctx context.Context) context.Context {
	return context.WithValue(ctx, retryKey{}, retryAlways)
}

// NoRetry returns a context whose calls are never retried, whatever the
// client's Retry option says.
func NoRetry(ctx context.Context) context.Context {
	return context.WithValue(ctx, retryKey{}, retryNever)
}

func retryChoiceOf(ctx context.Context) retryChoice {
	v, _ := ctx.Value(retryKey{}).(retryChoice)
	return v
}

// idempotentMethods are the methods whose requests may run twice.
var idempotentMethods = map[string]bool{
	"server/discover": true, "ping": true,
	"tools/list": true, "prompts/list": true, "resources/list": true, "resources/templates/list": true,
	"resources/read": true, "prompts/get": true, "completion/complete": true,
	"tasks/get": true, "tasks/list": true,
}

// toolHints remembers which tools the last tools/list said may run twice.
type toolHints struct {
	mu   sync.Mutex
	safe map[string]bool
}

// learn records the tools of a tools/list page; first resets what the
// previous list said.
func (h *toolHints) learn(tools []protocol.ToolInfo, first bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if first || h.safe == nil {
		h.safe = map[string]bool{}
	}
	for _, t := range tools {
		a := t.Annotations
		if a != nil && (isTrue(a.ReadOnlyHint) || isTrue(a.IdempotentHint)) {
			h.safe[t.Name] = true
		} else {
			delete(h.safe, t.Name)
		}
	}
}

func (h *toolHints) idempotent(name string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.safe[name]
}

func isTrue(b *bool) bool { return b != nil && *b }

// retryable reports whether a call of method may be retried.
func (c *Client) retryable(ctx context.Context, method string, co *callOpts) bool {
	switch retryChoiceOf(ctx) {
	case retryAlways:
		return co == nil || !co.long
	case retryNever:
		return false
	}
	if idempotentMethods[method] {
		return true
	}
	return method == "tools/call" && co != nil && co.hasName && c.toolHints.idempotent(co.name)
}

// sendRetrying is send1, tried again as the Retry option says.
func (c *Client) sendRetrying(ctx context.Context, method string, p, extra []byte, co *callOpts) (json.RawMessage, error) {
	pol := c.o.retry
	if pol == nil || pol.MaxAttempts < 2 || !c.retryable(ctx, method, co) {
		return c.send1(ctx, method, p, extra, co)
	}
	for attempt := 1; ; attempt++ {
		raw, err := c.send1(ctx, method, p, extra, co)
		if err == nil || ctx.Err() != nil {
			return raw, err
		}
		after, ok := c.transient(err)
		if !ok {
			return nil, err
		}
		if attempt >= pol.MaxAttempts {
			return nil, fmt.Errorf("client: %s failed %d times, the most tries allowed (RetryPolicy.MaxAttempts): %w", method, attempt, err)
		}
		d := after
		if d <= 0 {
			d = backoff(pol, attempt)
		} else if d > pol.MaxDelay {
			return nil, fmt.Errorf("client: %s: the server asks to wait %v, more than RetryPolicy.MaxDelay (%v): %w", method, d, pol.MaxDelay, err)
		}
		if dl, has := ctx.Deadline(); has && pol.Now().Add(d).After(dl) {
			return nil, fmt.Errorf("client: %s: the next try (in %v) would come after the call's deadline: %w", method, d, err)
		}
		if serr := pol.Sleep(ctx, d); serr != nil {
			return nil, fmt.Errorf("client: %s: stopped retrying (%w) after: %w", method, serr, err)
		}
	}
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// backoff is the wait after the attempt-th failure when the server named
// none: BaseDelay doubled attempt-1 times, at most MaxDelay, drawn between
// half of it and all of it.
func backoff(pol *RetryPolicy, attempt int) time.Duration {
	d := pol.BaseDelay
	for i := 1; i < attempt && d < pol.MaxDelay; i++ {
		d *= 2
	}
	d = min(d, pol.MaxDelay)
	half := d / 2
	return half + rand.N(d-half+1)
}

// transient reports whether err may pass if the request is sent again,
// and how long the server asked to wait first (0: it did not say).
func (c *Client) transient(err error) (time.Duration, bool) {
	if errors.Is(err, ErrClosed) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return 0, false
	}
	var he *HTTPError
	if errors.As(err, &he) {
		if he.Status != http.StatusTooManyRequests && he.Status != http.StatusServiceUnavailable {
			return 0, false
		}
		if he.RPC != nil {
			if d := retryDataDelay(he.RPC); d > 0 {
				return d, true
			}
		}
		return c.retryAfterHeader(he.Header), true
	}
	var rpc *protocol.Error
	if errors.As(err, &rpc) {
		if rpc.Code != protocol.CodeRateLimited {
			return 0, false
		}
		return retryDataDelay(rpc), true
	}
	return 0, c.reconnects() && isConnectionError(err)
}

// reconnects reports whether a connection error may pass on another try:
// an HTTP transport opens a new connection, a command's ended process
// stays ended (the client does not restart it), a stream stays closed.
func (c *Client) reconnects() bool {
	t := c.t
	if tt, ok := t.(*tapTransport); ok {
		t = tt.Transport
	}
	_, ok := t.(*httpTransport)
	return ok
}

// isConnectionError reports a failure to reach the server or to read its
// answer, as opposed to an answer.
func isConnectionError(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) {
		return true
	}
	var ue *url.Error
	return errors.As(err, &ue) && (errors.Is(ue.Err, io.EOF) || ue.Timeout())
}

// retryDataDelay is the delay a JSON-RPC error's data asks for
// ({"retryAfterMs": n}), or 0.
func retryDataDelay(e *protocol.Error) time.Duration {
	switch d := e.Data.(type) {
	case *protocol.RetryData:
		if d != nil {
			return d.RetryAfter()
		}
	case map[string]any:
		if ms, ok := d["retryAfterMs"].(float64); ok && ms > 0 && ms < float64(1<<53) {
			return time.Duration(ms) * time.Millisecond
		}
	}
	return 0
}

// retryAfterHeader reads Retry-After: delay-seconds or an HTTP date.
func (c *Client) retryAfterHeader(h http.Header) time.Duration {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n <= 0 || n > int64(time.Duration(1<<62)/time.Second) {
			return 0
		}
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(c.o.retry.Now()); d > 0 {
			return d
		}
	}
	return 0
}
