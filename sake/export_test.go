package sake

// Session state the external tests look at, which no transport needs.

// Initialized reports whether notifications/initialized has arrived.
func (s *Session) Initialized() bool { return s.initializedYet() }

// LogLevel returns the level set with logging/setLevel, or "".
func (s *Session) LogLevel() LogLevel { return s.logLevelSet() }

// Subscribed reports whether the client subscribed to uri.
func (s *Session) Subscribed(uri string) bool { return s.subscribed(uri) }

// SameTool reports whether the published tool of that name is the same
// value before and after fn: reshaped tools are built once.
func SameTool(s *Server, name string, fn func()) bool {
	before := s.comps.current().toolsByName[name]
	fn()
	return before != nil && s.comps.current().toolsByName[name] == before
}
