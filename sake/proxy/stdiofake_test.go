package proxy_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"testing"

	"github.com/sakemcp/sake-go/sake/client"
)

// stdioServer is a handshake-era server over a pair of pipes, written by
// hand as a third-party stdio server behaves: it answers the handshake,
// lists one tool, "work", and holds each call of it until the test
// answers; it writes whatever else the test tells it to (log messages of
// its own, requests of its own) when the test says.
type stdioServer struct {
	t   *testing.T
	wmu sync.Mutex
	out io.Writer
	// initialized is closed when notifications/initialized comes.
	initialized chan struct{}
	// calls gets the id of each tools/call of "work".
	calls chan json.RawMessage
	// answers gets the client's responses to the server's requests.
	answers chan string
	// cancels gets the notifications/cancelled the client sends.
	cancels chan string
	// stop ends the server's output.
	stop func()
}

// newStdioServer starts the server and returns the client's transport to
// it.
func newStdioServer(t *testing.T) (*stdioServer, client.Transport) {
	t.Helper()
	fromClient, toServer := io.Pipe()
	fromServer, toClient := io.Pipe()
	s := &stdioServer{t: t, out: toClient, initialized: make(chan struct{}),
		calls: make(chan json.RawMessage, 32), answers: make(chan string, 8), cancels: make(chan string, 8),
		stop: func() { toClient.Close() }}
	go s.serve(fromClient)
	t.Cleanup(func() { fromClient.Close(); toClient.Close() })
	return s, client.Stream(fromServer, toServer)
}

// write sends one line to the client.
func (s *stdioServer) write(format string, args ...any) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_, _ = fmt.Fprintf(s.out, format+"\n", args...)
}

func (s *stdioServer) serve(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	once := sync.Once{}
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		reply := func(result string) { s.write(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, result) }
		switch {
		case m.Method == "" && m.ID != nil:
			s.answers <- sc.Text()
		case m.Method == "notifications/initialized":
			once.Do(func() { close(s.initialized) })
		case m.Method == "notifications/cancelled":
			select {
			case s.cancels <- sc.Text():
			default:
			}
		case m.ID == nil:
		case m.Method == "initialize":
			reply(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"logging":{}},"serverInfo":{"name":"handmade","version":"1"}}`)
		case m.Method == "tools/list":
			reply(`{"tools":[{"name":"work","inputSchema":{"type":"object"}}]}`)
		case m.Method == "tools/call":
			s.calls <- m.ID
		case m.Method == "logging/setLevel", m.Method == "ping":
			reply(`{}`)
		default:
			s.write(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}`, m.ID)
		}
	}
}

// finish answers the call of id.
func (s *stdioServer) finish(id json.RawMessage, text string) {
	s.write(`{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":%q}]}}`, id, text)
}
