package tasks

import (
	"strings"
	"unicode/utf8"

	"github.com/sakemcp/sake-go/sake"
)

// checkStatusMessage refuses a status message that some store could not
// keep (PostgreSQL's text holds neither NUL nor invalid UTF-8), so that
// every store behaves alike.
func checkStatusMessage(s string) error {
	if utf8.ValidString(s) && strings.IndexByte(s, 0) < 0 {
		return nil
	}
	return &sake.Error{Code: sake.CodeInvalidParams,
		Message: "Invalid params: a task's status message must be valid UTF-8 without NUL characters; remove them (strings.ToValidUTF8) and report again",
		Data:    map[string]any{"reason": "status_message"}}
}

// mendStatusMessage replaces each NUL and each invalid UTF-8 sequence of s
// with U+FFFD.
func mendStatusMessage(s string) string {
	if checkStatusMessage(s) == nil {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}
