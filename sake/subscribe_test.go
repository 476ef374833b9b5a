package sake_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/backend"
	"github.com/sakemcp/sake-go/sake/transport"
)

// memStore is a backend.SessionStore in memory, for tests of what the
// dispatcher persists.
type memStore struct {
	mu   sync.Mutex
	recs map[string]backend.SessionRecord
}

func (m *memStore) SaveSession(_ context.Context, rec *backend.SessionRecord) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.recs == nil {
		m.recs = map[string]backend.SessionRecord{}
	}
	m.recs[rec.ID] = *rec
	return nil
}

func (m *memStore) TouchSession(ctx context.Context, id string) (*backend.SessionRecord, error) {
	return m.LoadSession(ctx, id)
}

func (m *memStore) LoadSession(_ context.Context, id string) (*backend.SessionRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	rec, ok := m.recs[id]
	if !ok {
		return nil, nil
	}
	rec.Subscriptions = append([]string(nil), rec.Subscriptions...)
	return &rec, nil
}

func (m *memStore) DeleteSession(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.recs, id)
	return nil
}

func (m *memStore) Relay(context.Context, backend.SessionRelay) error { return nil }

func (m *memStore) ListenRelays(func(backend.SessionRelay)) func() { return func() {} }

// stored returns the subscriptions the store holds for session id.
func (m *memStore) stored(id string) []string {
	rec, _ := m.LoadSession(context.Background(), id)
	if rec == nil {
		return nil
	}
	return rec.Subscriptions
}

// A legacy session subscribes only to URIs the server serves, of bounded
// length and number, and only to URIs every store can keep; a refused
// subscription leaves nothing behind, in the session or in its store.
func TestSubscriptionsAreBounded(t *testing.T) {
	t.Parallel()
	for _, shared := range []bool{false, true} {
		t.Run(fmt.Sprint("shared=", shared), func(t *testing.T) {
			t.Parallel()
			store := &memStore{}
			opts := []sake.Option{sake.WithLimits(sake.Limits{MaxSubscriptions: 3, MaxSubscriptionURIBytes: 64})}
			if shared {
				opts = append(opts, sake.SessionStore(store))
			}
			s := sake.MustNew(newNotes(), opts...)
			r, _ := rpc(t, s, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`, nil)
			sess := r.Session
			in := &sake.Inbound{Session: sess}
			if shared {
				in = &sake.Inbound{SessionID: sess.ID()}
			}
			id := 1
			// uri is the JSON string's contents, as sent.
			subscribe := func(method, uri string) map[string]any {
				t.Helper()
				id++
				_, m := rpc(t, s, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{"uri":"%s"}}`, id, method, uri), in)
				return m
			}
			refused := []struct{ name, uri, decoded string }{
				{"no such resource", "other://1", "other://1"},
				{"too long", "notes://" + strings.Repeat("9", 64), "notes://" + strings.Repeat("9", 64)},
				{"NUL", `notes://1\u0000`, "notes://1\x00"},
				{"invalid UTF-8", "notes://\xff", "notes://\xff"},
			}
			for _, c := range refused {
				if m := subscribe("resources/subscribe", c.uri); errCode(m) != sake.CodeInvalidParams {
					t.Errorf("subscribe to %s: %v, want -32602", c.name, m)
				}
				if sess.Subscribed(c.decoded) {
					t.Errorf("subscribe to %s: the session kept it", c.name)
				}
			}
			if got := store.stored(sess.ID()); len(got) != 0 {
				t.Errorf("the store kept refused subscriptions: %q", got)
			}
			for _, uri := range []string{"notes://readme", "notes://1", "notes://2"} {
				if m := subscribe("resources/subscribe", uri); m["result"] == nil {
					t.Fatalf("subscribe to %s: %v", uri, m)
				}
			}
			// At the cap: a new URI is refused, one already held is not.
			if m := subscribe("resources/subscribe", "notes://3"); errCode(m) != sake.CodeInvalidParams {
				t.Errorf("a subscription beyond MaxSubscriptions: %v, want -32602", m)
			} else if msg := m["error"].(map[string]any)["message"].(string); !strings.Contains(msg, "unsubscribe") {
				t.Errorf("the error %q does not say what to do", msg)
			}
			if m := subscribe("resources/subscribe", "notes://1"); m["result"] == nil {
				t.Errorf("subscribing again at the cap: %v", m)
			}
			if shared {
				if got := store.stored(sess.ID()); len(got) != 3 || strings.Contains(strings.Join(got, " "), "notes://3") {
					t.Errorf("the store holds %q, want the three accepted URIs", got)
				}
			} else if sess.Subscribed("notes://3") {
				t.Error("the session kept a subscription beyond the cap")
			}
			// Unsubscribing makes room.
			if m := subscribe("resources/unsubscribe", "notes://2"); m["result"] == nil {
				t.Fatalf("unsubscribe: %v", m)
			}
			if m := subscribe("resources/subscribe", "notes://3"); m["result"] == nil {
				t.Errorf("subscribe after unsubscribing: %v", m)
			}
		})
	}
}

