package stdio_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/stdio"
)

func TestGarbageLine(t *testing.T) {
	c := start(t, newServer(t, newTools()))
	c.send("this is not JSON", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, call(2, "echo", `{"text":"still here"}`, ""))
	m := c.recv()
	if m.Error == nil || m.Error.Code != -32700 || string(m.ID) != "null" {
		t.Errorf("garbage: %s", m.raw)
	}
	m = c.recv()
	if m.Error == nil || m.Error.Code != -32600 {
		t.Errorf("batch: %s", m.raw)
	}
	if got := c.recvID(2).text(t); got != "still here" {
		t.Errorf("text = %q", got)
	}
}

func TestOverLongLine(t *testing.T) {
	c := start(t, newServer(t, newTools()), stdio.MaxLineBytes(64))
	ping := func(id int) string { return `{"jsonrpc":"2.0","id":` + jsonOf(id) + `,"method":"ping"}` }
	pad := func(s string, n int) string { return s + strings.Repeat(" ", n-len(s)) }
	c.send(strings.Repeat("x", 200), ping(2))
	m := c.recv()
	if m.Error == nil || m.Error.Code != -32600 || string(m.ID) != "null" ||
		!strings.HasPrefix(m.Error.Message, "message too long:") || !strings.HasSuffix(m.Error.Message, "the limit is 64 bytes") {
		t.Fatalf("over-long line: %s", m.raw)
	}
	c.recvID(2)

	// Exactly the limit passes, with or without "\r"; one byte more does not.
	c.send(pad(ping(3), 64), pad(ping(4), 64)+"\r", pad(ping(5), 65))
	got := map[string]bool{}
	for range 3 {
		m := c.recv()
		if m.Error != nil && m.Error.Code == -32600 {
			got["too long"] = true
		} else {
			got[string(m.ID)] = m.Error == nil
		}
	}
	if !got["3"] || !got["4"] || !got["too long"] {
		t.Fatalf("at the limit: %v", got)
	}

	// A line far longer than the read buffer is skipped as well.
	c.send(`{"jsonrpc":"2.0","id":6,"method":"ping","params":{"x":"`+strings.Repeat("y", 300<<10)+`"}}`, ping(7))
	if m := c.recv(); m.Error == nil || m.Error.Code != -32600 || !strings.Contains(m.Error.Message, "307") {
		t.Fatalf("huge line: %s", m.raw)
	}
	c.recvID(7)
}

func TestEndsWithoutNewline(t *testing.T) {
	// The last message may lack its terminator; an io.Reader that is not
	// a pipe works as well.
	var out strings.Builder
	in := strings.NewReader(call(1, "echo", `{"text":"a"}`, "") + "\r\n\n" + call(2, "echo", `{"text":"b"}`, ""))
	if err := stdio.Serve(context.Background(), newServer(t, newTools()), in, &out, stdio.Logger(quiet)); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("want two lines, got %q", out.String())
	}
}

// errReader fails after its data.
type errReader struct {
	data string
	err  error
}

func (r *errReader) Read(p []byte) (int, error) {
	if r.data == "" {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

func TestReadError(t *testing.T) {
	boom := errors.New("boom")
	var out strings.Builder
	in := &errReader{data: call(1, "echo", `{"text":"a"}`, "") + "\n", err: boom}
	err := stdio.Serve(context.Background(), newServer(t, newTools()), in, &out, stdio.Logger(quiet))
	if !errors.Is(err, boom) {
		t.Errorf("Serve = %v, want the read error", err)
	}
	if !strings.Contains(out.String(), `"id":1`) {
		t.Errorf("the request read before the error was not answered: %q", out.String())
	}
}

// rawTools returns pretty-printed JSON, with raw newlines.
type rawTools struct{}

func (rawTools) Pretty(ctx *sake.Context) (json.RawMessage, error) {
	return json.RawMessage("{\n  \"a\": 1\n}"), nil
}

func TestNoRawNewlineInOutput(t *testing.T) {
	c := start(t, newServer(t, rawTools{}))
	c.send(call(1, "pretty", "", ""))
	m := c.recvID(1) // one line, valid JSON
	if strings.Contains(m.raw, "\n") {
		t.Errorf("raw newline in %q", m.raw)
	}
}
