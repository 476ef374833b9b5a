package stdio_test

import (
	"bufio"
	"context"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/stdio"
)

// benchConn is a client of Serve over two pipes.
type benchConn struct {
	in   *io.PipeWriter
	out  *bufio.Reader
	done chan error
}

func benchStart(b *testing.B, legacy bool) *benchConn {
	b.Helper()
	srv := newServer(b, newTools())
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &benchConn{in: inW, out: bufio.NewReaderSize(outR, 64<<10), done: make(chan error, 1)}
	go func() {
		c.done <- stdio.Serve(context.Background(), srv, inR, outW, stdio.Logger(quiet))
		outW.Close()
	}()
	if legacy {
		c.write(b, []byte(initialize+"\n"+initialized+"\n"))
		c.read(b)
	}
	b.Cleanup(func() {
		inW.Close()
		if err := <-c.done; err != nil {
			b.Error(err)
		}
	})
	return c
}

func (c *benchConn) write(b *testing.B, p []byte) {
	if _, err := c.in.Write(p); err != nil {
		b.Fatal(err)
	}
}

func (c *benchConn) read(b *testing.B) []byte {
	line, err := c.out.ReadSlice('\n')
	if err != nil {
		b.Fatal(err)
	}
	return line
}

// BenchmarkStdioToolsCall measures a tools/call through the transport:
// written to its input, answered on its output. The round-trip
// sub-benchmarks send one request at a time; pipelined keeps up to 64 in
// flight.
func BenchmarkStdioToolsCall(b *testing.B) {
	for _, era := range []string{"modern", "legacy"} {
		b.Run(era, func(b *testing.B) {
			c := benchStart(b, era == "legacy")
			req := call(1, "echo", `{"text":"hello"}`, "")
			if era == "legacy" {
				req = legacyCall(1, "echo", `{"text":"hello"}`)
			}
			msg := []byte(req + "\n")
			b.ReportAllocs()
			for b.Loop() {
				c.write(b, msg)
				c.read(b)
			}
		})
	}
	b.Run("modern-pipelined", func(b *testing.B) {
		c := benchStart(b, false)
		const window = 64
		credit := make(chan struct{}, window)
		for range window {
			credit <- struct{}{}
		}
		b.ReportAllocs()
		b.ResetTimer()
		// Requests differ only by their id, which goes first.
		rest := strings.TrimPrefix(call(0, "echo", `{"text":"hello"}`, ""), `{"jsonrpc":"2.0","id":0`) + "\n"
		go func() {
			buf := make([]byte, 0, 512)
			for i := range b.N {
				<-credit
				buf = append(strconv.AppendInt(append(buf[:0], `{"jsonrpc":"2.0","id":`...), int64(i), 10), rest...)
				if _, err := c.in.Write(buf); err != nil {
					return
				}
			}
		}()
		for range b.N {
			c.read(b)
			credit <- struct{}{}
		}
	})
}

// BenchmarkHandle is the dispatcher alone, for comparison: what the
// transport adds is the difference.
func BenchmarkHandle(b *testing.B) {
	srv := newServer(b, newTools())
	msg := []byte(call(1, "echo", `{"text":"hello"}`, ""))
	in := &sake.Inbound{}
	b.ReportAllocs()
	for b.Loop() {
		if r := srv.Handle(context.Background(), msg, in); r.Body == nil {
			b.Fatal("no reply")
		}
	}
}
