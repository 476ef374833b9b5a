package proxy

import "time"

// CallLimits reports the call timeout and the bound on calls in flight
// that opts set (CallTimeout, MaxInFlight), or their defaults: for a
// program that calls a remote server itself beside its proxies (a
// gateway's per-user servers), to hold those calls to the same limits.
func CallLimits(opts ...Option) (timeout time.Duration, inFlight int) {
	cfg := &proxyConfig{}
	for _, opt := range opts {
		opt(cfg)
	}
	return cfg.callTimeout(), cfg.maxInFlight()
}
