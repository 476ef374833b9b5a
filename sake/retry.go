package sake

// RemoteAddr returns the client's network address when the transport knows
// it (HTTP: its IP, without the port), or "".
func (r *Request) RemoteAddr() string {
	if r.in == nil {
		return ""
	}
	return r.in.RemoteAddr
}
