package plug

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// hostAllowed applies the Host rule: the allowlist when one was given,
// otherwise the DNS-rebinding rule (a request that arrived on a loopback
// address must name a loopback host).
func (h *Handler) hostAllowed(r *http.Request) bool {
	c := &h.cfg
	if c.anyHost {
		return true
	}
	if len(c.hosts) > 0 {
		name, port := splitHostPort(r.Host)
		for _, a := range c.hosts {
			an, ap := splitHostPort(a)
			if strings.EqualFold(name, an) && (ap == "" || ap == port) {
				return true
			}
		}
		return false
	}
	if !arrivedOnLoopback(r) {
		return true
	}
	name, _ := splitHostPort(r.Host)
	return isLoopbackName(name)
}

// originAllowed applies the Origin rule: absent is fine (not a browser);
// otherwise the allowlist, or by default the host of the Host header over
// http or https, or, on a request that arrived on a loopback address, any
// loopback origin (localhost, 127.0.0.0/8, ::1) on any port. Without an
// allowlist the Origin must parse as a browser sends it (parseOrigin).
func (h *Handler) originAllowed(r *http.Request) bool {
	c := &h.cfg
	o := r.Header.Get("Origin")
	if o == "" || c.anyOrigin {
		return true
	}
	if len(c.origins) > 0 {
		o = strings.TrimSuffix(o, "/")
		for _, a := range c.origins {
			if strings.EqualFold(o, a) {
				return true
			}
		}
		return false
	}
	on, op, def, ok := parseOrigin(o)
	if !ok {
		return false
	}
	if isLoopbackName(on) && arrivedOnLoopback(r) {
		// A page served by another program on the user's own machine
		// (an inspector on another port): accepted on a loopback bind.
		return true
	}
	hn, hp := splitHostPort(r.Host)
	if hp == "" {
		hp = def
	}
	return strings.EqualFold(on, hn) && op == hp
}

// parseOrigin reads an Origin header as a browser serializes it: scheme
// "://" host, then ":" port unless it is the scheme's default. The scheme
// is http or https; the host a DNS name, an IPv4 address, or an IPv6
// address in brackets; the port a decimal number from 1 to 65535 without
// sign or leading zero. Anything else (a path, userinfo, a query, a port
// followed by more) is no origin: ok is false. name comes without
// brackets, port with the scheme's default (def) filled in.
func parseOrigin(o string) (name, port, def string, ok bool) {
	scheme, rest, found := strings.Cut(o, "://")
	switch {
	case !found:
		return "", "", "", false
	case strings.EqualFold(scheme, "http"):
		def = "80"
	case strings.EqualFold(scheme, "https"):
		def = "443"
	default:
		return "", "", "", false
	}
	if strings.HasPrefix(rest, "[") {
		end := strings.IndexByte(rest, ']')
		if end < 0 {
			return "", "", "", false
		}
		a, err := netip.ParseAddr(rest[1:end])
		if err != nil || !a.Is6() || a.Zone() != "" {
			return "", "", "", false
		}
		name, rest = rest[1:end], rest[end+1:]
	} else {
		end := strings.IndexByte(rest, ':')
		if end < 0 {
			end = len(rest)
		}
		name, rest = rest[:end], rest[end:]
		if !isHostName(name) {
			return "", "", "", false
		}
	}
	if rest == "" {
		return name, def, def, true
	}
	port, found = strings.CutPrefix(rest, ":")
	if !found || !isPort(port) {
		return "", "", "", false
	}
	return name, port, def, true
}

// isHostName reports whether s is a non-empty run of the characters of DNS
// names and IPv4 addresses: letters, digits, '-', '_' and '.'.
func isHostName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// isPort reports whether s is a TCP port in canonical decimal: 1 to 65535,
// digits only, no leading zero.
func isPort(s string) bool {
	if s == "" || len(s) > 5 || s[0] == '0' {
		return false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n <= 65535
}

// arrivedOnLoopback reports whether the request came in on a loopback
// address of this host.
func arrivedOnLoopback(r *http.Request) bool {
	switch a := r.Context().Value(http.LocalAddrContextKey).(type) {
	case *net.TCPAddr:
		return a.IP.IsLoopback()
	case net.Addr:
		if ap, err := netip.ParseAddrPort(a.String()); err == nil {
			return ap.Addr().IsLoopback()
		}
	}
	return false
}

// isLoopbackName reports whether a host name (without port or brackets)
// names this machine: localhost, 127.0.0.0/8 or ::1.
func isLoopbackName(name string) bool {
	if strings.EqualFold(name, "localhost") {
		return true
	}
	a, err := netip.ParseAddr(name)
	return err == nil && a.Unmap().IsLoopback()
}

// splitHostPort splits host[:port] without allocating. IPv6 literals may
// come in brackets ("[::1]:8080", "[::1]") or bare ("::1", no port); the
// name is returned without brackets.
func splitHostPort(s string) (name, port string) {
	if strings.HasPrefix(s, "[") {
		i := strings.IndexByte(s, ']')
		if i < 0 {
			return s, ""
		}
		name, rest := s[1:i], s[i+1:]
		if strings.HasPrefix(rest, ":") {
			port = rest[1:]
		}
		return name, port
	}
	i := strings.IndexByte(s, ':')
	if i < 0 || strings.IndexByte(s[i+1:], ':') >= 0 {
		return s, "" // a name, or a bare IPv6 address
	}
	return s[:i], s[i+1:]
}
