package client_test

import (
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/internal/kittest"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// The kit and the connections are shared with sake/proxy's tests.
type (
	kit       = kittest.Kit
	transport = kittest.Transport
	echoArgs  = kittest.EchoArgs
	nameForm  = kittest.NameForm
	itemVars  = kittest.ItemVars
	greetArgs = kittest.GreetArgs
	pyWire    = kittest.PyWire
)

var (
	newKit     = kittest.NewKit
	transports = kittest.Transports
	eras       = kittest.Eras
	connect    = kittest.Connect
	pyError    = kittest.PyError
)

// newKitServer builds the kit's server with tasks and small pages.
func newKitServer(t *testing.T) (*sake.Server, *kit) { return kittest.NewServer(t) }

// each runs fn for every transport and era.
func each(t *testing.T, fn func(t *testing.T, tr transport, era protocol.Era, opts []client.Option)) {
	for _, tr := range transports {
		for _, e := range eras {
			t.Run(tr.Name+"/"+e.Name, func(t *testing.T) {
				t.Parallel()
				fn(t, tr, e.Want, e.Opts)
			})
		}
	}
}
