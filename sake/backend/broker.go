package backend

import (
	"context"

	"github.com/sakemcp/sake-go/sake/protocol"
)

// Broadcast is a change a server announces to every interested client:
// a list changed (List set), or a resource changed (URI set).
type Broadcast struct {
	List protocol.List
	URI  string
	// Origin is the context of the request whose code made the broadcast
	// through sake.Context.NotifyListChanged or
	// sake.Context.ResourceUpdated, so a watcher can tell whose call
	// caused it (the test client's Listen keeps a test's own broadcasts
	// with it). A task's code announces with its task's context, which
	// keeps the values of the call that started it, even after that call
	// has returned. Nil for broadcasts made by the Server's methods.
	// Transports and brokers ignore it.
	Origin context.Context
}

// Broker carries broadcasts between the replicas of a server behind one
// load balancer, so that a list change or resource update raised on one
// replica reaches the subscriptions/listen streams and legacy sessions
// held by every other. sake/pgbroker provides one on PostgreSQL
// LISTEN/NOTIFY; a server takes one with the sake.Broker option. A server
// without a broker broadcasts to its own clients
// only, which is right for a single process.
type Broker interface {
	// Publish sends b to the other replicas.
	Publish(ctx context.Context, b Broadcast) error
	// Listen calls fn, one call at a time and in the order they were
	// published by each replica, with every broadcast another replica
	// publishes, until stop is called. Listen returns once it is
	// listening.
	Listen(fn func(Broadcast)) (stop func())
}
