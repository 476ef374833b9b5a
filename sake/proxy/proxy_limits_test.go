package proxy_test

import (
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake/proxy"
)

func TestCallLimits(t *testing.T) {
	t.Parallel()
	if d, n := proxy.CallLimits(); d != proxy.DefaultCallTimeout || n != proxy.DefaultMaxInFlight {
		t.Fatalf("defaults: %v, %d", d, n)
	}
	if d, n := proxy.CallLimits(proxy.Prefix("x_"), proxy.CallTimeout(time.Second), proxy.MaxInFlight(3)); d != time.Second || n != 3 {
		t.Fatalf("set: %v, %d", d, n)
	}
}
