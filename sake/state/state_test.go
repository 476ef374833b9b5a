package state_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/saketest"
	"github.com/sakemcp/sake-go/sake/state"
)

// notes is a server whose tools keep a note per user, per session and
// per handle.
type notes struct{ st *state.State }

type NoteArgs struct {
	Text string `json:"text"`
}

type HandleArgs struct {
	Handle string `json:"handle"`
	Text   string `json:"text,omitempty"`
}

func (n *notes) Remember(ctx *sake.Context, a NoteArgs) (string, error) {
	u, err := n.st.User(ctx)
	if err != nil {
		return "", err
	}
	return "kept", state.Set(ctx, u, "note", a.Text)
}

func (n *notes) Recall(ctx *sake.Context) (string, error) {
	u, err := n.st.User(ctx)
	if err != nil {
		return "", err
	}
	v, found, err := state.Get[string](ctx, u, "note")
	if !found {
		return "(nothing)", err
	}
	return v, err
}

func (n *notes) RememberInSession(ctx *sake.Context, a NoteArgs) (string, error) {
	s, err := n.st.Session(ctx)
	if err != nil {
		return "", err
	}
	return "kept", state.Set(ctx, s, "note", a.Text)
}

func (n *notes) RecallFromSession(ctx *sake.Context) (string, error) {
	s, err := n.st.Session(ctx)
	if err != nil {
		return "", err
	}
	v, found, err := state.Get[string](ctx, s, "note")
	if !found {
		return "(nothing)", err
	}
	return v, err
}

func (n *notes) OpenNotebook(ctx *sake.Context, a NoteArgs) (string, error) {
	h, sc, err := n.st.NewHandle(ctx)
	if err != nil {
		return "", err
	}
	return h, state.Set(ctx, sc, "note", a.Text)
}

func (n *notes) ReadNotebook(ctx *sake.Context, a HandleArgs) (string, error) {
	sc, err := n.st.Handle(ctx, a.Handle)
	if err != nil {
		return "", err
	}
	v, _, err := state.Get[string](ctx, sc, "note")
	return v, err
}

func alice() []saketest.Option {
	return []saketest.Option{saketest.Subject("alice"), saketest.Scopes("notes")}
}

func TestUserStateCrossesCallsAndEras(t *testing.T) {
	st := state.MustNew(state.Config{})
	srv := &notes{st: st}
	modern := saketest.Connect(t, srv, alice()...)
	if res, err := modern.CallTool("remember", map[string]any{"text": "buy milk"}); err != nil || res.Text() != "kept" {
		t.Fatalf("remember = %v, %v", res, err)
	}
	if res, err := modern.CallTool("recall", nil); err != nil || res.Text() != "buy milk" {
		t.Fatalf("recall in the next modern call = %v, %v", res, err)
	}
	legacy := saketest.Connect(t, srv, append(alice(), saketest.Legacy())...)
	if res, err := legacy.CallTool("recall", nil); err != nil || res.Text() != "buy milk" {
		t.Fatalf("recall in a 2025-11-25 session of the same user = %v, %v", res, err)
	}
	bob := saketest.Connect(t, srv, saketest.Subject("bob"), saketest.Scopes("notes"))
	if res, err := bob.CallTool("recall", nil); err != nil || res.Text() != "(nothing)" {
		t.Fatalf("another user's recall = %v, %v", res, err)
	}
}

func TestUserStateRefusesAnonymousCallers(t *testing.T) {
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		c := saketest.Connect(t, &notes{st: state.MustNew(state.Config{})}, opts...)
		_, err := c.CallTool("remember", map[string]any{"text": "x"})
		var te *sake.ToolError
		if !errors.As(err, &te) || !strings.Contains(err.Error(), "anonymous") {
			t.Fatalf("remember by an anonymous caller = %v, want a tool error naming the cause", err)
		}
	})
}

func TestUserStateSeparatesTenantsAndIssuers(t *testing.T) {
	ctx := context.Background()
	st := state.MustNew(state.Config{})
	id := func(iss, tid string) *sake.Identity {
		claims := map[string]any{"iss": iss}
		if tid != "" {
			claims["tid"] = tid
		}
		return &sake.Identity{Subject: "same-sub", Claims: claims, FromToken: true}
	}
	a, _ := st.UserOf(id("https://login.example", "tenant-a"))
	if err := state.Set(ctx, a, "k", "a's"); err != nil {
		t.Fatal(err)
	}
	for _, other := range []*sake.Identity{
		id("https://login.example", "tenant-b"),
		id("https://login.example", ""),
		id("https://other.example", "tenant-a"),
		{Subject: "same-sub"},
		{ClientID: "same-sub"},
	} {
		sc, err := st.UserOf(other)
		if err != nil {
			t.Fatal(err)
		}
		if v, found, err := state.Get[string](ctx, sc, "k"); found || err != nil {
			t.Errorf("%+v reads %q (%v): another tenant, issuer or kind of caller must not", other, v, err)
		}
	}
	again, _ := st.UserOf(id("https://login.example", "tenant-a"))
	if v, _, _ := state.Get[string](ctx, again, "k"); v != "a's" {
		t.Fatalf("the same user reads %q", v)
	}
	if _, err := st.UserOf(nil); !errors.Is(err, state.ErrNoIdentity) {
		t.Fatalf("UserOf(nil) = %v, want ErrNoIdentity", err)
	}
}

