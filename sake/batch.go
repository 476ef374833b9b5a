package sake

import (
	"bytes"
	"context"
	"strings"

	"github.com/sakemcp/sake-go/sake/internal/jsonscan"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// JSON-RPC batches belong to the 2025-03-26 revision only: the revisions
// before and after it refuse them, and so does the dispatcher unless the
// message comes from a 2025-03-26 session (or a sessionless request whose
// header names that revision).

func batchAllowed(in *Inbound) bool {
	if in.Session != nil {
		return in.Session.version == "2025-03-26"
	}
	return in.Headers != nil && strings.TrimSpace(in.Headers.ProtocolVersion) == "2025-03-26"
}

func isArray(msg []byte) bool {
	t := bytes.TrimLeft(msg, " \t\r\n")
	return len(t) > 0 && t[0] == '['
}

// handleBatch answers each message of a batch in order and returns the
// responses as one array (no body when every message was a notification
// or a response).
func (s *Server) handleBatch(ctx context.Context, msg []byte, in *Inbound) Reply {
	var out []byte
	n := 0
	err := jsonscan.Elements(msg, func(elem []byte) error {
		n++
		if jsonscan.Kind(elem) == jsonscan.Array {
			// Batches do not nest: an array element is one invalid
			// request, decided without looking inside it, so the cost
			// stays linear in the body however deep the nesting.
			r := s.errorReply(nil, EraLegacy, &Error{Code: CodeInvalidRequest, Message: "Invalid request: a batch element must be a JSON-RPC message object, not an array; batches do not nest"})
			out = appendBatch(out, r.Body)
			return nil
		}
		if m, ok := peekMethod(elem); ok && m == "initialize" {
			r := s.errorReply(idOf(elem), EraLegacy, &Error{Code: CodeInvalidRequest, Message: "Invalid request: initialize must not be part of a batch"})
			out = appendBatch(out, r.Body)
			return nil
		}
		r := s.Handle(ctx, elem, in)
		out = appendBatch(out, r.Body)
		return nil
	})
	switch {
	case err != nil:
		return s.errorReply(nil, EraLegacy, &Error{Code: CodeParseError, Message: "Parse error: the batch is not valid JSON"})
	case n == 0:
		return s.errorReply(nil, EraLegacy, &Error{Code: CodeInvalidRequest, Message: "Invalid request: an empty batch"})
	case out == nil:
		return Reply{Era: EraLegacy}
	}
	return Reply{Body: append(out, ']'), Era: EraLegacy}
}

func appendBatch(out, body []byte) []byte {
	if body == nil {
		return out
	}
	if out == nil {
		out = []byte{'['}
	} else {
		out = append(out, ',')
	}
	return append(out, body...)
}

// peekMethod returns the method of a message, if it is an object with one.
func peekMethod(elem []byte) (string, bool) {
	var method string
	found := false
	_ = jsonscan.Members(elem, func(key, v []byte) error {
		if string(key) == "method" {
			method, found = str(v)
		}
		return nil
	})
	return method, found
}

// idOf returns the id of a message, or nil.
func idOf(elem []byte) []byte {
	var id []byte
	_ = jsonscan.Members(elem, func(key, v []byte) error {
		if string(key) == "id" && protocol.ValidID(v) {
			id = v
		}
		return nil
	})
	return id
}
