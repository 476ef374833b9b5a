package plug

import (
	"net/http"
	"strconv"
	"time"

	"github.com/sakemcp/sake-go/sake"
)

// writeRetry answers an error that says when to try again
// (sake.Reply.RetryAfter) with its HTTP status and a Retry-After header,
// whatever the client accepts: 429 for sake.CodeRateLimited, 503 for a
// busy server. It reports whether it answered.
func writeRetry(w http.ResponseWriter, reply *sake.Reply) bool {
	if reply.RetryAfter <= 0 {
		return false
	}
	var status int
	switch {
	case reply.ErrorCode == sake.CodeRateLimited:
		status = http.StatusTooManyRequests
	case reply.Busy:
		status = http.StatusServiceUnavailable
	default:
		return false
	}
	w.Header().Set("Retry-After", retrySeconds(reply.RetryAfter))
	writeJSON(w, status, reply.Body)
	return true
}

// retrySeconds renders d in whole seconds, rounded up, at least 1.
func retrySeconds(d time.Duration) string {
	return strconv.Itoa(int(max((d+time.Second-1)/time.Second, 1)))
}
