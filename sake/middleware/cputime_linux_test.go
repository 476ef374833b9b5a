package middleware_test

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process has used, user and system, on all
// its threads: what a benchmark costs, however busy the machine is.
func cpuTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
