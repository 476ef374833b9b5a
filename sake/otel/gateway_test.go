package otel_test

import (
	"errors"
	"net/http/httptest"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/gateway"
	sakeotel "github.com/sakemcp/sake-go/sake/otel"
	"github.com/sakemcp/sake-go/sake/plug"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// TestGatewayHooksMeasureEachEntry: a call through a gateway is counted,
// timed and, when it fails, counted as an error of its entry.
func TestGatewayHooksMeasureEachEntry(t *testing.T) {
	w := newWorld(t)
	remote := sake.MustNew(nil, sake.Name("remote", "1.0.0"))
	if err := remote.AddTool(
		sake.NewTool("ok", func(*sake.Context) (string, error) { return "fine", nil }),
		sake.NewTool("fail", func(*sake.Context) (string, error) { return "", errors.New("no") }),
	); err != nil {
		t.Fatal(err)
	}
	ph := plug.New(remote)
	ts := httptest.NewServer(ph)
	t.Cleanup(func() { ts.Close(); ph.Close() })
	cfg, err := gateway.ParseConfig([]byte(`{"mcpServers": {"billing": {"url": "` + ts.URL + `"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	g, err := gateway.New(t.Context(), cfg, gateway.Observe(sakeotel.GatewayHooks(sakeotel.MeterProvider(w.mp))))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.Close() })
	c := saketest.Connect(t, g.Server())
	if _, err := c.CallTool("billing_ok", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CallTool("billing_fail", nil); err == nil {
		t.Fatal("billing_fail succeeded")
	}
	m := w.metrics()
	server := attribute.String("sake.gateway.server", "billing")
	sum := func(name string) int64 {
		var n int64
		for _, dp := range m[name].Data.(metricdata.Sum[int64]).DataPoints {
			if v, ok := dp.Attributes.Value(server.Key); ok && v == server.Value {
				n += dp.Value
			}
		}
		return n
	}
	if n := sum("sake.gateway.calls"); n != 2 {
		t.Errorf("calls = %d, want 2", n)
	}
	if n := sum("sake.gateway.errors"); n != 1 {
		t.Errorf("errors = %d, want 1", n)
	}
	var count uint64
	for _, dp := range m["sake.gateway.call.duration"].Data.(metricdata.Histogram[float64]).DataPoints {
		count += dp.Count
	}
	if count != 2 {
		t.Errorf("latency recorded %d times, want 2", count)
	}
}
