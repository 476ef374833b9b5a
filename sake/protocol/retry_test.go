package protocol_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake/protocol"
)

// RetryAfter reads the delay whatever form the data takes: as the server
// builds it, and as a client decodes it; data without a usable delay
// gives 0.
func TestErrorRetryAfterReadsDecodedData(t *testing.T) {
	t.Parallel()
	sent := protocol.RateLimited("search", 1500*time.Millisecond)
	wire, err := json.Marshal(sent)
	if err != nil {
		t.Fatal(err)
	}
	var decoded protocol.Error
	if err := json.Unmarshal(wire, &decoded); err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Data json.RawMessage `json:"data"`
	}
	_ = json.Unmarshal(wire, &raw)
	for _, c := range []struct {
		name string
		data any
		want time.Duration
	}{
		{"server", sent.Data, 1500 * time.Millisecond},
		{"value", protocol.RetryData{RetryAfterMs: 7}, 7 * time.Millisecond},
		{"decoded map", decoded.Data, 1500 * time.Millisecond},
		{"raw", raw.Data, 1500 * time.Millisecond},
		{"nil", nil, 0},
		{"nil pointer", (*protocol.RetryData)(nil), 0},
		{"no delay", map[string]any{"limit": "x"}, 0},
		{"negative", map[string]any{"retryAfterMs": -5.0}, 0},
		{"a string", map[string]any{"retryAfterMs": "5"}, 0},
		{"not JSON", json.RawMessage(`{`), 0},
		{"huge", map[string]any{"retryAfterMs": 1e300}, 0},
	} {
		if got := (&protocol.Error{Code: protocol.CodeRateLimited, Data: c.data}).RetryAfter(); got != c.want {
			t.Errorf("%s: RetryAfter() = %v, want %v", c.name, got, c.want)
		}
	}
}
