package saketest

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/sakemcp/sake-go/sake"
)

// Challenge is a parsed WWW-Authenticate challenge (RFC 9110 §11.6.1):
// its scheme and its parameters, names lower-cased.
type Challenge struct {
	Scheme string
	Params map[string]string
}

// ParseChallenge parses the first challenge of a WWW-Authenticate header:
// `Bearer error="insufficient_scope", scope="a b",
// resource_metadata="https://..."`. It reports false when h holds none.
func ParseChallenge(h string) (Challenge, bool) {
	h = strings.TrimSpace(h)
	i := strings.IndexAny(h, " \t")
	if i < 0 {
		return Challenge{Scheme: h, Params: map[string]string{}}, h != ""
	}
	ch := Challenge{Scheme: h[:i], Params: map[string]string{}}
	rest := h[i:]
	for {
		rest = strings.TrimLeft(rest, " \t,")
		eq := strings.IndexByte(rest, '=')
		if eq <= 0 {
			break
		}
		name := strings.ToLower(strings.TrimSpace(rest[:eq]))
		if strings.ContainsAny(name, " \t,") {
			break // the next challenge's scheme
		}
		rest = strings.TrimLeft(rest[eq+1:], " \t")
		var value string
		if strings.HasPrefix(rest, `"`) {
			var b strings.Builder
			j := 1
			for ; j < len(rest) && rest[j] != '"'; j++ {
				if rest[j] == '\\' && j+1 < len(rest) {
					j++
				}
				b.WriteByte(rest[j])
			}
			value, rest = b.String(), rest[min(j+1, len(rest)):]
		} else {
			end := strings.IndexAny(rest, ", \t")
			if end < 0 {
				end = len(rest)
			}
			value, rest = rest[:end], rest[end:]
		}
		ch.Params[name] = value
	}
	return ch, ch.Scheme != ""
}

// authError is what the challenge says as *sake.InsufficientScopeError or
// *sake.InsufficientAuthenticationError, or nil for other challenges.
func (ch Challenge) authError() error {
	switch ch.Params["error"] {
	case "insufficient_scope":
		return &sake.InsufficientScopeError{Scopes: strings.Fields(ch.Params["scope"]), ResourceMetadata: ch.Params["resource_metadata"]}
	case "insufficient_user_authentication":
		e := &sake.InsufficientAuthenticationError{ACRValues: strings.Fields(ch.Params["acr_values"]), ResourceMetadata: ch.Params["resource_metadata"]}
		if n, err := strconv.ParseInt(ch.Params["max_age"], 10, 64); err == nil {
			d := time.Duration(n) * time.Second
			e.MaxAge = &d
		}
		return e
	}
	return nil
}

// withChallenge completes an authorization error decoded from a JSON-RPC
// body with what only the HTTP challenge carries.
func withChallenge(err error, header string) error {
	ch, ok := ParseChallenge(header)
	if !ok {
		return err
	}
	var se *sake.InsufficientScopeError
	var ae *sake.InsufficientAuthenticationError
	switch {
	case errors.As(err, &se):
		se.ResourceMetadata = ch.Params["resource_metadata"]
		if len(se.Scopes) == 0 {
			se.Scopes = strings.Fields(ch.Params["scope"])
		}
	case errors.As(err, &ae):
		ae.ResourceMetadata = ch.Params["resource_metadata"]
		if from, ok := ch.authError().(*sake.InsufficientAuthenticationError); ok {
			if len(ae.ACRValues) == 0 {
				ae.ACRValues = from.ACRValues
			}
			if ae.MaxAge == nil {
				ae.MaxAge = from.MaxAge
			}
		}
	}
	return err
}
