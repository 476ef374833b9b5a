package plug_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake/plug"
)

// slowBody sends the headers of a POST and one byte of its 100-byte body,
// then nothing, and returns the response the server sends on its own.
func slowBody(t *testing.T, addr string) *http.Response {
	t.Helper()
	resp, _ := slowBodyConn(t, addr, "application/json")
	return resp
}

// slowBodyConn is slowBody, also returning the connection (its reader)
// after the response.
func slowBodyConn(t *testing.T, addr, contentType string) (*http.Response, *bufio.Reader) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	_, err = conn.Write([]byte("POST / HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: " + contentType + "\r\n" +
		"Accept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{"))
	if err != nil {
		t.Fatal(err)
	}
	// A failsafe: the test fails instead of hanging when the server
	// keeps the connection.
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("no response to a slow body: %v", err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp, br
}

// After the 408 the server closes the connection rather than waiting for
// the rest of the body: a client that trickles holds no connection.
func TestSlowBodyConnectionIsClosed(t *testing.T) {
	t.Parallel()
	ts, _, _ := serve(t, echo{}, plug.BodyReadTimeout(time.Millisecond))
	resp, br := slowBodyConn(t, strings.TrimPrefix(ts.URL, "http://"), "application/json")
	if resp.StatusCode != http.StatusRequestTimeout {
		t.Fatalf("slow body: %d, want 408", resp.StatusCode)
	}
	wantClosed(t, br)
}

// A request refused before its body is read is bounded the same way: the
// server does not wait without end for a body it will not use.
func TestRefusedSlowBodyConnectionIsClosed(t *testing.T) {
	t.Parallel()
	ts, _, _ := serve(t, echo{}, plug.BodyReadTimeout(time.Millisecond))
	resp, br := slowBodyConn(t, strings.TrimPrefix(ts.URL, "http://"), "text/plain")
	if resp.StatusCode != http.StatusUnsupportedMediaType {
		t.Fatalf("slow body of the wrong type: %d, want 415", resp.StatusCode)
	}
	wantClosed(t, br)
}

// wantClosed reads the connection after a response: the server must have
// closed it.
func wantClosed(t *testing.T, br *bufio.Reader) {
	t.Helper()
	b, err := br.ReadByte()
	switch {
	case err == nil:
		t.Fatalf("the server sent %q after the response", b)
	case errors.Is(err, os.ErrDeadlineExceeded):
		t.Fatal("the server kept the connection open after the response")
	case err != io.EOF && !errors.Is(err, syscall.ECONNRESET):
		t.Fatalf("reading after the response: %v", err)
	}
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

// A body sent whole but refused unread does not cost the connection: the
// deadline that bounds it is gone by the next request on it.
func TestRefusedWholeBodyKeepsTheConnection(t *testing.T) {
	t.Parallel()
	ts, _, _ := serve(t, echo{}, plug.BodyReadTimeout(time.Minute))
	body, hdr := modernCall("hi")
	bad := hdr.Clone()
	bad.Set("Content-Type", "text/plain")
	if resp := do(t, ts, http.MethodPost, body, bad); resp.StatusCode != http.StatusUnsupportedMediaType {
		t.Fatalf("wrong type: %d, want 415", resp.StatusCode)
	} else {
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	var reused bool
	ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
		GotConn: func(info httptrace.GotConnInfo) { reused = info.Reused },
	})
	resp := doCtx(t, ctx, ts, http.MethodPost, ts.URL, body, hdr)
	if r := readJSON(t, resp, http.StatusOK); r.Error != nil {
		t.Fatalf("the next request: %+v", r.Error)
	}
	if !reused {
		t.Error("the refused request's connection was not kept")
	}
}
