package plug_test

import (
	"bufio"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake/plug"
)

// slowBody sends the headers of a POST and one byte of its 100-byte body,
// then nothing, and returns the response the server sends on its own.
func slowBody(t *testing.T, addr string) *http.Response {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	_, err = conn.Write([]byte("POST / HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\n" +
		"Accept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{"))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no response to a slow body: %v", err)
	}
	resp.Body.Close()
	return resp
}

// A body that does not arrive within BodyReadTimeout gets 408 and the
// connection is closed; the deadline covers only the body, so a request
// already running outlives it.
func TestSlowBodyTimesOut(t *testing.T) {
	t.Parallel()
	w := newWaiter()
	ts, _, _ := serve(t, w, plug.BodyReadTimeout(time.Millisecond))
	addr := strings.TrimPrefix(ts.URL, "http://")

	// A legacy call that streams and then waits for the test.
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait","_meta":{"progressToken":"p"}}}`
	hdr := legacyHeaders("")
	hdr.Set("MCP-Protocol-Version", "2025-03-26")
	done := make(chan *http.Response, 1)
	go func() { done <- do(t, ts, http.MethodPost, body, hdr) }()
	<-w.started

	resp := slowBody(t, addr)
	if resp.StatusCode != http.StatusRequestTimeout || !resp.Close {
		t.Fatalf("slow body: %d, close %v", resp.StatusCode, resp.Close)
	}
	// The slow body's deadline, set after the call's, has passed; the call
	// still runs and answers.
	close(w.release)
	r := <-done
	b := readAll(t, r)
	if r.StatusCode != http.StatusOK || !strings.Contains(b, "released") {
		t.Fatalf("the running call: %d %s", r.StatusCode, b)
	}
}

func readAll(t *testing.T, r *http.Response) string {
	t.Helper()
	var sb strings.Builder
	br := bufio.NewReader(r.Body)
	for {
		line, err := br.ReadString('\n')
		sb.WriteString(line)
		if err != nil {
			return sb.String()
		}
	}
}
