package proxy_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/internal/kittest"
	"github.com/sakemcp/sake-go/sake/plug"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// The kit and the connections are shared with sake/client's tests.
type (
	kit    = kittest.Kit
	pyWire = kittest.PyWire
)

var (
	newKit     = kittest.NewKit
	transports = kittest.Transports
	eras       = kittest.Eras
	connect    = kittest.Connect
)

// newKitServer builds the kit's server with tasks and small pages.
func newKitServer(t *testing.T) (*sake.Server, *kit) { return kittest.NewServer(t) }

func askOptions(asked *[]string, mu *sync.Mutex) []client.Option {
	note := func(s string) {
		mu.Lock()
		*asked = append(*asked, s)
		mu.Unlock()
	}
	return []client.Option{
		client.OnElicit(func(_ context.Context, r *protocol.ElicitRequest) (*protocol.ElicitResult, error) {
			note("elicit " + r.Mode + " " + r.Message)
			return client.Accept(map[string]any{"name": "Ada"}), nil
		}),
		client.OnSample(func(_ context.Context, r *sake.SamplingRequest) (*sake.SamplingResult, error) {
			note("sample")
			return &sake.SamplingResult{Content: sake.Text("model says hi"), Model: "m"}, nil
		}),
		client.Roots(sake.Root{URI: "file:///work", Name: "work"}),
	}
}

// httpKitFor serves srv over HTTP through a recorder.
func httpKitFor(t *testing.T, srv *sake.Server) (*sake.Server, *kittest.Recorder, string) {
	h := plug.New(srv)
	rec := kittest.NewRecorder(h)
	ts := httptest.NewServer(rec)
	t.Cleanup(func() { ts.Close(); h.Close() })
	return srv, rec, ts.URL
}

func isCode(err error, code int) bool {
	var e *sake.Error
	return errors.As(err, &e) && e.Code == code
}
