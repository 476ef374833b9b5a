package sake

import (
	"context"

	"github.com/sakemcp/sake-go/sake/backend"
)

// Broker shares broadcasts with the other replicas of the server through
// b (see [backend.Broker]; sake/pgbroker provides one). The server listens
// from New until Shutdown. Without a broker, a server broadcasts to its
// own clients only, which is right for a single process.
func Broker(b backend.Broker) Option { return func(o *options) { o.broker = b } }

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
