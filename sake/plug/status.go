package plug

import (
	"net/http"
	"strconv"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// Header values shared by every response; net/http only reads them.
var (
	hdrJSON     = []string{"application/json"}
	hdrSSE      = []string{"text/event-stream"}
	hdrNoCache  = []string{"no-cache"}
	hdrNoBuffer = []string{"no"}
	hdrAllow    = []string{"GET, POST, DELETE"}
	// hdrAllowSessionless answers a GET or DELETE without a session: only
	// POST is possible until initialize opens one.
	hdrAllowSessionless = []string{"POST"}
)

// statusFor picks the HTTP status of a JSON (not streamed) reply.
//
// Modern era: 400 for the errors the protocol ties to 400 (parse, invalid
// request, invalid params, header mismatch, missing capability,
// unsupported version), 404 for method not found, 200 otherwise (a
// result, or any other error). Legacy and unclassified messages: 404 when
// the message named a session that is gone, 400 for a body that is not a
// JSON-RPC message, 200 otherwise.
func statusFor(r *sake.Reply) int {
	if r.Body == nil {
		return http.StatusAccepted
	}
	if r.SessionNotFound {
		return http.StatusNotFound
	}
	switch r.ErrorCode {
	case 0:
		return http.StatusOK
	case sake.CodeParseError, sake.CodeInvalidRequest:
		return http.StatusBadRequest
	}
	if r.Era != sake.EraModern {
		return http.StatusOK
	}
	switch r.ErrorCode {
	case sake.CodeInvalidParams, sake.CodeHeaderMismatch,
		sake.CodeMissingRequiredClientCapability, sake.CodeUnsupportedProtocolVersion:
		return http.StatusBadRequest
	case sake.CodeMethodNotFound:
		return http.StatusNotFound
	}
	return http.StatusOK
}

// errorBody renders the body of the transport's own refusals: a JSON-RPC
// error that answers no particular request, as the server spells it.
func errorBody(code int, message string) []byte { return protocol.ErrorBody(code, message) }

// Bodies of the common refusals, rendered once.
var (
	bodyForbiddenHost   = errorBody(sake.CodeInvalidRequest, "Forbidden: the Host header names a host this server does not serve (DNS rebinding protection); configure plug.AllowedHosts")
	bodyForbiddenOrigin = errorBody(sake.CodeInvalidRequest, "Forbidden: the Origin header names an origin this server does not allow; configure plug.AllowedOrigins")
	bodyMethod          = errorBody(sake.CodeInvalidRequest, "Method not allowed: the MCP endpoint answers POST, and GET and DELETE with an Mcp-Session-Id")
	bodyNoSession       = errorBody(sake.CodeInvalidRequest, "Method not allowed: GET and DELETE need the Mcp-Session-Id of a legacy session; the 2026-07-28 protocol uses POST only")
	bodyContentType     = errorBody(sake.CodeInvalidRequest, "Unsupported media type: send the JSON-RPC message with Content-Type: application/json")
	bodyAcceptPOST      = errorBody(sake.CodeInvalidRequest, "Not acceptable: the Accept header must allow application/json or text/event-stream")
	bodyAcceptGET       = errorBody(sake.CodeInvalidRequest, "Not acceptable: a GET stream needs an Accept header that allows text/event-stream")
	bodyTooLarge        = errorBody(sake.CodeInvalidRequest, "Request body too large")
	bodyUnreadable      = errorBody(sake.CodeParseError, "Parse error: the request body could not be read")
	bodySessionNotFound = errorBody(sake.CodeInvalidRequest, "Session not found: it ended or never existed; send initialize to start a new one")
	bodyTooMany         = errorBody(sake.CodeServerBusy, sake.TooManySessionsMessage)
	bodyStoreDown       = errorBody(sake.CodeServerBusy, "Service unavailable: the session store cannot be read right now; retry later, the session is kept")
	bodyNoRoom          = errorBody(sake.CodeServerBusy, "Server busy: this server has no room for the session right now; retry later, the session is kept")
	bodyShutdown        = errorBody(sake.CodeInternalError, "Service unavailable: the MCP endpoint is shutting down")
	bodyInternal        = errorBody(sake.CodeInternalError, "Internal error")
	bodyTooSlow         = errorBody(sake.CodeInvalidRequest, "Request timeout: the body did not arrive within the server's body read timeout; send it at once")
	bodyReplayLost      = errorBody(sake.CodeInvalidRequest, "Replay lost: events after this Last-Event-ID were dropped to bound the server's memory; send the request again (or, for the standalone stream, open a new GET without Last-Event-ID)")
	bodyBadEventID      = errorBody(sake.CodeInvalidRequest, "Bad Last-Event-ID: no stream of this session issued that event id; open a new stream without Last-Event-ID")
)

// writeJSON writes a complete JSON response.
func writeJSON(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h["Content-Type"] = hdrJSON
	if len(body) > 2048 { // small bodies get their Content-Length from net/http
		h["Content-Length"] = []string{strconv.Itoa(len(body))}
	}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
