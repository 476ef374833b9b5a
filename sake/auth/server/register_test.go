package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

const publicRegistration = `{"client_name":"Desktop","redirect_uris":["http://127.0.0.1/cb"],"token_endpoint_auth_method":"none","application_type":"native"}`

// registerFrom registers a public client as if from addr (host:port).
func (h *harness) registerFrom(addr string) (int, map[string]any) {
	h.t.Helper()
	req := httptest.NewRequest(http.MethodPost, h.url(pathRegister), strings.NewReader(publicRegistration))
	req.Header.Set("Content-Type", "application/json")
	req.RemoteAddr = addr
	rec := httptest.NewRecorder()
	h.ts.Config.Handler.ServeHTTP(rec, req)
	var m map[string]any
	_ = json.Unmarshal(rec.Body.Bytes(), &m)
	return rec.Code, m
}

func (h *harness) dynamicClients() int {
	n, err := h.store.CountClients(context.Background())
	if err != nil {
		h.t.Fatal(err)
	}
	return n
}

func (h *harness) known(id string) bool {
	_, err := h.store.Client(context.Background(), id)
	if err != nil && !errors.Is(err, ErrNotFound) {
		h.t.Fatal(err)
	}
	return err == nil
}

// A flood of registrations does not lock the others out: each address
// holds a bounded number of registrations never authorized, and at the
// total bound the oldest never-authorized one makes room. An authorized
// client is never evicted; unused ones expire.
func TestRegistrationFlood(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(c *Config) {
		c.MaxDynamicClients = 50
		c.MaxRegistrationsPerAddress = 10
	})
	// One address: ten, then 429 for it and for its IPv6 neighbours...
	for i := range 10 {
		if st, m := h.registerFrom(fmt.Sprintf("[2001:db8::%x]:4000", i+1)); st != http.StatusCreated {
			t.Fatalf("registration %d: %d %v", i, st, m)
		}
	}
	st, m := h.registerFrom("[2001:db8::ff]:5000")
	if st != http.StatusTooManyRequests || m["error"] != ErrTemporarilyUnavailable || m["client_id"] != nil {
		t.Fatalf("eleventh registration from one /64: %d %v, want 429 temporarily_unavailable", st, m)
	}
	// ...but not for anyone else.
	st, first := h.registerFrom("192.0.2.1:1234")
	if st != http.StatusCreated {
		t.Fatalf("another address: %d %v", st, first)
	}
	// A legitimate client that is authorized.
	st, legit := h.registerFrom("192.0.2.2:1234")
	if st != http.StatusCreated {
		t.Fatalf("legitimate client: %d %v", st, legit)
	}
	legitID := legit["client_id"].(string)
	h.signIn("alice", "", time.Now())
	_, challenge := pkce()
	p := authParams(challenge)
	p.Set("client_id", legitID)
	p.Set("redirect_uri", "http://127.0.0.1/cb")
	h.code(p)
	// A flood from many addresses: every registration succeeds, the
	// total stays bounded, and the oldest unused ones go first.
	for i := range 500 {
		if st, m := h.registerFrom(fmt.Sprintf("198.51.%d.%d:80", i/250, i%250)); st != http.StatusCreated {
			t.Fatalf("flood registration %d: %d %v", i, st, m)
		}
	}
	if n := h.dynamicClients(); n > 50 {
		t.Fatalf("%d dynamic clients held, bound 50", n)
	}
	if h.known(first["client_id"].(string)) {
		t.Fatal("the oldest unused registration was not evicted")
	}
	if !h.known(legitID) {
		t.Fatal("an authorized client was evicted")
	}
	st, late := h.registerFrom("192.0.2.3:1234")
	if st != http.StatusCreated {
		t.Fatalf("a registration after the flood: %d %v", st, late)
	}
	// Unused registrations expire; the authorized one stays.
	h.clock.add(DefaultUnusedClientTTL + time.Minute)
	if st, _ := h.registerFrom("192.0.2.4:1234"); st != http.StatusCreated {
		t.Fatalf("registration after expiry: %d", st)
	}
	if h.known(late["client_id"].(string)) {
		t.Fatal("an unused registration outlived UnusedClientTTL")
	}
	if !h.known(legitID) {
		t.Fatal("an authorized client expired")
	}
	// Without an unused one to evict, the bound answers 503.
	full := newHarness(t, func(c *Config) { c.MaxDynamicClients = 1 })
	_, only := full.registerFrom("192.0.2.9:1")
	full.signIn("alice", "", time.Now())
	p.Set("client_id", only["client_id"].(string))
	full.code(p)
	if st, m := full.registerFrom("192.0.2.10:1"); st != http.StatusServiceUnavailable || m["error"] != ErrTemporarilyUnavailable {
		t.Fatalf("every client authorized: %d %v, want 503", st, m)
	}
}

// RegistrationAddress names the address behind a trusted proxy.
func TestRegistrationAddressBehindAProxy(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(c *Config) {
		c.MaxRegistrationsPerAddress = 1
		c.RegistrationAddress = func(r *http.Request) string { return r.Header.Get("X-Real-Ip") }
	})
	register := func(ip string) int {
		req := httptest.NewRequest(http.MethodPost, h.url(pathRegister), strings.NewReader(publicRegistration))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Real-Ip", ip)
		rec := httptest.NewRecorder()
		h.ts.Config.Handler.ServeHTTP(rec, req)
		return rec.Code
	}
	if register("203.0.113.1") != 201 || register("203.0.113.2") != 201 || register("203.0.113.1") != 429 {
		t.Fatal("the proxy's address was not the one bounded")
	}
}
