// Package kittest is the server and the connections the tests of
// sake/client and sake/proxy share: one kit of tools, resources and
// prompts, reached in memory, over HTTP and over stdio, in both eras.
//
// Recorder records the HTTP requests that reach a server. PyWire stands in for a server of another SDK (the Python SDK 1.x): it
// writes that server's envelopes by hand, as a foreign peer would.
package kittest