func TestSessionStateIsLegacyOnly(t *testing.T) {
	srv := &notes{st: state.MustNew(state.Config{})}
	legacy := saketest.Connect(t, srv, saketest.Legacy())
	if res, err := legacy.CallTool("remember_in_session", map[string]any{"text": "draft"}); err != nil || res.Text() != "kept" {
		t.Fatalf("remember_in_session = %v, %v", res, err)
	}
	if res, err := legacy.CallTool("recall_from_session", nil); err != nil || res.Text() != "draft" {
		t.Fatalf("recall_from_session in the same session = %v, %v", res, err)
	}
	other := saketest.Connect(t, srv, saketest.Legacy())
	if res, err := other.CallTool("recall_from_session", nil); err != nil || res.Text() != "(nothing)" {
		t.Fatalf("another session reads %v, %v", res, err)
	}
	modern := saketest.Connect(t, srv)
	if _, err := modern.CallTool("recall_from_session", nil); err == nil || !strings.Contains(err.Error(), "no session") {
		t.Fatalf("a session read in the modern era = %v, want ErrNoSession's message", err)
	}
}

func TestHandlesAreBoundAndUnforgeable(t *testing.T) {
	st := state.MustNew(state.Config{})
	srv := &notes{st: st}
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		c := saketest.Connect(t, srv, append(opts, alice()...)...)
		res, err := c.CallTool("open_notebook", map[string]any{"text": "chapter 1"})
		if err != nil {
			t.Fatal(err)
		}
		h := res.Text()
		if res, err := c.CallTool("read_notebook", map[string]any{"handle": h}); err != nil || res.Text() != "chapter 1" {
			t.Fatalf("read_notebook with its handle = %v, %v", res, err)
		}
		bob := saketest.Connect(t, srv, append(opts, saketest.Subject("bob"), saketest.Scopes("notes"))...)
		if _, err := bob.CallTool("read_notebook", map[string]any{"handle": h}); err == nil || !strings.Contains(err.Error(), "not valid") {
			t.Fatalf("another user's read of the handle = %v, want ErrBadHandle", err)
		}
		repl := "A"
		if strings.HasSuffix(h, "A") {
			repl = "B"
		}
		tampered := h[:len(h)-1] + repl
		for _, bad := range []string{tampered, "sh1_" + strings.Repeat("A", 24) + ".x", "", "nope", h + "x"} {
			if _, err := c.CallTool("read_notebook", map[string]any{"handle": bad}); err == nil {
				t.Fatalf("read_notebook(%q) succeeded", bad)
			}
		}
	})
	other := state.MustNew(state.Config{})
	h, _, _ := st.NewHandleFor(&sake.Identity{Subject: "alice"})
	if _, err := other.HandleFor(&sake.Identity{Subject: "alice"}, h); !errors.Is(err, state.ErrBadHandle) {
		t.Fatalf("a handle checked with another key = %v, want ErrBadHandle", err)
	}
}

