package client

import (
	"fmt"
	"net/http"

	"github.com/sakemcp/sake-go/sake/protocol"
)

// HTTPError is a failure of the HTTP transport: the server answered with a
// status that is not a JSON-RPC answer. RPC holds the JSON-RPC error of
// the body when there was one; errors.As reaches it.
type HTTPError struct {
	Status int
	Header http.Header
	// Body is the start of the response body (at most 4 KiB).
	Body []byte
	RPC  *protocol.Error

	location string // where a redirect pointed, resolved against the endpoint
}

// Error implements error.
func (e *HTTPError) Error() string {
	if e.Status/100 == 3 {
		to := e.location
		if to == "" && e.Header != nil {
			to = e.Header.Get("Location")
		}
		if to == "" {
			return fmt.Sprintf("client: HTTP %d: the endpoint redirects without a Location; configure the endpoint's final URL (the client follows no redirects)", e.Status)
		}
		return fmt.Sprintf("client: HTTP %d: the endpoint redirects to %s; configure that URL as the endpoint (the client follows no redirects, so that its credentials go to the endpoint only)", e.Status, to)
	}
	if e.RPC != nil {
		return fmt.Sprintf("client: HTTP %d: %v", e.Status, e.RPC)
	}
	if len(e.Body) > 0 {
		return fmt.Sprintf("client: HTTP %d: %.200s", e.Status, e.Body)
	}
	return fmt.Sprintf("client: HTTP %d %s", e.Status, http.StatusText(e.Status))
}

// Unwrap returns the JSON-RPC error of the body, if any.
func (e *HTTPError) Unwrap() error {
	if e.RPC == nil {
		return nil
	}
	return e.RPC
}
