//go:build !linux

package middleware_test

import "time"

// cpuTime is unknown here: benchmarks report wall time only.
func cpuTime() (time.Duration, bool) { return 0, false }
