package client

import (
	"strconv"
	"strings"
	"time"
)

// Challenge is a WWW-Authenticate challenge of an MCP server.
type Challenge struct {
	// Scheme is "Bearer" or "DPoP".
	Scheme string
	// Error is the error parameter: "invalid_token",
	// "insufficient_scope", "insufficient_user_authentication", ...
	Error string
	// Scopes are the scopes the server asks for (scope).
	Scopes []string
	// ACRValues and MaxAge are what a step-up of the sign-in must meet
	// (RFC 9470).
	ACRValues []string
	MaxAge    *time.Duration
	// ResourceMetadata is the URL of the protected resource metadata
	// (RFC 9728).
	ResourceMetadata string
	// Params holds every parameter, by lower-cased name.
	Params map[string]string
}

// ParseChallenge reads the first Bearer or DPoP challenge of a
// WWW-Authenticate header value (the first challenge of any scheme when
// neither is there).
func ParseChallenge(header string) Challenge {
	chs := parseChallenges(header)
	if len(chs) == 0 {
		return Challenge{Params: map[string]string{}}
	}
	pick := chs[0]
	for _, c := range chs {
		if strings.EqualFold(c.Scheme, "Bearer") || strings.EqualFold(c.Scheme, "DPoP") {
			pick = c
			break
		}
	}
	p := pick.Params
	out := Challenge{Scheme: pick.Scheme, Error: p["error"], ResourceMetadata: p["resource_metadata"], Params: p}
	out.Scopes = strings.Fields(p["scope"])
	out.ACRValues = strings.Fields(p["acr_values"])
	if v, ok := p["max_age"]; ok {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
			d := time.Duration(n) * time.Second
			out.MaxAge = &d
		}
	}
	return out
}

type rawChallenge struct {
	Scheme string
	Params map[string]string
}

// parseChallenges splits a WWW-Authenticate value into its challenges
// (RFC 9110 §11.6.1): scheme, then comma-separated name=value pairs whose
// values are tokens or quoted strings.
func parseChallenges(s string) []rawChallenge {
	var out []rawChallenge
	i := 0
	skip := func() {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == ',') {
			i++
		}
	}
	token := func() string {
		start := i
		for i < len(s) && s[i] != ' ' && s[i] != '\t' && s[i] != ',' && s[i] != '=' {
			i++
		}
		return s[start:i]
	}
	for {
		skip()
		if i >= len(s) {
			return out
		}
		scheme := token()
		if scheme == "" {
			i++
			continue
		}
		ch := rawChallenge{Scheme: scheme, Params: map[string]string{}}
		for {
			for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
				i++
			}
			save := i
			skip()
			name := token()
			j := i
			for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
				j++
			}
			if name == "" || j >= len(s) || s[j] != '=' {
				// not a parameter: the next challenge starts here
				i = save
				break
			}
			i = j + 1
			for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
				i++
			}
			var value string
			if i < len(s) && s[i] == '"' {
				i++
				var b strings.Builder
				for i < len(s) && s[i] != '"' {
					if s[i] == '\\' && i+1 < len(s) {
						i++
					}
					b.WriteByte(s[i])
					i++
				}
				i++ // closing quote
				value = b.String()
			} else {
				value = token()
				for i < len(s) && s[i] == '=' { // token68 padding
					value += "="
					i++
				}
			}
			ch.Params[strings.ToLower(name)] = value
			for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
				i++
			}
			if i < len(s) && s[i] == ',' {
				continue
			}
			break
		}
		out = append(out, ch)
	}
}