// guardedNotes serves a resource anyone may read and one that needs a
// scope.
type guardedNotes struct{}

func (guardedNotes) Declare(d *sake.Declarations) {
	d.Resource("Public", "notes://public")
	d.Resource("Secret", "notes://secret").Scopes("notes:secret")
}

func (guardedNotes) Public(*sake.Context) (string, error) { return "public", nil }
func (guardedNotes) Secret(*sake.Context) (string, error) { return "secret", nil }

// A legacy session subscribes only to resources its caller may read: a
// subscription to a resource whose scope the caller lacks is refused with
// the error resources/read gives, and nothing is kept in the session or its
// store, so no update notice of that resource ever reaches the caller.
func TestSubscribingNeedsTheResourcesScope(t *testing.T) {
	t.Parallel()
	for _, shared := range []bool{false, true} {
		t.Run(fmt.Sprint("shared=", shared), func(t *testing.T) {
			t.Parallel()
			store := &memStore{}
			var opts []sake.Option
			if shared {
				opts = append(opts, sake.SessionStore(store))
			}
			s := sake.MustNew(guardedNotes{}, opts...)
			reader := &sake.Identity{Subject: "alice", Scopes: []string{"notes:read"}, FromToken: true}
			r, _ := rpc(t, s, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`,
				&sake.Inbound{Identity: reader})
			sess := r.Session
			if sess == nil {
				t.Fatalf("initialize: %s", r.Body)
			}
			in := &sake.Inbound{Session: sess, Identity: reader}
			if shared {
				in = &sake.Inbound{SessionID: sess.ID(), Identity: reader}
			}
			_, read := rpc(t, s, `{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"notes://secret"}}`, in)
			_, m := rpc(t, s, `{"jsonrpc":"2.0","id":3,"method":"resources/subscribe","params":{"uri":"notes://secret"}}`, in)
			if errCode(m) != sake.CodeInsufficientScope || errCode(m) != errCode(read) {
				t.Errorf("subscribe without the scope: %v, want the error of resources/read (%v)", m, read)
			}
			if sess.Subscribed("notes://secret") {
				t.Error("the session kept a subscription its caller may not read")
			}
			if got := store.stored(sess.ID()); len(got) != 0 {
				t.Errorf("the store kept a refused subscription: %q", got)
			}
			if _, m := rpc(t, s, `{"jsonrpc":"2.0","id":4,"method":"resources/subscribe","params":{"uri":"notes://public"}}`, in); m["result"] == nil {
				t.Errorf("subscribe to a resource without requirement: %v", m)
			}
			if !shared && !sess.Subscribed("notes://public") {
				t.Error("the session did not keep the allowed subscription")
			}
		})
	}
}

// A modern listen tells a caller of updates only to resources it may read,
// under a prefix it names.
func TestListenHearsOnlyReadableResources(t *testing.T) {
	t.Parallel()
	s := sake.MustNew(guardedNotes{})
	reader := &sake.Identity{Subject: "alice", Scopes: []string{"notes:read"}, FromToken: true}
	msgs := make(chan string, 8)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan sake.Reply, 1)
	go func() {
		done <- s.Handle(ctx, []byte(`{"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{"notifications":{"resourceSubscriptions":["notes:/"]},`+modernMeta+`}}`),
			&sake.Inbound{Identity: reader, Stream: transport.StreamFunc(func(m []byte) { msgs <- string(m) })})
	}()
	if ack := <-msgs; !strings.Contains(ack, "notifications/subscriptions/acknowledged") {
		t.Fatalf("ack = %s", ack)
	}
	s.ResourceUpdated("notes://secret") // not readable by the caller: dropped
	s.ResourceUpdated("notes://public")
	if m := <-msgs; !strings.Contains(m, `"uri":"notes://public"`) {
		t.Fatalf("the first update the caller hears is %s, want notes://public's", m)
	}
	cancel()
	<-done
}

// A listen naming a resource the caller may not read is answered as
// resources/subscribe is, before any acknowledgement: a resource the
// server does not have, has disabled or keeps from the caller by its list
// policy is -32602 naming it, one whose scope the caller lacks is the
// error resources/read gives; nothing is acknowledged or heard.
func TestListenRefusesResourcesTheCallerMayNotRead(t *testing.T) {
	t.Parallel()
	s := sake.MustNew(guardedNotes{}, sake.PerCallerLists(func(req *sake.Request, c sake.ComponentInfo) bool {
		return c.URI != "notes://hidden"
	}))
	read := func(*sake.Context) (string, error) { return "x", nil }
	if err := s.AddResource(sake.NewResource("notes://hidden", read), sake.NewResource("notes://off", read),
		sake.NewResource("vault://box/1", read).Scopes("notes:secret")); err != nil {
		t.Fatal(err)
	}
	s.Disable(sake.Components{Resources: []string{"notes://off"}})
	reader := &sake.Identity{Subject: "alice", Scopes: []string{"notes:read"}, FromToken: true}
	for _, tc := range []struct {
		uri  string
		code int
	}{
		{"notes://secret", sake.CodeInsufficientScope},
		{"notes://hidden", sake.CodeInvalidParams},
		{"notes://off", sake.CodeInvalidParams},
		{"notes://absent", sake.CodeInvalidParams},
		{"vault://box", sake.CodeInvalidParams}, // a prefix of nothing the caller may read
		{"", sake.CodeInvalidParams},
	} {
		sent := 0
		msg := `{"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{"notifications":{"resourceSubscriptions":["notes://public",` +
			strconv.Quote(tc.uri) + `]},` + modernMeta + `}}`
		// A listen acknowledged is ended at its first message, so that a
		// wrong answer shows instead of a stream that never ends.
		ctx, cancel := context.WithCancel(context.Background())
		r := s.Handle(ctx, []byte(msg), &sake.Inbound{Identity: reader, Stream: transport.StreamFunc(func([]byte) { sent++; cancel() })})
		cancel()
		var m map[string]any
		_ = json.Unmarshal(r.Body, &m)
		if errCode(m) != tc.code || sent != 0 {
			t.Errorf("listen to %q = %v after %d messages, want error %d and no acknowledgement", tc.uri, m, sent, tc.code)
		}
		if tc.code == sake.CodeInvalidParams && tc.uri != "" {
			if data, _ := m["error"].(map[string]any)["data"].(map[string]any); data["uri"] != tc.uri {
				t.Errorf("listen to %q: error data = %v, want the uri", tc.uri, m["error"])
			}
		}
		if tc.code == sake.CodeInsufficientScope {
			_, readErr := rpc(t, s, `{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"notes://secret",`+modernMeta+`}}`, &sake.Inbound{Identity: reader})
			if errCode(readErr) != tc.code {
				t.Errorf("resources/read = %v", readErr)
			}
		}
	}
}

// A listen names at most Limits.MaxSubscriptions resources.
func TestListenNamesAtMostMaxSubscriptions(t *testing.T) {
	t.Parallel()
	s := sake.MustNew(guardedNotes{}, sake.WithLimits(sake.Limits{MaxSubscriptions: 1}))
	reader := &sake.Identity{Subject: "alice", Scopes: []string{"notes:read"}, FromToken: true}
	sent := 0
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := s.Handle(ctx, []byte(`{"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{"notifications":{"resourceSubscriptions":["notes://public","notes:/"]},`+modernMeta+`}}`),
		&sake.Inbound{Identity: reader, Stream: transport.StreamFunc(func([]byte) { sent++; cancel() })})
	var m map[string]any
	_ = json.Unmarshal(r.Body, &m)
	if errCode(m) != sake.CodeInvalidParams || sent != 0 || !strings.Contains(fmt.Sprint(m["error"]), "Limits.MaxSubscriptions") {
		t.Fatalf("listen to two URIs with a cap of one = %v after %d messages", m, sent)
	}
}
