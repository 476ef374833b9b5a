package transport_test

import (
	"context"
	"fmt"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/transport"
)

// A transport with a cap of its own evicts as the server does: only an
// idle session (nothing running, no stream, no Hold) may make room.
func ExampleIdle() {
	srv := sake.MustNew(hello{})
	r := srv.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`),
		&sake.Inbound{RemoteAddr: "192.0.2.1"})
	sess := r.Session
	defer sess.Close()
	fmt.Println("idle:", transport.Idle(sess))
	release := transport.Hold(sess) // a request of the transport runs
	fmt.Println("held, idle:", transport.Idle(sess))
	release()
	fmt.Println("released, idle:", transport.Idle(sess))
	// Output:
	// idle: true
	// held, idle: false
	// released, idle: true
}
