package sake

// PassLog passes on a log message that another server sent within this
// call, as a proxy does with its remote server's. It reaches the client
// as Log's messages do, at or above the level the client asked for; and
// also, in the 2025-11-25 handshake era, when the client's session set no
// level at all (no logging/setLevel), because the server it came from
// chose to send it, as that revision lets a server do, and the client
// would have received it directly.
func (c *Context) PassLog(level LogLevel, logger string, data any) {
	if c.req.Era != EraLegacy || c.minLogLevel() != 0 {
		c.Log(level, logger, data)
		return
	}
	b, ok := c.srv.logMessage(level, logger, data)
	if !ok {
		return
	}
	c.notify(b)
}
