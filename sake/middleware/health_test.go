package middleware_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sakemcp/sake-go/sake/middleware"
)

func probe(h http.Handler, method, path string) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(method, path, nil))
	return w
}

// /healthz answers 200; /readyz answers 200 until a check fails or
// shutdown begins, then 503, naming what failed but not its error.
func TestHealth(t *testing.T) {
	t.Parallel()
	h := middleware.NewHealth(middleware.Logger(quiet))
	var down atomic.Bool
	h.AddCheck("database", func(ctx context.Context) error {
		if down.Load() {
			return errors.New("dial tcp 10.0.0.5:5432: connection refused")
		}
		return ctx.Err()
	})
	mux := http.NewServeMux()
	mux.Handle("/healthz", h)
	mux.Handle("/readyz", h)
	for _, path := range []string{"/healthz", "/readyz"} {
		if r := probe(mux, http.MethodGet, path); r.Code != http.StatusOK || r.Header().Get("Cache-Control") != "no-store" {
			t.Errorf("%s: %d %s", path, r.Code, r.Body)
		}
	}
	down.Store(true)
	r := probe(mux, http.MethodGet, "/readyz")
	if r.Code != http.StatusServiceUnavailable || !strings.Contains(r.Body.String(), `"check":"database"`) || strings.Contains(r.Body.String(), "10.0.0.5") {
		t.Errorf("failing check: %d %s", r.Code, r.Body)
	}
	if r := probe(mux, http.MethodGet, "/healthz"); r.Code != http.StatusOK {
		t.Errorf("healthz with a failing check: %d", r.Code)
	}
	down.Store(false)
	if r := probe(mux, http.MethodHead, "/readyz"); r.Code != http.StatusOK || r.Body.Len() != 0 {
		t.Errorf("recovered, HEAD: %d %q", r.Code, r.Body)
	}
	h.Shutdown()
	if r := probe(h.Ready(), http.MethodGet, "/"); r.Code != http.StatusServiceUnavailable || !strings.Contains(r.Body.String(), "shutting down") {
		t.Errorf("shutting down: %d %s", r.Code, r.Body)
	}
	if r := probe(h.Live(), http.MethodGet, "/"); r.Code != http.StatusOK {
		t.Errorf("healthz while shutting down: %d", r.Code)
	}
	if r := probe(mux, http.MethodPost, "/healthz"); r.Code != http.StatusMethodNotAllowed || r.Header().Get("Allow") != "GET, HEAD" {
		t.Errorf("POST: %d", r.Code)
	}
}

// A check that outlasts CheckTimeout fails.
func TestHealthCheckTimeout(t *testing.T) {
	t.Parallel()
	h := middleware.NewHealth(middleware.Logger(quiet), middleware.CheckTimeout(1))
	h.AddCheck("slow", func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() })
	if r := probe(h, http.MethodGet, "/readyz"); r.Code != http.StatusServiceUnavailable {
		t.Errorf("slow check: %d", r.Code)
	}
}
