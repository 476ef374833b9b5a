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
// loopback origin (localhost, 127.0.0.0/8, ::1) on any port.
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
	scheme, rest, ok := strings.Cut(o, "://")
	if !ok || rest == "" || strings.ContainsAny(rest, "/?#@ ") {
		return false
	}
	var def string
	switch {
	case strings.EqualFold(scheme, "http"):
		def = "80"
	case strings.EqualFold(scheme, "https"):
		def = "443"
	default:
		return false
	}
	on, op := splitHostPort(rest)
	if isLoopbackName(on) && arrivedOnLoopback(r) {
		// A page served by another program on the user's own machine
		// (an inspector on another port): accepted on a loopback bind.
		return true
	}
	hn, hp := splitHostPort(r.Host)
	if op == "" {
		op = def
	}
	if hp == "" {
		hp = def
	}
	return on != "" && strings.EqualFold(on, hn) && op == hp
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
