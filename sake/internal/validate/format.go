package validate

import (
	"net/netip"
	"net/url"
	"regexp"
	"strings"
)

// formatChecker asserts one "format" value.
type formatChecker struct {
	check func(string) bool
	msg   string
}

// formats lists the asserted formats; others are annotations only.
var formats = map[string]formatChecker{
	"date-time":     {isDateTime, "must be a valid RFC 3339 date-time"},
	"date":          {isDate, "must be a valid date (YYYY-MM-DD)"},
	"time":          {isTime, "must be a valid RFC 3339 time"},
	"email":         {isEmail, "must be a valid email address"},
	"uri":           {isURI, "must be a valid absolute URI"},
	"uri-reference": {isURIReference, "must be a valid URI reference"},
	"uuid":          {isUUID, "must be a valid UUID"},
	"ipv4":          {isIPv4, "must be a valid IPv4 address"},
	"ipv6":          {isIPv6, "must be a valid IPv6 address"},
	"hostname":      {isHostname, "must be a valid hostname"},
	"duration":      {isDuration, "must be a valid ISO 8601 duration"},
	"regex":         {isRegex, "must be a valid regular expression"},
}

func isDigit(b byte) bool { return '0' <= b && b <= '9' }

func isHex(b byte) bool {
	return isDigit(b) || 'a' <= b && b <= 'f' || 'A' <= b && b <= 'F'
}

func isAlnum(b byte) bool {
	return isDigit(b) || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
}

// digits parses s[i:i+n] as a decimal number made of exactly n digits.
func digits(s string, i, n int) (int, bool) {
	if i+n > len(s) {
		return 0, false
	}
	v := 0
	for j := i; j < i+n; j++ {
		if !isDigit(s[j]) {
			return 0, false
		}
		v = v*10 + int(s[j]-'0')
	}
	return v, true
}

func daysIn(year, month int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// isDate checks an RFC 3339 full-date: YYYY-MM-DD.
func isDate(s string) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	y, ok1 := digits(s, 0, 4)
	m, ok2 := digits(s, 5, 2)
	d, ok3 := digits(s, 8, 2)
	return ok1 && ok2 && ok3 && m >= 1 && m <= 12 && d >= 1 && d <= daysIn(y, m)
}

// isTime checks an RFC 3339 full-time: HH:MM:SS[.frac](Z|±HH:MM). A leap
// second (:60) is accepted only when it falls at 23:59 UTC.
func isTime(s string) bool {
	if len(s) < 9 || s[2] != ':' || s[5] != ':' {
		return false
	}
	h, ok1 := digits(s, 0, 2)
	mi, ok2 := digits(s, 3, 2)
	sec, ok3 := digits(s, 6, 2)
	if !ok1 || !ok2 || !ok3 || h > 23 || mi > 59 || sec > 60 {
		return false
	}
	i := 8
	if s[i] == '.' {
		i++
		start := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if i == start || i == len(s) {
			return false
		}
	}
	offset := 0
	switch s[i] {
	case 'Z', 'z':
		if i+1 != len(s) {
			return false
		}
	case '+', '-':
		if len(s) != i+6 || s[i+3] != ':' {
			return false
		}
		oh, ok1 := digits(s, i+1, 2)
		om, ok2 := digits(s, i+4, 2)
		if !ok1 || !ok2 || oh > 23 || om > 59 {
			return false
		}
		offset = oh*60 + om
		if s[i] == '-' {
			offset = -offset
		}
	default:
		return false
	}
	if sec == 60 {
		utc := ((h*60+mi-offset)%1440 + 1440) % 1440
		return utc == 23*60+59
	}
	return true
}

// isDateTime checks an RFC 3339 date-time.
func isDateTime(s string) bool {
	return len(s) > 11 && (s[10] == 'T' || s[10] == 't') && isDate(s[:10]) && isTime(s[11:])
}

// isDuration checks an ISO 8601 duration as profiled by RFC 3339 appendix A:
// PnYnMnD, PTnHnMnS (components optional but in order, at least one) or PnW.
func isDuration(s string) bool {
	if len(s) < 3 || s[0] != 'P' {
		return false
	}
	i := 1
	n := 0
	for i+n < len(s) && isDigit(s[i+n]) {
		n++
	}
	if n > 0 && i+n < len(s) && s[i+n] == 'W' {
		return i+n+1 == len(s)
	}
	seen := false
	// The designators of one part form an unbroken run of order (RFC 3339
	// appendix A: years are followed by months if anything, months by
	// days; hours by minutes, minutes by seconds).
	scan := func(order string, stop byte) bool {
		next := -1 // index in order the next designator must have; -1 for any
		for i < len(s) && s[i] != stop {
			start := i
			for i < len(s) && isDigit(s[i]) {
				i++
			}
			if i == start || i == len(s) {
				return false
			}
			j := strings.IndexByte(order, s[i])
			if j < 0 || (next >= 0 && j != next) {
				return false
			}
			next = j + 1
			i++
			seen = true
		}
		return true
	}
	if !scan("YMD", 'T') {
		return false
	}
	if i < len(s) { // 'T'
		i++
		seen = false
		if !scan("HMS", 0) || !seen {
			return false
		}
	}
	return seen
}

