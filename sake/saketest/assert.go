package saketest

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// Match reports whether actual (JSON) matches pattern by partial
// structure: every key of a pattern object must be in the actual object
// with a matching value (other keys are ignored); arrays match element by
// element and must have the same length; other values must be equal
// (numbers compare numerically). A nil pattern matches anything.
func Match(pattern any, actual json.RawMessage) bool {
	if pattern == nil {
		return true
	}
	p, err := normalize(pattern)
	if err != nil {
		return false
	}
	var a any
	if err := json.Unmarshal(actual, &a); err != nil {
		return false
	}
	return matchValue(p, a)
}

func normalize(v any) (any, error) {
	if raw, ok := v.(json.RawMessage); ok {
		var out any
		err := json.Unmarshal(raw, &out)
		return out, err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	err = json.Unmarshal(b, &out)
	return out, err
}

func matchValue(p, a any) bool {
	switch pv := p.(type) {
	case map[string]any:
		av, ok := a.(map[string]any)
		if !ok {
			return false
		}
		for k, v := range pv {
			x, ok := av[k]
			if !ok || !matchValue(v, x) {
				return false
			}
		}
		return true
	case []any:
		av, ok := a.([]any)
		if !ok || len(av) != len(pv) {
			return false
		}
		for i := range pv {
			if !matchValue(pv[i], av[i]) {
				return false
			}
		}
		return true
	}
	return p == a
}

func describe(pattern any) string {
	b, err := json.Marshal(pattern)
	if err != nil {
		return fmt.Sprint(pattern)
	}
	return string(b)
}

// AssertAsked fails the test unless the server asked the client something
// of method ("elicitation/create", "sampling/createMessage", "roots/list")
// whose params match pattern (see Match).
func AssertAsked(t testing.TB, c *Client, method string, pattern any) {
	t.Helper()
	if !asked(c, method, pattern) {
		t.Errorf("saketest: the server did not ask %s matching %s; it asked:%s", method, describe(pattern), listAsks(c.Asked()))
	}
}

// RefuteAsked fails the test if the server asked such a thing so far.
func RefuteAsked(t testing.TB, c *Client, method string, pattern any) {
	t.Helper()
	if asked(c, method, pattern) {
		t.Errorf("saketest: the server asked %s matching %s; it asked:%s", method, describe(pattern), listAsks(c.Asked()))
	}
}

func asked(c *Client, method string, pattern any) bool {
	for _, a := range c.Asked() {
		if a.Method == method && Match(pattern, a.Params) {
			return true
		}
	}
	return false
}

func listAsks(as []Ask) string {
	if len(as) == 0 {
		return " nothing"
	}
	var b strings.Builder
	for _, a := range as {
		fmt.Fprintf(&b, "\n\t%s %s", a.Method, a.Params)
	}
	return b.String()
}

// AssertNotification fails the test unless the server sent, during one of
// the client's calls, a notification of method ("notifications/progress",
// "notifications/message") whose params match pattern.
func AssertNotification(t testing.TB, c *Client, method string, pattern any) {
	t.Helper()
	if !notified(c, method, pattern) {
		t.Errorf("saketest: no %s matching %s was sent; the server sent:%s", method, describe(pattern), listNotifications(c.Notifications()))
	}
}

// RefuteNotification fails the test if such a notification was sent so
// far.
func RefuteNotification(t testing.TB, c *Client, method string, pattern any) {
	t.Helper()
	if notified(c, method, pattern) {
		t.Errorf("saketest: a %s matching %s was sent; the server sent:%s", method, describe(pattern), listNotifications(c.Notifications()))
	}
}

func notified(c *Client, method string, pattern any) bool {
	for _, n := range c.Notifications() {
		if n.Method == method && Match(pattern, n.Params) {
			return true
		}
	}
	return false
}

func listNotifications(ns []protocol.Notification) string {
	if len(ns) == 0 {
		return " nothing"
	}
	var b strings.Builder
	for _, n := range ns {
		fmt.Fprintf(&b, "\n\t%s %s", n.Method, n.Params)
	}
	return b.String()
}

// Listener records what a server broadcasts (list changes, resource
// updates) from the moment Listen is called until the test ends.
type Listener struct {
	rec     *recording
	timeout time.Duration // 0: defaultWaitTimeout
}

// recording is what a Listener and its Within copies share.
type recording struct {
	mu      sync.Mutex
	events  []sake.Broadcast
	changed chan struct{} // closed and replaced at each event
}

// Listen starts recording the broadcasts of target, a *sake.Server or a
// *Client (its server). Connect builds a server per client from a value,
// so parallel tests that each connect their own see only their own
// broadcasts. Tests sharing one *sake.Server see every broadcast of it,
// unless they pass OwnBroadcasts (those their clients' calls made) or
// OnlyBroadcasts with a filter that keeps their own (for example by URI). WaitTimeout sets how long
// its assertions wait (by default the client's WaitTimeout when target is
// a *Client, else 5 seconds).
func Listen(t testing.TB, target any, opts ...Option) *Listener {
	t.Helper()
	var o options
	var srv *sake.Server
	switch x := target.(type) {
	case *sake.Server:
		srv = x
	case *Client:
		srv = x.srv
		o.waitTimeout = x.opts.waitTimeout
	default:
		t.Fatalf("saketest: Listen needs a *sake.Server or a *saketest.Client, not %T", target)
	}
	if srv == nil {
		t.Fatalf("saketest: Listen needs the server: pass the *sake.Server behind Handler to Connect")
	}
	for _, opt := range opts {
		opt(&o)
	}
	l := &Listener{rec: &recording{changed: make(chan struct{})}, timeout: o.waitTimeout}
	keep, own := o.broadcastFilter, o.ownBroadcasts
	stop := srv.Watch(func(b sake.Broadcast) {
		if (keep != nil && !keep(b)) || (own && !fromTest(t, b.Origin)) {
			return
		}
		r := l.rec
		r.mu.Lock()
		r.events = append(r.events, b)
		close(r.changed)
		r.changed = make(chan struct{})
		r.mu.Unlock()
	})
	t.Cleanup(stop)
	return l
}

// Within returns the listener with another wait for its assertions, for
// one call: saketest.AssertListChanged(t, l.Within(time.Second), ...).
// It shares the recording.
func (l *Listener) Within(d time.Duration) *Listener {
	return &Listener{rec: l.rec, timeout: d}
}

// Broadcasts returns what was recorded so far.
func (l *Listener) Broadcasts() []sake.Broadcast {
	l.rec.mu.Lock()
	defer l.rec.mu.Unlock()
	return append([]sake.Broadcast(nil), l.rec.events...)
}

// defaultWaitTimeout is how long the Assert functions of a Listener wait
// for a broadcast made by another goroutine, when neither the listener
// (WaitTimeout given to Listen or Connect, Listener.Within) nor its
// client says.
const defaultWaitTimeout = 5 * time.Second

// await waits, on broadcast events (never on a timer tick), until one
// matches or the listener's timeout passes.
func (l *Listener) await(match func(sake.Broadcast) bool) bool {
	d := l.timeout
	if d <= 0 {
		d = defaultWaitTimeout
	}
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for {
		l.rec.mu.Lock()
		events, changed := l.rec.events, l.rec.changed
		l.rec.mu.Unlock()
		for _, b := range events {
			if match(b) {
				return true
			}
		}
		select {
		case <-changed:
		case <-deadline.C:
			return false
		}
	}
}

func (l *Listener) seen(match func(sake.Broadcast) bool) bool {
	for _, b := range l.Broadcasts() {
		if match(b) {
			return true
		}
	}
	return false
}

func listChangedOf(list sake.List) func(sake.Broadcast) bool {
	return func(b sake.Broadcast) bool { return b.URI == "" && b.List == list }
}

func updatedOf(uri string) func(sake.Broadcast) bool {
	return func(b sake.Broadcast) bool { return b.URI != "" && (uri == "" || b.URI == uri) }
}

// AssertListChanged fails the test unless the server broadcast a change
// of list (sake.ListTools, ListResources, ListPrompts), waiting for it if
// another goroutine has yet to make it.
func AssertListChanged(t testing.TB, l *Listener, list sake.List) {
	t.Helper()
	if !l.await(listChangedOf(list)) {
		t.Errorf("saketest: no change of the %s list was broadcast; broadcasts: %v", list, l.Broadcasts())
	}
}

// RefuteListChanged fails the test if such a change was broadcast so far.
func RefuteListChanged(t testing.TB, l *Listener, list sake.List) {
	t.Helper()
	if l.seen(listChangedOf(list)) {
		t.Errorf("saketest: a change of the %s list was broadcast; broadcasts: %v", list, l.Broadcasts())
	}
}

// AssertResourceUpdated fails the test unless the server broadcast an
// update of the resource at uri ("" for any), waiting for it if needed.
func AssertResourceUpdated(t testing.TB, l *Listener, uri string) {
	t.Helper()
	if !l.await(updatedOf(uri)) {
		t.Errorf("saketest: no update of %q was broadcast; broadcasts: %v", uri, l.Broadcasts())
	}
}

// RefuteResourceUpdated fails the test if such an update was broadcast so
// far.
func RefuteResourceUpdated(t testing.TB, l *Listener, uri string) {
	t.Helper()
	if l.seen(updatedOf(uri)) {
		t.Errorf("saketest: an update of %q was broadcast; broadcasts: %v", uri, l.Broadcasts())
	}
}
