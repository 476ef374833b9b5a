package sake

// WaitsOutside tells the transport that the handler is about to wait for
// something outside this server, such as a remote server's answer (a
// proxy's and a gateway's components call it before every forwarded
// request). A transport that runs requests on the goroutine reading its
// input (sake/stdio) hands the reading on at once, so that the requests
// that follow are read and run meanwhile instead of waiting their turn
// behind this one. Elsewhere it does nothing; it never blocks.
func (c *Context) WaitsOutside() {
	if c == nil || c.req == nil {
		return
	}
	if in := c.req.in; in != nil {
		if aw, ok := in.Stream.(answerAwaiter); ok {
			aw.AwaitingAnswer()
		}
	}
}