// isHostname checks an RFC 1123 host name (with A-labels checked as
// format_idna.go says): dot-separated labels of 1-63
// letters, digits and hyphens, not starting or ending with a hyphen, at most
// 253 characters in total.
func isHostname(s string) bool {
	if len(s) == 0 || len(s) > 253 {
		return false
	}
	start := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && s[i] != '.' {
			if b := s[i]; !isAlnum(b) && b != '-' {
				return false
			}
			continue
		}
		n := i - start
		if n == 0 || n > 63 || s[start] == '-' || s[i-1] == '-' || !checkALabel(s[start:i]) {
			return false
		}
		start = i + 1
	}
	return true
}

// isEmail checks an RFC 5321 mailbox: a dot-atom or quoted local part, "@",
// and a host name or bracketed IP address literal.
func isEmail(s string) bool {
	at := strings.LastIndexByte(s, '@')
	if at <= 0 || at == len(s)-1 || at > 64 {
		return false
	}
	local, domain := s[:at], s[at+1:]
	if local[0] == '"' {
		if len(local) < 2 || local[len(local)-1] != '"' {
			return false
		}
		for i := 1; i < len(local)-1; i++ {
			b := local[i]
			if b == '\\' {
				i++
				if i >= len(local)-1 {
					return false
				}
				b = local[i]
			} else if b == '"' {
				return false
			}
			if b < 0x20 || b > 0x7e {
				return false
			}
		}
	} else {
		if local[0] == '.' || local[len(local)-1] == '.' || strings.Contains(local, "..") {
			return false
		}
		for i := 0; i < len(local); i++ {
			if b := local[i]; !isAlnum(b) && b != '.' && strings.IndexByte("!#$%&'*+-/=?^_`{|}~", b) < 0 {
				return false
			}
		}
	}
	if domain[0] == '[' {
		if domain[len(domain)-1] != ']' {
			return false
		}
		lit := domain[1 : len(domain)-1]
		if v6, ok := strings.CutPrefix(lit, "IPv6:"); ok {
			return isIPv6(v6)
		}
		return isIPv4(lit)
	}
	return isHostname(domain)
}

// uriChars reports whether s only contains characters allowed in a URI
// (RFC 3986), with well-formed percent-encodings and at most one '#'.
func uriChars(s string) bool {
	hashes := 0
	for i := 0; i < len(s); i++ {
		b := s[i]
		switch {
		case isAlnum(b):
		case b == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return false
			}
			i += 2
		case b == '#':
			hashes++
		case strings.IndexByte("-._~:/?[]@!$&'()*+,;=", b) >= 0:
		default:
			return false
		}
	}
	return hashes <= 1
}

// isURI checks an absolute URI (with a scheme).
func isURI(s string) bool {
	if !uriChars(s) || !uriShape(s) {
		return false
	}
	u, err := url.Parse(s)
	return err == nil && u.Scheme != ""
}

// isURIReference checks a URI or relative reference.
func isURIReference(s string) bool {
	if !uriChars(s) || !uriShape(s) {
		return false
	}
	_, err := url.Parse(s)
	return err == nil
}

// isUUID checks the 8-4-4-4-12 hexadecimal form.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch i {
		case 8, 13, 18, 23:
			if s[i] != '-' {
				return false
			}
		default:
			if !isHex(s[i]) {
				return false
			}
		}
	}
	return true
}

// isIPv4 checks dotted-quad notation without leading zeros.
func isIPv4(s string) bool {
	a, err := netip.ParseAddr(s)
	return err == nil && a.Is4()
}

// isIPv6 checks an IPv6 address without a zone.
func isIPv6(s string) bool {
	if strings.IndexByte(s, '%') >= 0 {
		return false
	}
	a, err := netip.ParseAddr(s)
	return err == nil && a.Is6()
}

// isRegex checks that s compiles as a Go regular expression.
func isRegex(s string) bool {
	_, err := regexp.Compile(s)
	return err == nil
}

// uriShape checks what net/url lets through: square brackets only around
// an IP literal host, and at most one "@" in the authority (RFC 3986
// section 3.2).
func uriShape(s string) bool {
	rest := s
	if i := strings.IndexAny(rest, ":/?#"); i > 0 && rest[i] == ':' {
		rest = rest[i+1:] // after the scheme
	}
	if strings.HasPrefix(rest, "//") {
		rest = rest[2:]
		end := strings.IndexAny(rest, "/?#")
		if end < 0 {
			end = len(rest)
		}
		auth := rest[:end]
		rest = rest[end:]
		if strings.Count(auth, "@") > 1 {
			return false
		}
		host := auth[strings.IndexByte(auth, '@')+1:]
		if strings.HasPrefix(host, "[") {
			close := strings.IndexByte(host, ']')
			if close < 0 || (close+1 < len(host) && host[close+1] != ':') {
				return false
			}
			host = host[close+1:]
		}
		if strings.ContainsAny(host, "[]") || strings.ContainsAny(auth[:strings.IndexByte(auth, '@')+1], "[]") {
			return false
		}
	}
	return !strings.ContainsAny(rest, "[]")
}
