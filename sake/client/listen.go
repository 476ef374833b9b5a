package client

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"

	"github.com/sakemcp/sake-go/sake/protocol"
)

// Filter says which notifications a subscription wants.
type Filter struct {
	ToolsListChanged     bool     `json:"toolsListChanged,omitempty"`
	PromptsListChanged   bool     `json:"promptsListChanged,omitempty"`
	ResourcesListChanged bool     `json:"resourcesListChanged,omitempty"`
	Resources            []string `json:"resourceSubscriptions,omitempty"`
	// TaskIDs asks for notifications/tasks of these tasks (tasks
	// extension).
	TaskIDs []string `json:"taskIds,omitempty"`
	// Logs asks for the log messages (notifications/message) of a
	// handshake-era session that belong to no call of the client's: those
	// the server sends on its own, and, over stdio, those the transport
	// cannot tell the call of. A 2026-07-28 server sends none outside a
	// request, so it is not sent to one.
	Logs bool `json:"-"`
}

// Subscription is an open subscription: its notifications go to the
// function given to Listen until Close.
type Subscription struct {
	c      *Client
	filter Filter
	fn     func(protocol.Notification)
	legacy bool

	mu     sync.Mutex
	acked  Filter
	ack    chan struct{}
	cancel context.CancelFunc
	done   chan struct{}
	err    error
	key    string
}

// Listen subscribes to the notifications filter asks for and hands each
// to fn (on the client's reading goroutine: keep it short). In the
// 2026-07-28 era it holds a subscriptions/listen request open and returns
// once the server acknowledged it; before, it subscribes to the resources
// with resources/subscribe and takes the list changes of the session.
// The subscription lasts until Close, the client's Close or the server
// ends it (Done).
func (c *Client) Listen(ctx context.Context, filter Filter, fn func(protocol.Notification)) (*Subscription, error) {
	if fn == nil {
		fn = func(protocol.Notification) {}
	}
	s := &Subscription{c: c, filter: filter, fn: fn, ack: make(chan struct{}), done: make(chan struct{})}
	if c.Era() != protocol.EraModern {
		return s, c.listenLegacy(ctx, s)
	}
	sctx, cancel := context.WithCancel(c.ctx)
	s.cancel = cancel
	params := map[string]any{"notifications": filter}
	go func() {
		defer close(s.done)
		defer cancel()
		_, err := c.call(sctx, "subscriptions/listen", params, &callOpts{long: true, onID: func(id int64) {
			s.key = itoa(id)
			c.mu.Lock()
			c.subs[s.key] = s
			c.mu.Unlock()
		}})
		c.mu.Lock()
		delete(c.subs, s.key)
		c.mu.Unlock()
		if sctx.Err() != nil {
			// Closed (the subscription or the client): whatever the
			// transport said as it closed is no reason.
			err = nil
		}
		s.mu.Lock()
		s.err = err
		s.mu.Unlock()
	}()
	select {
	case <-s.ack:
		return s, nil
	case <-s.done:
		if err := s.Err(); err != nil {
			return nil, err
		}
		return nil, errors.New("client: the server ended the subscription before acknowledging it")
	case <-ctx.Done():
		cancel()
		<-s.done
		return nil, ctx.Err()
	}
}

func (c *Client) listenLegacy(ctx context.Context, s *Subscription) error {
	s.legacy = true
	s.acked = s.filter
	close(s.ack)
	if err := c.t.ready(ctx); err != nil {
		return err
	}
	for i, uri := range s.filter.Resources {
		if _, err := c.call(ctx, "resources/subscribe", map[string]any{"uri": uri}, nil); err != nil {
			for _, u := range s.filter.Resources[:i] {
				_, _ = c.call(ctx, "resources/unsubscribe", map[string]any{"uri": u}, nil)
			}
			return err
		}
	}
	c.mu.Lock()
	c.legacySubs[s] = struct{}{}
	c.mu.Unlock()
	return nil
}

// Acknowledged returns what the server agreed to send: the subset of the
// filter it honours.
func (s *Subscription) Acknowledged() Filter {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.acked
}

// Done is closed when the subscription has ended.
func (s *Subscription) Done() <-chan struct{} { return s.done }

// Err returns why the subscription ended (nil after Close).
func (s *Subscription) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Close ends the subscription: it closes the listen stream, or
// unsubscribes the resources of a session.
func (s *Subscription) Close() error {
	if !s.legacy {
		s.stop()
		<-s.done
		return nil
	}
	c := s.c
	c.mu.Lock()
	_, open := c.legacySubs[s]
	delete(c.legacySubs, s)
	c.mu.Unlock()
	if !open {
		return nil
	}
	defer close(s.done)
	var first error
	for _, uri := range s.filter.Resources {
		if _, err := c.call(c.ctx, "resources/unsubscribe", map[string]any{"uri": uri}, nil); err != nil && first == nil && !errors.Is(err, ErrClosed) {
			first = err
		}
	}
	return first
}

func (s *Subscription) stop() {
	if s.cancel != nil {
		s.cancel()
	}
}

// deliverToSubscription hands a notification to the subscriptions that
// want it; it reports whether one did.
func (c *Client) deliverToSubscription(n protocol.Notification) bool {
	var p struct {
		Meta struct {
			SubscriptionID json.RawMessage `json:"io.modelcontextprotocol/subscriptionId"`
		} `json:"_meta"`
		Notifications *Filter `json:"notifications"`
		URI           string  `json:"uri"`
		TaskID        string  `json:"taskId"`
	}
	_ = json.Unmarshal(n.Params, &p)
	if id := p.Meta.SubscriptionID; len(id) > 0 {
		key := string(id)
		if key[0] == '"' {
			_ = json.Unmarshal(id, &key)
		}
		c.mu.Lock()
		s := c.subs[key]
		c.mu.Unlock()
		if s == nil {
			return true // a subscription that has ended
		}
		if n.Method == "notifications/subscriptions/acknowledged" {
			s.mu.Lock()
			if p.Notifications != nil {
				s.acked = *p.Notifications
			}
			select {
			case <-s.ack:
			default:
				close(s.ack)
			}
			s.mu.Unlock()
			return true
		}
		s.fn(n)
		return true
	}
	c.mu.Lock()
	var subs []*Subscription
	for s := range c.legacySubs {
		if s.wants(n.Method, p.URI, p.TaskID) {
			subs = append(subs, s)
		}
	}
	c.mu.Unlock()
	for _, s := range subs {
		s.fn(n)
	}
	return len(subs) > 0
}

// wants reports whether a session subscription takes a notification.
func (s *Subscription) wants(method, uri, taskID string) bool {
	f := &s.filter
	switch method {
	case "notifications/tools/list_changed":
		return f.ToolsListChanged
	case "notifications/prompts/list_changed":
		return f.PromptsListChanged
	case "notifications/resources/list_changed":
		return f.ResourcesListChanged
	case "notifications/resources/updated":
		for _, r := range f.Resources {
			if uri == r || strings.HasPrefix(uri, strings.TrimSuffix(r, "/")+"/") {
				return true
			}
		}
	case "notifications/tasks/status":
		return slices.Contains(f.TaskIDs, taskID)
	case "notifications/message":
		return f.Logs
	}
	return false
}