func TestUpdateIsCompareAndSet(t *testing.T) {
	ctx := context.Background()
	st := state.MustNew(state.Config{})
	sc, _ := st.UserOf(&sake.Identity{Subject: "counter"})
	const writers, each = 8, 50
	var wg sync.WaitGroup
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				if _, err := state.Update(ctx, sc, "n", func(n int, _ bool) (int, error) { return n + 1, nil }); err != nil && !errors.Is(err, state.ErrConflict) {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	n, _, _ := state.Get[int](ctx, sc, "n")
	if n == 0 || n > writers*each {
		t.Fatalf("n = %d", n)
	}
	// Without contention every update lands.
	before := n
	for range 10 {
		if _, err := state.Update(ctx, sc, "n", func(n int, _ bool) (int, error) { return n + 1, nil }); err != nil {
			t.Fatal(err)
		}
	}
	if n, _, _ := state.Get[int](ctx, sc, "n"); n != before+10 {
		t.Fatalf("n = %d, want %d", n, before+10)
	}
	stop := errors.New("stop")
	if _, err := state.Update(ctx, sc, "n", func(n int, _ bool) (int, error) { return 0, stop }); !errors.Is(err, stop) {
		t.Fatalf("Update whose fn fails = %v", err)
	}
	if n, _, _ := state.Get[int](ctx, sc, "n"); n != before+10 {
		t.Fatalf("a failed Update wrote: n = %d", n)
	}
}

func TestBoundsAndConfig(t *testing.T) {
	ctx := context.Background()
	st := state.MustNew(state.Config{Limits: state.Limits{MaxValueBytes: 16, MaxKeyBytes: 4, MaxScopeKeys: 2}})
	sc, _ := st.UserOf(&sake.Identity{Subject: "a"})
	if err := state.Set(ctx, sc, "k", strings.Repeat("x", 20)); !errors.Is(err, state.ErrTooLarge) {
		t.Fatalf("a value past MaxValueBytes = %v", err)
	}
	if err := state.Set(ctx, sc, "longkey", 1); !errors.Is(err, state.ErrTooLarge) {
		t.Fatalf("a key past MaxKeyBytes = %v", err)
	}
	if err := state.Set(ctx, sc, "", 1); err == nil {
		t.Fatal("an empty key was accepted")
	}
	_ = state.Set(ctx, sc, "a", 1)
	_ = state.Set(ctx, sc, "b", 1)
	if err := state.Set(ctx, sc, "c", 1); !errors.Is(err, state.ErrFull) {
		t.Fatalf("a third key past MaxScopeKeys = %v", err)
	}
	if _, found, _ := state.Get[int](ctx, sc, "c"); found {
		t.Fatal("a refused write was stored")
	}
	if _, err := state.New(state.Config{Key: []byte("short")}); err == nil {
		t.Fatal("a short key was accepted")
	}
	if _, err := state.New(state.Config{Limits: state.Limits{MaxScopeKeys: -1}}); err == nil {
		t.Fatal("a negative bound was accepted")
	}
	var wrong struct{ X int }
	_ = state.Set(ctx, sc, "a", "text")
	if _, _, err := state.Get[struct{ X int }](ctx, sc, "a"); err == nil {
		t.Fatalf("reading a string as %T succeeded", wrong)
	}
}

type counter struct{ st *state.State }

func (c *counter) Bump(ctx *sake.Context) (int, error) {
	user, err := c.st.User(ctx)
	if err != nil {
		return 0, err
	}
	return state.Update(ctx, user, "n", func(n int, _ bool) (int, error) { return n + 1, nil })
}

func TestPresetAndInspectAroundCalls(t *testing.T) {
	st := state.MustNew(state.Config{})
	alice, _ := st.UserOf(&sake.Identity{Subject: "alice"})
	_ = state.Set(context.Background(), alice, "n", 41)
	for _, era := range [][]saketest.Option{{saketest.Legacy()}, nil} { // 2025-11-25, then 2026-07-28
		c := saketest.Connect(t, &counter{st: st}, append(era, saketest.Subject("alice"), saketest.Scopes("count"))...)
		if _, err := c.CallTool("bump", nil); err != nil {
			t.Fatal(err)
		}
	}
	if n, _, _ := state.Get[int](context.Background(), alice, "n"); n != 43 {
		t.Fatalf("n = %d, want 43 after one call in each era", n)
	}
}

// The same sub in two tenants, through calls in both eras: a value the
// first tenant's user wrote in a 2026-07-28 call is read back by that user
// in a 2025-11-25 session and is not found by the other tenant's.
func TestUserStateAcrossErasIsTenantScoped(t *testing.T) {
	st := state.MustNew(state.Config{})
	srv := &notes{st: st}
	tenant := func(tid string, more ...saketest.Option) []saketest.Option {
		return append([]saketest.Option{saketest.Subject("same-sub"), saketest.Scopes("notes"),
			saketest.Claims(map[string]any{"tid": tid})}, more...)
	}
	acme := saketest.Connect(t, srv, tenant("acme")...)
	if _, err := acme.CallTool("remember", map[string]any{"text": "acme's"}); err != nil {
		t.Fatal(err)
	}
	if res, err := acme.CallTool("recall", nil); err != nil || res.Text() != "acme's" {
		t.Fatalf("the next modern call = %v, %v", res, err)
	}
	legacy := saketest.Connect(t, srv, tenant("acme", saketest.Legacy())...)
	if res, err := legacy.CallTool("recall", nil); err != nil || res.Text() != "acme's" {
		t.Fatalf("a 2025-11-25 session of the same user = %v, %v", res, err)
	}
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		globex := saketest.Connect(t, srv, tenant("globex", opts...)...)
		if res, err := globex.CallTool("recall", nil); err != nil || res.Text() != "(nothing)" {
			t.Fatalf("the same sub in another tenant = %v, %v", res, err)
		}
	})
}
