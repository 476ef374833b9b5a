package protocol

import (
	"encoding/json"
	"math"
	"time"
)

// CodeRateLimited refuses a request because its caller went over a rate
// limit or a per-caller concurrency limit. The error's data says when to try
// again (RetryData); over HTTP the answer is 429 Too Many Requests with a
// Retry-After header.
const CodeRateLimited = -32029

// RetryData is the data of an error that tells the client when to try
// again, as {"retryAfterMs":1200,"limit":"search"}. An error whose Data is
// a *RetryData sets Reply.RetryAfter, which HTTP transports send as
// Retry-After.
type RetryData struct {
	// RetryAfterMs is how long to wait before trying again, in
	// milliseconds.
	RetryAfterMs int64 `json:"retryAfterMs"`
	// Limit names the limit that refused the request, when it has a name.
	Limit string `json:"limit,omitempty"`
}

// RetryAfter returns the delay as a time.Duration.
func (d *RetryData) RetryAfter() time.Duration {
	return time.Duration(d.RetryAfterMs) * time.Millisecond
}

// RateLimited returns the CodeRateLimited error a request over the limit
// named limit is answered with: retry says when the next request can
// succeed (rounded up to a whole millisecond).
func RateLimited(limit string, retry time.Duration) *Error {
	msg := "Rate limit exceeded: too many requests from this caller; retry after the delay in data.retryAfterMs"
	if limit != "" {
		msg = "Rate limit " + limit + " exceeded: too many requests from this caller; retry after the delay in data.retryAfterMs"
	}
	return &Error{Code: CodeRateLimited, Message: msg, Data: &RetryData{RetryAfterMs: retryMillis(retry), Limit: limit}}
}

// retryMillis rounds d up to a whole, positive number of milliseconds.
func retryMillis(d time.Duration) int64 {
	ms := int64((d + time.Millisecond - 1) / time.Millisecond)
	return max(ms, 1)
}

// RetryAfter is how long the client should wait before retrying, as the
// error's data.retryAfterMs says (0 without it). It reads the data in
// every form it takes: a *RetryData as the server builds it, and the
// decoded JSON a client receives (json.RawMessage, or the map
// encoding/json makes of an object).
func (e *Error) RetryAfter() time.Duration {
	var ms int64
	switch d := e.Data.(type) {
	case *RetryData:
		if d == nil {
			return 0
		}
		ms = d.RetryAfterMs
	case RetryData:
		ms = d.RetryAfterMs
	case json.RawMessage:
		ms = rawRetryMs(d)
	case []byte:
		ms = rawRetryMs(d)
	case map[string]any:
		switch v := d["retryAfterMs"].(type) {
		case float64:
			if v > 0 && v < float64(math.MaxInt64/int64(time.Millisecond)) {
				ms = int64(v)
			}
		case json.Number:
			ms, _ = v.Int64()
		case int64:
			ms = v
		case int:
			ms = int64(v)
		}
	}
	if ms <= 0 || ms > math.MaxInt64/int64(time.Millisecond) {
		return 0
	}
	return time.Duration(ms) * time.Millisecond
}

// rawRetryMs is the retryAfterMs of an error's data as JSON, or 0.
func rawRetryMs(b []byte) int64 {
	var d struct {
		RetryAfterMs int64 `json:"retryAfterMs"`
	}
	if json.Unmarshal(b, &d) != nil {
		return 0
	}
	return d.RetryAfterMs
}
