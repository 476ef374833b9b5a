package gateway_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake/gateway"
)

// syncLog is a log destination that signals each record.
type syncLog struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	records chan struct{}
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, err := l.buf.Write(p)
	select {
	case l.records <- struct{}{}:
	default:
	}
	return n, err
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// TestLogsHideTheEntriesSecrets: the secrets expanded into an entry (its
// URL's userinfo and query, its headers) never reach the log, however
// the remote's failure names them.
func TestLogsHideTheEntriesSecrets(t *testing.T) {
	t.Setenv("SAKE_GW_TOKEN", "q-s3cret-value")
	// The remote fails, and its error echoes what it was sent.
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pass, _ := r.BasicAuth()
		http.Error(w, fmt.Sprintf("no: %s %s %s %s", r.URL.RawQuery, r.Header.Get("X-Api-Key"), user, pass), http.StatusInternalServerError)
	}))
	defer ts.Close()
	logs := &syncLog{records: make(chan struct{}, 1)}
	logger := slog.New(slog.NewTextHandler(logs, nil))
	host := strings.TrimPrefix(ts.URL, "http://")
	cfg, err := gateway.ParseConfig([]byte(fmt.Sprintf(`{"mcpServers": {"web": {
		"url": "http://alice-user:pw-s3cret-value@%s/mcp?key=${SAKE_GW_TOKEN}",
		"headers": {"X-Api-Key": "h-s3cret-value", "Authorization": "Bearer b-s3cret-value"}}}}`, host)))
	if err != nil {
		t.Fatal(err)
	}
	g, err := gateway.New(t.Context(), cfg, gateway.Logger(logger), gateway.StartTimeout(waitFor),
		gateway.Backoff(time.Millisecond, 2*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	deadline := time.NewTimer(waitFor)
	defer deadline.Stop()
	for !strings.Contains(logs.String(), "trying again") {
		select {
		case <-logs.records:
		case <-deadline.C:
			t.Fatalf("the failure was never logged: %s", logs)
		}
	}
	out := logs.String()
	for _, secret := range []string{"q-s3cret-value", "h-s3cret-value", "b-s3cret-value", "pw-s3cret-value", "alice-user"} {
		if strings.Contains(out, secret) {
			t.Errorf("the log shows %q:\n%s", secret, out)
		}
	}
	if !strings.Contains(out, "REDACTED") {
		t.Errorf("the log does not say what failed, redacted:\n%s", out)
	}
}
