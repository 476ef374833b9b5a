package sake

import "context"

// Broker carries broadcasts between the replicas of a server behind one
// load balancer, so that a list change or resource update raised on one
// replica reaches the subscriptions/listen streams and legacy sessions
// held by every other. sake/pgbroker provides one on PostgreSQL
// LISTEN/NOTIFY. A server without a broker broadcasts to its own clients
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

// WithBroker shares broadcasts with the other replicas of the server
// through b (see Broker). The server listens from New until Shutdown.
func WithBroker(b Broker) Option { return func(o *options) { o.broker = b } }

// startBroker listens to the other replicas' broadcasts, when there is a
// broker.
func (s *Server) startBroker() {
	if s.opts.broker != nil {
		s.stopBroker = s.opts.broker.Listen(s.deliver)
	}
}

// publish sends a broadcast raised here to the other replicas.
func (s *Server) publish(b Broadcast) {
	if s.opts.broker == nil {
		return
	}
	if err := s.opts.broker.Publish(context.Background(), b); err != nil {
		s.logger.Error("sake: publishing a broadcast to the other replicas", "err", err)
	}
}
