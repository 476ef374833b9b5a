package sake_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"unsafe"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/transport"
)

const echoCall = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"echo","arguments":{"text":"hi"}}}`

// TestHandleIntoUsesTheLentBuffer: the reply is the one Handle gives,
// encoded in the transport's buffer, which grows to hold it.
func TestHandleIntoUsesTheLentBuffer(t *testing.T) {
	srv := sake.MustNew(benchServer{})
	want := transport.Decode(srv, []byte(echoCall), nil).Handle(context.Background())

	buf := make([]byte, 0, 8) // too small: it grows
	r := transport.Decode(srv, []byte(echoCall), nil).HandleInto(context.Background(), &buf)
	if !bytes.Equal(r.Body, want.Body) || r.ErrorCode != 0 {
		t.Fatalf("HandleInto = %s, Handle = %s", r.Body, want.Body)
	}
	if len(buf) == 0 || unsafe.SliceData(r.Body) != unsafe.SliceData(buf) {
		t.Error("the body is not in the buffer as grown")
	}
	// Used again, the buffer holds the next reply.
	r2 := transport.Decode(srv, []byte(bytes.Replace([]byte(echoCall), []byte(`"hi"`), []byte(`"ho"`), 1)), nil).HandleInto(context.Background(), &buf)
	if !bytes.Contains(r2.Body, []byte(`"ho"`)) || unsafe.SliceData(r2.Body) != unsafe.SliceData(buf) {
		t.Errorf("second reply %s", r2.Body)
	}
}

// TestHandleIntoShowsHooksTheReplyInPlace: a Request hook is shown the
// reply built in the transport's buffer, not a copy of it; a hook that
// keeps the body copies it, and its copy outlives the buffer's reuse.
func TestHandleIntoShowsHooksTheReplyInPlace(t *testing.T) {
	var seen, kept []byte
	srv := sake.MustNew(benchServer{}, sake.Observe(sake.Hooks{
		Request: func(ctx context.Context, req *sake.Request) (context.Context, func(sake.RequestDone)) {
			return ctx, func(d sake.RequestDone) {
				if kept == nil {
					seen, kept = d.Reply.Body, bytes.Clone(d.Reply.Body)
				}
			}
		},
	}))
	buf := make([]byte, 0, 1024)
	r := transport.Decode(srv, []byte(echoCall), nil).HandleInto(context.Background(), &buf)
	if !bytes.Contains(r.Body, []byte(`"hi"`)) || !bytes.Equal(kept, r.Body) {
		t.Fatalf("reply %s, hook kept %s", r.Body, kept)
	}
	if unsafe.SliceData(r.Body) != unsafe.SliceData(buf[:1]) || unsafe.SliceData(seen) != unsafe.SliceData(buf[:1]) {
		t.Error("a hooked reply was not built in the transport's buffer")
	}
	want := string(kept)
	// The transport reuses its buffer for the next reply.
	r2 := transport.Decode(srv, []byte(strings.Replace(echoCall, `"hi"`, `"ho"`, 1)), nil).HandleInto(context.Background(), &buf)
	if !bytes.Contains(r2.Body, []byte(`"ho"`)) || string(kept) != want {
		t.Fatalf("second reply %s; the hook's copy became %s", r2.Body, kept)
	}
}

// TestHandleIntoErrors: an error reply is whole too.
func TestHandleIntoErrors(t *testing.T) {
	srv := sake.MustNew(benchServer{})
	buf := make([]byte, 0, 64)
	r := transport.Decode(srv, []byte(bytes.Replace([]byte(echoCall), []byte(`"echo"`), []byte(`"nope"`), 1)), nil).HandleInto(context.Background(), &buf)
	if r.ErrorCode != sake.CodeInvalidParams || !bytes.Contains(r.Body, []byte(`"id":7`)) {
		t.Fatalf("unknown tool: %d %s", r.ErrorCode, r.Body)
	}
}

// BenchmarkHandleIntoHooked is a modern tools/call into a lent buffer,
// as sake/stdio and sake/plug make it, with a Request hook that looks at
// the reply (as the access log does): the hook sees the reply in the
// buffer, so the call allocates no body. Compare with "bare".
func BenchmarkHandleIntoHooked(b *testing.B) {
	var n int
	hook := sake.Observe(sake.Hooks{Request: func(ctx context.Context, _ *sake.Request) (context.Context, func(sake.RequestDone)) {
		return ctx, func(d sake.RequestDone) { n += len(d.Reply.Body) }
	}})
	for _, c := range []struct {
		name string
		opts []sake.Option
	}{{"bare", nil}, {"hooked", []sake.Option{hook}}} {
		b.Run(c.name, func(b *testing.B) {
			srv := sake.MustNew(benchServer{}, c.opts...)
			buf := make([]byte, 0, 1024)
			msg := []byte(echoCall)
			b.ReportAllocs()
			for b.Loop() {
				if r := transport.Decode(srv, msg, nil).HandleInto(context.Background(), &buf); r.ErrorCode != 0 {
					b.Fatal(string(r.Body))
				}
			}
		})
	}
}
