package sake_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/backend"
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
