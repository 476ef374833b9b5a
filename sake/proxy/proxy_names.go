package proxy

// Rename sets the local name of each remote tool and prompt: name is
// called with kind "tool" or "prompt" and the remote name, and returns
// the name served (before Prefix). Calls to the local name reach the
// remote one. It must be deterministic, and give distinct names to
// distinct remote names (a local name given twice is refused as a
// duplicate, see LeaveOut).
func Rename(name func(kind, remote string) string) Option {
	return func(p *proxyConfig) { p.rename = name }
}

// LeaveOut makes a remote tool or prompt the proxy's server refuses (an
// invalid or duplicate name, a schema it cannot take) a component left
// out, reported to report with its kind ("tool" or "prompt"), its remote
// name and why, instead of an error of New or of the list's refresh, so
// that one component does not keep the rest of its server out.
func LeaveOut(report func(kind, remote string, err error)) Option {
	return func(p *proxyConfig) { p.leaveOut = report }
}

// localName is the name a remote tool or prompt is served under.
func (p *proxyConfig) localName(kind, remote string) string {
	if p.rename != nil {
		remote = p.rename(kind, remote)
	}
	return p.prefix + remote
}

// refused handles a component the server would not add: left out when
// LeaveOut is set (it returns nil), else the error.
func (p *proxyConfig) refused(kind, remote string, err error) error {
	if p.leaveOut == nil {
		return err
	}
	p.leaveOut(kind, remote, err)
	return nil
}
