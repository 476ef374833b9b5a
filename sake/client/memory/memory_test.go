package memory_test

import (
	"context"
	"errors"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/client/memory"
	"github.com/sakemcp/sake-go/sake/protocol"
)

func ping(id int64) client.Outgoing {
	return client.Outgoing{Body: protocol.AppendRequest(nil, []byte("1"), "ping", nil), ID: id, Method: "ping", Era: protocol.EraLegacy}
}

func TestEndpointRefusesAfterClose(t *testing.T) {
	t.Parallel()
	e := memory.Endpoint(sake.MustNew(greeter{}))
	if err := e.Open(func(context.Context, []byte) {}); err != nil {
		t.Fatal(err)
	}
	if body, err := e.Exchange(t.Context(), ping(1)); err != nil || body == nil {
		t.Fatalf("ping = %s, %v", body, err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	for _, o := range []client.Outgoing{ping(2), {Body: ping(3).Body, Raw: true}} {
		if body, err := e.Exchange(t.Context(), o); !errors.Is(err, client.ErrClosed) || body != nil {
			t.Errorf("after Close: %s, %v; want ErrClosed", body, err)
		}
	}
}

func TestEndpointNeedsAServer(t *testing.T) {
	t.Parallel()
	if err := memory.Endpoint(nil).Open(func(context.Context, []byte) {}); err == nil {
		t.Fatal("an endpoint without a server opened")
	}
	if _, err := client.Connect(t.Context(), memory.Transport(nil)); err == nil {
		t.Fatal("a client connected to no server")
	}
}

// A notification the server refuses comes back as its error response,
// and the client reports it.
func TestEndpointReturnsTheRefusalOfANotification(t *testing.T) {
	t.Parallel()
	e := memory.Endpoint(sake.MustNew(greeter{}))
	if err := e.Open(func(context.Context, []byte) {}); err != nil {
		t.Fatal(err)
	}
	body, err := e.Exchange(t.Context(), client.Outgoing{Body: []byte(`{"jsonrpc":"1.0","method":"notifications/initialized"}`), Method: "notifications/initialized"})
	if err != nil {
		t.Fatal(err)
	}
	env, perr := protocol.Peek(body)
	if perr != nil || env.Error == nil {
		t.Fatalf("refusal = %s, %v", body, perr)
	}
}
