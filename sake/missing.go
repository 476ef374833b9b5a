package sake

// ExplainMissing lets the server say why it has no tool, prompt or
// resource of a name just now (a gateway whose remote server behind a
// namespace is restarting): explain is asked with the kind ("tool",
// "prompt" or "resource") and the name or URI a caller used when the
// server has no component of it at all (never for one a list policy
// hides), and the error it returns is the caller's answer in place of the
// usual -32602 "Unknown tool", "Unknown prompt" or resource not found: a
// *Error as it is, another error as an internal error with its text. nil
// keeps the usual answer.
func ExplainMissing(explain func(kind, name string) error) Option {
	return func(o *options) { o.explainMissing = explain }
}

// missing is the answer to a call of a component the server does not
// have: the ExplainMissing error, or else unknown's.
func (s *Server) missing(kind, name string, unknown func() error) error {
	if fn := s.opts.explainMissing; fn != nil {
		if err := fn(kind, name); err != nil {
			if _, ok := err.(*Error); ok {
				return err
			}
			return NewError(CodeInternalError, "%v", err)
		}
	}
	return unknown()
}
